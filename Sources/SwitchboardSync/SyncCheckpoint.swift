import Foundation
import SwitchboardCore

/// Where a catch-up starts: the `since` value of the sync stream and of `GET /sync/pull`.
///
/// A checkpoint is what the server answered last (`newCheckpoint`, `nextCheckpoint`) and is
/// opaque to the client: it is stored and sent back verbatim. Before the first catch-up, a
/// checkpoint can be made from a time with ``init(publishedAfter:)``; the server then sends
/// the events published strictly after it. A timestamp is ambiguous when several events share
/// it, which is why the server's own checkpoints are preferred (the emulator's are sequence
/// numbers).
public struct SyncCheckpoint: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The checkpoint's text, exactly as the server sent it.
    public var rawValue: String

    /// Wraps a checkpoint the server sent.
    /// - Parameter rawValue: The checkpoint's text.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A checkpoint that asks for the events published strictly after `date`, as an RFC 3339
    /// timestamp in UTC.
    /// - Parameter date: The last publication time already seen.
    public init(publishedAfter date: Date) {
        self.rawValue = ISO8601Timestamp.string(from: date) ?? ""
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
