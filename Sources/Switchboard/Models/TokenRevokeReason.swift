import Foundation

/// Why the backend revoked a user's tokens.
///
/// A value this client does not know decodes to ``unknown(_:)`` instead of failing the event,
/// and encodes back to the same text. Equality and hashing compare ``rawValue``.
public enum TokenRevokeReason: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
    /// The user changed their password (`PASSWORD_CHANGED`).
    case passwordChanged
    /// A reason this client does not know, with its wire text.
    case unknown(String)

    /// Every reason this client knows; ``unknown(_:)`` is not included.
    public static let knownCases: [TokenRevokeReason] = [.passwordChanged]

    /// Creates a reason from its wire text; text that matches no known case gives ``unknown(_:)``.
    /// - Parameter rawValue: The wire text, such as `PASSWORD_CHANGED`.
    public init(rawValue: String) {
        self = Self.knownCases.first { $0.rawValue == rawValue } ?? .unknown(rawValue)
    }

    /// The wire text, such as `PASSWORD_CHANGED`.
    public var rawValue: String {
        switch self {
        case .passwordChanged: "PASSWORD_CHANGED"
        case .unknown(let raw): raw
        }
    }

    /// The wire text.
    public var description: String { rawValue }

    /// Decodes the reason from a JSON string.
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(rawValue: try container.decode(String.self))
    }

    /// Encodes the reason as its wire text.
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Compares two reasons by their wire text.
    public static func == (lhs: TokenRevokeReason, rhs: TokenRevokeReason) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    /// Hashes the wire text.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }
}
