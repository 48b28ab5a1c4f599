import Foundation

/// Why the backend revoked a user's tokens.
///
/// A value this client does not know decodes to ``unknown(_:)`` instead of failing the event,
/// and encodes back to the same text. Equality and hashing compare ``rawValue``.
public enum TokenRevokeReason: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible, OpenEnum {
    /// The user changed their password (`PASSWORD_CHANGED`).
    case passwordChanged
    /// A reason this client does not know, with its wire text.
    case unknown(String)

    /// Every reason this client knows; ``unknown(_:)`` is not included.
    public static let knownCases: [TokenRevokeReason] = [.passwordChanged]

    /// Creates a reason from its wire text; text that matches no known case gives ``unknown(_:)``.
    /// - Parameter rawValue: The wire text, such as `PASSWORD_CHANGED`.
    public init(rawValue: String) {
        self = .named(rawValue)
    }

    /// The wire text, such as `PASSWORD_CHANGED`.
    public var rawValue: String {
        switch self {
        case .passwordChanged: "PASSWORD_CHANGED"
        case .unknown(let raw): raw
        }
    }
}
