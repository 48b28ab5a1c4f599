import Metrics
import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOWebSocket
import SwitchboardCore
import HummingbirdWebSocket

/// Runs one AppSync Events WebSocket connection: a reader feeding the pure ``AppSyncSession``,
/// one writer draining the ``ConnectionOutbox`` (where faults act), and a keep-alive loop on the
/// injected clock, all children of one task group.
struct AppSyncConnectionDriver {
    static let endpoint = "/event/realtime"
    static let subprotocol = "aws-appsync-event-ws"

    let configuration: SwitchboardEmulator.Configuration
    let bus: EventBus
    let registry: ConnectionRegistry
    let faults: FaultState
    let recorder: FrameRecorder?
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date

    func run(
        headers: HTTPFields, channel: any Channel, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        let outbox = await ConnectionOutbox.make(for: channel, logger: configuration.logger)
        let number = registry.register(outbox)
        let logger = {
            var logger = configuration.logger
            logger[metadataKey: "emulator.connection"] = "\(number)"
            return logger
        }()
        logger.debug("AppSync Events connection opened")
        defer {
            bus.removeAll(connection: number)
            registry.remove(number)
            logger.debug("AppSync Events connection closed")
        }
        let recorder = self.recorder
        let record: @Sendable (FrameRecorder.Direction, String) -> Void = { direction, frame in
            recorder?.record(connection: number, endpoint: Self.endpoint, protocol: Self.subprotocol,
                             direction: direction, frame: frame)
        }
        let authorizer = EmulatorAuthorizer(auth: configuration.auth)
        var refusal: String?
        if faults.consumeRejection() {
            refusal = "auth rejected by fault injection"
        } else if case .failure(let failure) = authorizer.authenticate(Self.connectHeaders(headers), now: now()) {
            refusal = failure.message
        }
        if let refusal {
            // Answer the client's first frame (its connection_init), so a client that reads only
            // after sending never misses the error.
            var firstFrame = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
            guard case .text(let text)? = try await firstFrame.next() else { return }
            record(.incoming, text)
            logger.debug("connection refused", metadata: ["emulator.reason": "\(refusal)"])
            EmulatorMetrics.connectionsRefused.increment()
            let frame = JSONText.encode([
                "type": "connection_error",
                "errors": JSONText.errors("UnauthorizedException", "You are not authorized to make this call.", code: 401),
            ])
            record(.outgoing, frame)
            try await outbound.write(.text(frame))
            try await outbound.close(.normalClosure, reason: nil)
            return
        }
        EmulatorMetrics.connectionsOpened.increment()
        let writer = ConnectionWriter(outbound: outbound, channel: channel, faults: faults, clock: clock, logger: logger, record: record)
        let keepAliveInterval = configuration.keepAliveInterval
        let clock = self.clock
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await writer.drain(outbox) }
            group.addTask {
                while true {
                    try await clock.sleep(for: keepAliveInterval)
                    outbox.send(#"{"type":"ka"}"#)
                }
            }
            var session = AppSyncSession(
                authorizer: authorizer, namespaces: configuration.namespaces,
                connectionTimeoutMs: configuration.connectionTimeoutMs,
                maximumSubscriptions: configuration.maximumSubscriptionsPerConnection)
            var iterator = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
            while let message = try await iterator.next() {
                guard case .text(let text) = message else { continue }
                logger.trace("in", metadata: ["emulator.frame": "\(FrameRecorder.redacted(text))"])
                record(.incoming, text)
                EmulatorMetrics.framesReceived.increment()
                let identifiers = (0..<PublishValidator.maximumEvents).map { _ in UUID().uuidString.lowercased() }
                for action in session.received(text, now: now(), identifiers: identifiers) {
                    perform(action, connection: number, outbox: outbox)
                }
            }
            outbox.finish()
            group.cancelAll()
        }
    }

    private func perform(_ action: AppSyncSession.Action, connection: Int, outbox: ConnectionOutbox) {
        switch action {
        case .send(let text):
            outbox.send(text)
        case .subscribe(let id, let channel):
            let faults = self.faults
            bus.subscribe(connection: connection, id: id, channel: channel) { _, event in
                guard !faults.dropsNextEvent(to: .appsync) else { return }
                outbox.send(JSONText.encode(["type": "data", "id": id, "event": event]))
            }
        case .unsubscribe(let id):
            bus.unsubscribe(connection: connection, id: id)
        case .publish(let channel, let event):
            bus.publish(channel: channel, event: event)
        }
    }

    /// The connect-time auth object: from a `header-<base64url>` subprotocol, else the request's
    /// own headers.
    static func connectHeaders(_ headers: HTTPFields) -> [String: String] {
        for offered in SubprotocolOffer.offered(headers) where offered.hasPrefix("header-") {
            if let data = Base64URL.decode(offered.dropFirst("header-".count)),
                let object = JSONText.decodeObject(data)
            {
                return object.compactMapValues { $0 as? String }
            }
            return [:]
        }
        var result: [String: String] = [:]
        for field in headers { result[field.name.canonicalName] = field.value }
        return result
    }
}

/// Parsing of the offered `Sec-WebSocket-Protocol` values.
enum SubprotocolOffer {
    static func offered(_ headers: HTTPFields) -> [String] {
        headers[values: .secWebSocketProtocol].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
