import Foundation

/// Where an organization's license stands.
///
/// A value this client does not know decodes to ``unknown(_:)`` instead of failing the event,
/// and encodes back to the same text. Equality and hashing compare ``rawValue``, so
/// `.unknown("Valid")` equals ``valid``; ``init(rawValue:)`` never produces such a value.
public enum LicensePhase: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible, OpenEnum {
    /// The license is being set up (`SetupStatus`).
    case setupStatus
    /// The license is valid (`Valid`).
    case valid
    /// The license ends soon (`NoticePeriod`).
    case noticePeriod
    /// The license has ended and a grace period runs (`GracePeriod`).
    case gracePeriod
    /// The renewal is overdue (`RenewalOverdue`).
    case renewalOverdue
    /// The license is no longer valid (`Invalid`).
    case invalid
    /// A phase this client does not know, with its wire text.
    case unknown(String)

    /// Every phase this client knows, in wire order; ``unknown(_:)`` is not included.
    public static let knownCases: [LicensePhase] = [
        .setupStatus, .valid, .noticePeriod, .gracePeriod, .renewalOverdue, .invalid,
    ]

    /// Creates a phase from its wire text; text that matches no known case gives ``unknown(_:)``.
    /// - Parameter rawValue: The wire text, such as `GracePeriod`.
    public init(rawValue: String) {
        self = .named(rawValue)
    }

    /// The wire text, such as `GracePeriod`.
    public var rawValue: String {
        switch self {
        case .setupStatus: "SetupStatus"
        case .valid: "Valid"
        case .noticePeriod: "NoticePeriod"
        case .gracePeriod: "GracePeriod"
        case .renewalOverdue: "RenewalOverdue"
        case .invalid: "Invalid"
        case .unknown(let raw): raw
        }
    }
}
