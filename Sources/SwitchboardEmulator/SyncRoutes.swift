import Foundation
import Hummingbird
import HummingbirdWebSocket
import HTTPTypes
import NIOCore
import SwitchboardSync

/// The catch-up endpoints over the ``EventLog`` (contract §6): the WebSocket sync stream
/// `/v1/sync/stream` and the REST fallback `GET /sync/pull?since=&limit=`.
///
/// `GET /sync/pull` answers `200 {"events", "nextCheckpoint", "hasMore"}`; `limit` defaults to
/// 100 and is capped at ``maximumPullLimit``. Errors are `{"error", "code"}`: `400` with
/// `INVALID_CHECKPOINT` or `INVALID_REQUEST`, `410 Gone` with `CHECKPOINT_EXPIRED` when events
/// after `since` were dropped from the log.
struct SyncRoutes {
    static let defaultPullLimit = 100
    static let maximumPullLimit = 1_000

    /// Serves the stream; its log, faults and clock serve the REST route too.
    let stream: SyncStreamDriver

    func register(on router: Router<EmulatorRequestContext>) {
        let stream = self.stream
        router.get("/sync/pull") { request, _ -> Response in
            try await stream.simulateRoundTrip()
            return self.pull(
                since: request.uri.queryParameters.get("since"), limit: request.uri.queryParameters.get("limit"))
        }
        // With the `disabled` fault, ``MissingEndpointGate`` answers 404 before this route.
        router.ws("/v1/sync/stream") { _, _ in .upgrade([:]) } onUpgrade: { inbound, outbound, context in
            try await stream.run(channel: context.requestContext.channel, inbound: inbound, outbound: outbound)
        }
    }

    func pull(since: String?, limit rawLimit: String?) -> Response {
        var limit = Self.defaultPullLimit
        if let rawLimit {
            guard let value = Int(rawLimit), value > 0 else {
                return Self.error(.badRequest, SyncErrorBody(
                    error: "limit must be a positive integer, not '\(rawLimit)'", code: SyncErrorBody.invalidRequest))
            }
            limit = min(value, Self.maximumPullLimit)
        }
        do {
            let slice = try stream.log.read(since: since, limit: limit)
            // Read as the answer leaves, after the log was (as on the stream).
            let page = SyncPullPage(
                events: slice.events, nextCheckpoint: slice.checkpoint, hasMore: slice.hasMore, serverTime: stream.serverTime())
            return Self.json(.ok, SyncJSON.encode(page))
        } catch {
            return Self.error(error.isExpired ? .gone : .badRequest, error.body)
        }
    }

    static func error(_ status: HTTPResponse.Status, _ body: SyncErrorBody) -> Response {
        json(status, SyncJSON.encode(body))
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
