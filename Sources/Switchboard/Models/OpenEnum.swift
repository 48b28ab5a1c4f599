import Foundation

/// An enum whose wire text may name a case this client does not know: ``LicensePhase``,
/// ``ArchiveStatus`` and ``TokenRevokeReason``.
///
/// Each conformer lists its cases and their wire text; this extension gives them the rest. An
/// unknown text decodes to `unknown(_:)` instead of failing the event, and encodes back to the same
/// text. Equality and hashing compare `rawValue`, so `.unknown("Valid")` equals `.valid`; `named(_:)`
/// never produces such a value.
package protocol OpenEnum: RawRepresentable<String>, Sendable, Hashable, Codable, CustomStringConvertible {
    /// Every case this client knows, in wire order; `unknown(_:)` is not included.
    static var knownCases: [Self] { get }
    /// A value this client does not know, with its wire text.
    static func unknown(_ rawValue: String) -> Self
}

extension OpenEnum {
    /// The known case whose wire text is `rawValue`, or `unknown(rawValue)`.
    static func named(_ rawValue: String) -> Self {
        knownCases.first { $0.rawValue == rawValue } ?? .unknown(rawValue)
    }

    /// The wire text.
    public var description: String { rawValue }

    /// Decodes the value from a JSON string; text that matches no known case gives `unknown(_:)`.
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) throws {
        self = .named(try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the value as its wire text.
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Compares two values by their wire text.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    /// Hashes the wire text.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }
}
