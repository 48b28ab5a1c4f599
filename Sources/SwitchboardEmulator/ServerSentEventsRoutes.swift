import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import SwitchboardCore

/// The same events over server-sent events (SSE), for transports that do not speak WebSocket: the
/// Switchboard repository's example of a transport written against the public API alone
/// (`Examples/ServerSentEventsTransport`) runs against it.
///
/// - `GET /sse/v1/events` with `Authorization: <token>` (an API key as `x-api-key` works too)
///   opens the stream: `401` for refused credentials; otherwise `200 text/event-stream` whose first
///   event is `ready` with `{"connectionId"}`.
/// - `POST /sse/v1/events/{connectionId}/subscriptions` with `{"id", "channel"}` and the same
///   credentials answers `202` and puts the subscription's answer on the stream, in order with its
///   events: `subscribed` `{"id"}`, or `subscribe_error` `{"id", "message"}` for a channel the
///   caller may not use or a broken one. `400` for a body that is not `{"id", "channel"}`, `401`
///   for refused credentials, `404` for a connection that is gone.
/// - `DELETE /sse/v1/events/{connectionId}/subscriptions/{id}` answers `204`.
/// - Events arrive as `data` `{"id", "event"}`: the subscription's id and the event's JSON text.
///
/// The faults reach these connections too: a refused connect, a drop (the stream ends), an abort
/// (the TCP connection closes mid-stream), a stall, latency and a garbage event.
struct ServerSentEventsRoutes: Sendable {
    static let streamPath = "/sse/v1/events"

    let configuration: SwitchboardEmulator.Configuration
    let bus: EventBus
    let registry: ConnectionRegistry
    let faults: FaultState
    let streams: ServerSentEventsStreams
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date

    private var logger: Logger { configuration.logger }

    func register(on router: Router<EmulatorRequestContext>) {
        router.get(RouterPath(Self.streamPath)) { request, context in
            try await self.open(request, context: context)
        }
        router.post(RouterPath("\(Self.streamPath)/:connection/subscriptions")) { request, context in
            try await self.subscribe(request, context: context)
        }
        router.delete(RouterPath("\(Self.streamPath)/:connection/subscriptions/:id")) { request, context in
            self.unsubscribe(request, context: context)
        }
    }

    private func authenticate(_ headers: HTTPFields) -> EmulatorIdentity? {
        var auth: [String: String] = [:]
        for field in headers { auth[field.name.canonicalName] = field.value }
        guard case .success(let identity) = EmulatorAuthorizer(auth: configuration.auth).authenticate(auth, now: now()) else {
            return nil
        }
        return identity
    }

    private func open(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        guard !faults.consumeRejection(), let identity = authenticate(request.headers) else {
            logger.debug("sse connect refused")
            return Self.json(.unauthorized, ["message": "UnauthorizedException: You are not authorized to make this call."])
        }
        let outbox = ConnectionOutbox()
        let number = registry.register(outbox)
        let connectionId = "sse-\(number)"
        streams.add(connectionId, number: number, identity: identity, outbox: outbox)
        logger.debug("sse stream opened", metadata: ["emulator.connection": "\(number)"])
        outbox.send(Self.event("ready", ["connectionId": connectionId]))
        let (bus, registry, streams, faults, clock, logger) = (bus, registry, streams, faults, clock, logger)
        let keepAlive = configuration.keepAliveInterval
        let channel = context.channel
        let body = ResponseBody { writer in
            defer {
                bus.removeAll(connection: number)
                registry.remove(number)
                streams.remove(connectionId)
                logger.debug("sse stream ended", metadata: ["emulator.connection": "\(number)"])
            }
            let ended = try await withThrowingTaskGroup(of: Void.self) { group in
                // A comment every keep-alive interval: the client sees the stream alive, and a
                // client that is gone shows up as a failed write.
                group.addTask {
                    while true {
                        try await clock.sleep(for: keepAlive)
                        outbox.send(": keep-alive\n\n")
                    }
                }
                defer { group.cancelAll() }
                for await item in outbox.stream {
                    switch item {
                    case .text(let text):
                        if let latency = faults.frameLatency { try await clock.sleep(for: latency) }
                        try await writer.write(ByteBuffer(string: text))
                    case .garbage:
                        try await writer.write(ByteBuffer(string: "event: data\ndata: \u{1}not-json{{\n\n"))
                    case .stall(let duration):
                        try await clock.sleep(for: duration)
                    case .close:
                        return true
                    case .abort:
                        try await channel.close()
                        return false
                    }
                }
                return true
            }
            if ended { try await writer.finish(nil) }
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }

    private func subscribe(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        let connectionId = context.parameters.get("connection") ?? ""
        let data = Data(try await request.body.collect(upTo: 64 * 1024).readableBytesView)
        guard let identity = authenticate(request.headers) else {
            return Self.json(.unauthorized, ["message": "UnauthorizedException: You are not authorized to make this call."])
        }
        guard let body = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let id = body["id"] as? String, !id.isEmpty, let channelText = body["channel"] as? String
        else {
            return Self.json(.badRequest, ["message": "the body must be {\"id\", \"channel\"}"])
        }
        guard let stream = streams.stream(connectionId) else {
            return Self.json(.notFound, ["message": "no open stream \(connectionId)"])
        }
        let authorizer = EmulatorAuthorizer(auth: configuration.auth)
        let outbox = stream.outbox
        do {
            let channel = try ChannelPath(channelText, allowWildcard: true)
            guard identity == stream.identity, authorizer.mayAccess(identity, channel: channel) else {
                outbox.send(Self.event("subscribe_error", ["id": id, "message": "Unauthorized: not authorized to subscribe to \(channel)"]))
                return Self.json(.accepted, [:])
            }
            bus.subscribe(connection: stream.number, id: id, channel: channel) { _, event in
                outbox.send(Self.event("data", ["id": id, "event": event]))
            }
            outbox.send(Self.event("subscribed", ["id": id]))
        } catch {
            outbox.send(Self.event("subscribe_error", ["id": id, "message": "\(error)"]))
        }
        return Self.json(.accepted, [:])
    }

    private func unsubscribe(_ request: Request, context: EmulatorRequestContext) -> Response {
        let connectionId = context.parameters.get("connection") ?? ""
        guard authenticate(request.headers) != nil else {
            return Self.json(.unauthorized, ["message": "UnauthorizedException: You are not authorized to make this call."])
        }
        guard let stream = streams.stream(connectionId), let id = context.parameters.get("id") else {
            return Self.json(.notFound, ["message": "no open stream \(connectionId)"])
        }
        bus.unsubscribe(connection: stream.number, id: id)
        return Response(status: .noContent)
    }

    /// One SSE event whose data is a JSON object on a single line.
    static func event(_ name: String, _ object: [String: String]) -> String {
        "event: \(name)\ndata: \(JSONText.encode(object))\n\n"
    }

    static func json(_ status: HTTPResponse.Status, _ object: [String: String]) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: JSONText.encode(object))))
    }
}

/// The open SSE streams, by connection id, so subscribe requests find their stream and the
/// emulator can end them all when it stops (a streaming response would otherwise hold its
/// graceful shutdown open).
final class ServerSentEventsStreams: Sendable {
    struct Stream: Sendable {
        var number: Int
        var identity: EmulatorIdentity
        var outbox: ConnectionOutbox
    }

    private let streams = LockedValue<[String: Stream]>([:])

    func add(_ id: String, number: Int, identity: EmulatorIdentity, outbox: ConnectionOutbox) {
        streams.withLock { $0[id] = Stream(number: number, identity: identity, outbox: outbox) }
    }

    func remove(_ id: String) { _ = streams.withLock { $0.removeValue(forKey: id) } }

    func stream(_ id: String) -> Stream? { streams.withLock { $0[id] } }

    /// Ends every stream (the emulator is stopping).
    func finishAll() {
        for stream in streams.withLock({ Array($0.values) }) { stream.outbox.finish() }
    }
}
