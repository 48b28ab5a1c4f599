import Foundation

/// One AI feature switch in an organization's ``AIControlSetting``.
public struct AIOption: Sendable, Equatable, Hashable, Codable {
    /// The feature's key.
    public var key: String
    /// Whether the feature is on.
    public var enabled: Bool

    /// Creates an option.
    /// - Parameters:
    ///   - key: The feature's key.
    ///   - enabled: Whether the feature is on.
    public init(key: String, enabled: Bool) {
        self.key = key
        self.enabled = enabled
    }
}
