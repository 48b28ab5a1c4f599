import Foundation

/// The processing state of an archive (a recorded video).
///
/// A value this client does not know decodes to ``unknown(_:)`` instead of failing the event,
/// and encodes back to the same text. Equality and hashing compare ``rawValue``, so
/// `.unknown("Ready")` equals ``ready``; ``init(rawValue:)`` never produces such a value.
public enum ArchiveStatus: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible, OpenEnum {
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
        self = .named(rawValue)
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
}
