import Foundation

/// An organization's AI settings: the terms agreement and the per-feature switches.
///
/// Every field is optional; unknown fields are ignored. Each option needs both `key` and
/// `enabled`, so an option missing either fails the event.
public struct AIControlSetting: Sendable, Equatable, Hashable, Codable {
    /// The settings' identifier.
    public var uuid: String?
    /// Whether the organization agreed to the AI terms.
    public var termsAgreement: Bool?
    /// The feature switches.
    public var options: [AIOption]?

    /// Creates settings.
    /// - Parameters:
    ///   - uuid: The settings' identifier.
    ///   - termsAgreement: Whether the organization agreed to the AI terms.
    ///   - options: The feature switches.
    public init(uuid: String? = nil, termsAgreement: Bool? = nil, options: [AIOption]? = nil) {
        self.uuid = uuid
        self.termsAgreement = termsAgreement
        self.options = options
    }
}
