import Foundation

/// The sync stream's frames (contract §6), shared by the client and the emulator.
///
/// Every frame is a JSON object with a `type`. Batches may carry a `checkpoint` (the position
/// after their last event); it is an addition to the contract that lets a client save progress
/// batch by batch, and clients work without it.
package enum SyncStreamFrame: Sendable, Equatable {
    /// `sync.stream.request {since}`: client to server.
    case request(since: String?)
    /// `sync.stream.start {totalEvents, serverTime?}`; `serverTime` is the server's clock as it
    /// answered (RFC 3339), absent from backends that do not send it (contract §6, "Clocks").
    case start(totalEvents: Int, serverTime: String? = nil)
    /// `sync.stream.batch {events, batchIndex, isLast, checkpoint?}`.
    case batch(events: [SyncEvent], batchIndex: Int, isLast: Bool, checkpoint: String?)
    /// `sync.stream.complete {processedEvents, newCheckpoint}`.
    case complete(processedEvents: Int, newCheckpoint: String)
    /// `sync.stream.error {error, code}`.
    case error(SyncErrorBody)

    package static let requestType = "sync.stream.request"
    package static let startType = "sync.stream.start"
    package static let batchType = "sync.stream.batch"
    package static let completeType = "sync.stream.complete"
    package static let errorType = "sync.stream.error"

    /// The flat shape every frame has on the wire; absent fields are nil.
    private struct Wire: Codable {
        var type: String
        var since: String??
        var totalEvents: Int?
        var serverTime: String?
        var events: [SyncEvent]?
        var batchIndex: Int?
        var isLast: Bool?
        var checkpoint: String?
        var processedEvents: Int?
        var newCheckpoint: String?
        var error: String?
        var code: String?

        init(type: String) { self.type = type }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(type, forKey: .type)
            if let since { try container.encode(since, forKey: .since) }
            try container.encodeIfPresent(totalEvents, forKey: .totalEvents)
            try container.encodeIfPresent(serverTime, forKey: .serverTime)
            try container.encodeIfPresent(events, forKey: .events)
            try container.encodeIfPresent(batchIndex, forKey: .batchIndex)
            try container.encodeIfPresent(isLast, forKey: .isLast)
            try container.encodeIfPresent(checkpoint, forKey: .checkpoint)
            try container.encodeIfPresent(processedEvents, forKey: .processedEvents)
            try container.encodeIfPresent(newCheckpoint, forKey: .newCheckpoint)
            try container.encodeIfPresent(error, forKey: .error)
            try container.encodeIfPresent(code, forKey: .code)
        }
    }

    /// Why a frame could not be read.
    package struct DecodingFailure: Error, Sendable, CustomStringConvertible {
        /// What was wrong, for people.
        package var description: String
    }

    /// The frame as JSON text.
    package func encoded() -> String {
        var wire: Wire
        switch self {
        case .request(let since):
            wire = Wire(type: Self.requestType)
            wire.since = .some(since)
        case .start(let totalEvents, let serverTime):
            wire = Wire(type: Self.startType)
            (wire.totalEvents, wire.serverTime) = (totalEvents, serverTime)
        case .batch(let events, let batchIndex, let isLast, let checkpoint):
            wire = Wire(type: Self.batchType)
            (wire.events, wire.batchIndex, wire.isLast, wire.checkpoint) = (events, batchIndex, isLast, checkpoint)
        case .complete(let processedEvents, let newCheckpoint):
            wire = Wire(type: Self.completeType)
            (wire.processedEvents, wire.newCheckpoint) = (processedEvents, newCheckpoint)
        case .error(let body):
            wire = Wire(type: Self.errorType)
            (wire.error, wire.code) = (body.error, body.code)
        }
        return SyncJSON.encode(wire)
    }

    /// Reads a frame.
    /// - Throws: ``DecodingFailure`` for text that is not JSON, an unknown `type`, or a missing
    ///   or mistyped field.
    package init(decoding text: String) throws(DecodingFailure) {
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(text.utf8))
        } catch {
            throw DecodingFailure(description: "not a sync stream frame: \(SyncJSON.describe(error))")
        }
        func field<T>(_ value: T?, _ name: String) throws(DecodingFailure) -> T {
            guard let value else { throw DecodingFailure(description: "\(wire.type) without '\(name)'") }
            return value
        }
        switch wire.type {
        case Self.requestType:
            self = .request(since: wire.since ?? nil)
        case Self.startType:
            self = .start(totalEvents: try field(wire.totalEvents, "totalEvents"), serverTime: wire.serverTime)
        case Self.batchType:
            self = .batch(
                events: try field(wire.events, "events"), batchIndex: try field(wire.batchIndex, "batchIndex"),
                isLast: try field(wire.isLast, "isLast"), checkpoint: wire.checkpoint)
        case Self.completeType:
            self = .complete(
                processedEvents: try field(wire.processedEvents, "processedEvents"),
                newCheckpoint: try field(wire.newCheckpoint, "newCheckpoint"))
        case Self.errorType:
            self = .error(SyncErrorBody(error: try field(wire.error, "error"), code: wire.code))
        default:
            throw DecodingFailure(description: "unknown frame type '\(wire.type)'")
        }
    }
}

/// The body of a sync error: the stream's `sync.stream.error` frame and the REST fallback's
/// error responses, `{"error": "...", "code": "..."}`.
package struct SyncErrorBody: Codable, Sendable, Equatable {
    /// The message, for people.
    package var error: String
    /// A stable code, such as ``checkpointExpired``.
    package var code: String?

    package init(error: String, code: String?) {
        self.error = error
        self.code = code
    }

    /// The checkpoint points before the oldest event the log still holds: events were dropped.
    package static let checkpointExpired = "CHECKPOINT_EXPIRED"
    /// The checkpoint is neither one the server issued nor an RFC 3339 timestamp.
    package static let invalidCheckpoint = "INVALID_CHECKPOINT"
    /// The request was not a `sync.stream.request` (or a bad query).
    package static let invalidRequest = "INVALID_REQUEST"
    /// The server will not stream now; the client is to use the REST fallback.
    package static let unavailable = "UNAVAILABLE"
}

/// `GET /sync/pull` answers `{"events": [...], "nextCheckpoint": "...", "hasMore": bool, "serverTime"?: "..."}`.
package struct SyncPullPage: Codable, Sendable, Equatable {
    package var events: [SyncEvent]
    package var nextCheckpoint: String
    package var hasMore: Bool
    /// The server's clock as it answered (RFC 3339); absent from backends that do not send it.
    package var serverTime: String?

    package init(events: [SyncEvent], nextCheckpoint: String, hasMore: Bool, serverTime: String? = nil) {
        self.events = events
        self.nextCheckpoint = nextCheckpoint
        self.hasMore = hasMore
        self.serverTime = serverTime
    }
}

/// Compact JSON for the sync wire types.
package enum SyncJSON {
    package static func encode(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// A one-line account of a decoding error: what was wrong and where.
    package static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .dataCorrupted(let context), .keyNotFound(_, let context), .typeMismatch(_, let context),
            .valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
