/// What the service did with each event of a publish: the ones it accepted and the ones it
/// refused, each with its position in the events you passed.
public struct AppSyncPublishResult: Sendable, Equatable {
    /// An accepted event.
    public struct Accepted: Sendable, Equatable {
        /// The id the service gave the event.
        public var identifier: String
        /// The event's position in the events passed to `publish`.
        public var index: Int

        public init(identifier: String, index: Int) {
            self.identifier = identifier
            self.index = index
        }
    }

    /// A refused event, with the service's reason.
    public struct Refused: Sendable, Equatable {
        /// The id the service gave the event, if it gave one.
        public var identifier: String?
        /// The event's position in the events passed to `publish`.
        public var index: Int
        /// The service's error code, for example `EventTooLargeException` (numbers arrive as text).
        public var code: String
        /// The service's explanation.
        public var message: String

        public init(identifier: String?, index: Int, code: String, message: String) {
            self.identifier = identifier
            self.index = index
            self.code = code
            self.message = message
        }
    }

    public var accepted: [Accepted]
    public var refused: [Refused]

    public init(accepted: [Accepted] = [], refused: [Refused] = []) {
        self.accepted = accepted
        self.refused = refused
    }

    /// Adds the result of a batch that started at position `offset` of the caller's events.
    package mutating func append(_ part: AppSyncPublishResult, offset: Int) {
        accepted += part.accepted.map { .init(identifier: $0.identifier, index: $0.index + offset) }
        refused += part.refused.map { .init(identifier: $0.identifier, index: $0.index + offset, code: $0.code, message: $0.message) }
    }

    /// Publishes `events` in consecutive batches of at most `size`, in order, and merges the
    /// results by position in `events`.
    package static func inBatches(
        of size: Int, _ events: [String], _ publish: ([String]) async throws -> AppSyncPublishResult
    ) async throws -> AppSyncPublishResult {
        var result = AppSyncPublishResult()
        var offset = 0
        while offset < events.count {
            let batch = Array(events[offset..<min(offset + size, events.count)])
            result.append(try await publish(batch), offset: offset)
            offset += batch.count
        }
        return result
    }

    /// `true` when every event was accepted.
    public var allAccepted: Bool { refused.isEmpty }
}
