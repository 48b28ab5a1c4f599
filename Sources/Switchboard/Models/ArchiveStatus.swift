import Foundation

/// The processing state of an archive (a recorded video).
///
/// A value this client does not know decodes to ``unknown(_:)`` instead of failing the event,
/// and encodes back to the same text. Equality and hashing compare ``rawValue``, so
/// `.unknown("Ready")` equals ``ready``; ``init(rawValue:)`` never produces such a value.
public enum ArchiveStatus: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
    /// The archive is waiting to be uploaded (`Pending`).
    case pending
    /// The archive is being uploaded (`Uploading`).
    case uploading
    /// The upload is complete and the archive is being processed (`Processing`).
    case processing
    /// The archive can be played (`Ready`).
    case ready
    /// Uploading or processing failed (`Failed`).
    case failed
    /// The archive was deleted (`Deleted`).
    case deleted
    /// A status this client does not know, with its wire text.
    case unknown(String)

    /// Every status this client knows, in wire order; ``unknown(_:)`` is not included.
    public static let knownCases: [ArchiveStatus] = [.pending, .uploading, .processing, .ready, .failed, .deleted]

    /// Creates a status from its wire text; text that matches no known case gives ``unknown(_:)``.
    /// - Parameter rawValue: The wire text, such as `Ready`.
    public init(rawValue: String) {
        self = Self.knownCases.first { $0.rawValue == rawValue } ?? .unknown(rawValue)
    }

    /// The wire text, such as `Ready`.
    public var rawValue: String {
        switch self {
        case .pending: "Pending"
        case .uploading: "Uploading"
        case .processing: "Processing"
        case .ready: "Ready"
        case .failed: "Failed"
        case .deleted: "Deleted"
        case .unknown(let raw): raw
        }
    }

    /// The wire text.
    public var description: String { rawValue }

    /// Decodes the status from a JSON string.
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(rawValue: try container.decode(String.self))
    }

    /// Encodes the status as its wire text.
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Compares two statuses by their wire text.
    public static func == (lhs: ArchiveStatus, rhs: ArchiveStatus) -> Bool {
        lhs.rawValue == rhs.rawValue
    }

    /// Hashes the wire text.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }
}
