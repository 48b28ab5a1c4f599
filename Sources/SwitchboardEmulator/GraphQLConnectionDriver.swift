import Foundation
import HTTPTypes
import HummingbirdWebSocket
import Logging
import Metrics
import NIOCore
import NIOWebSocket
import SwitchboardCore

/// Runs one `/graphql` WebSocket connection in any of the three GraphQL dialects: a reader and
/// an init-timeout timer feeding the pure ``GraphQLSession``, one writer draining the
/// ``ConnectionOutbox`` (where faults act), and a keep-alive loop on the injected clock.
struct GraphQLConnectionDriver {
    static let endpoint = "/graphql"
    static let legacySubprotocol = "graphql-ws"
    static let transportSubprotocol = "graphql-transport-ws"

    let configuration: SwitchboardEmulator.Configuration
    let bus: EventBus
    let registry: ConnectionRegistry
    let faults: FaultState
    let recorder: FrameRecorder?
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date

    /// The subprotocol the server answers with, preferring `graphql-transport-ws`; nil to refuse.
    /// (An AppSync client's `header-…` entry is auth, never the answer.)
    static func negotiate(_ headers: HTTPFields) -> String? {
        let offered = SubprotocolOffer.offered(headers)
        if offered.contains(transportSubprotocol) { return transportSubprotocol }
        if offered.contains(legacySubprotocol) { return legacySubprotocol }
        return nil
    }

    /// The AppSync dialect's connect-time auth object, from the `header` query parameter
    /// (base64 JSON) or, as the real service also accepts, a `header-<base64url>` subprotocol
    /// offered beside `graphql-ws`; nil when neither is there (the legacy Apollo dialect). An
    /// undecodable value is an empty object, which the authorizer refuses.
    static func appSyncAuth(headerParameter: Substring?, headers: HTTPFields) -> [String: String]? {
        let data: Data?
        if let headerParameter {
            let text = String(headerParameter).removingPercentEncoding ?? String(headerParameter)
            data = Data(base64Encoded: text) ?? Base64URL.decode(text)
        } else if let offered = SubprotocolOffer.offered(headers).first(where: { $0.hasPrefix("header-") }) {
            data = Base64URL.decode(offered.dropFirst("header-".count))
        } else {
            return nil
        }
        return data.flatMap { JSONText.decodeObject($0) }?.compactMapValues { $0 as? String } ?? [:]
    }

    private enum Input {
        case frame(String)
        case initTimeout
    }

    func run(
        headers: HTTPFields, headerParameter: Substring?, channel: any Channel,
        inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter
    ) async throws {
        guard let subprotocol = Self.negotiate(headers) else { return }
        let outbox = await ConnectionOutbox.make(for: channel, logger: configuration.logger)
        let number = registry.register(outbox)
        var logger = configuration.logger
        logger[metadataKey: "emulator.connection"] = "\(number)"
        logger.debug("GraphQL connection opened", metadata: ["emulator.subprotocol": "\(subprotocol)"])
        defer {
            bus.removeAll(connection: number)
            registry.remove(number)
            logger.debug("GraphQL connection closed")
        }
        let recorder = self.recorder
        let record: @Sendable (FrameRecorder.Direction, String) -> Void = { direction, frame in
            recorder?.record(connection: number, endpoint: Self.endpoint, protocol: subprotocol, direction: direction, frame: frame)
        }
        let rejected = faults.consumeRejection()
        let authorizer = EmulatorAuthorizer(auth: rejected ? SwitchboardEmulator.Auth(apiKeys: []) : configuration.auth)
        let dialect: GraphQLDialect
        if subprotocol == Self.transportSubprotocol {
            dialect = .transportWS
        } else if let object = Self.appSyncAuth(headerParameter: headerParameter, headers: headers) {
            switch authorizer.authenticate(object, now: now()) {
            case .success(let identity):
                dialect = .appSync(identity)
            case .failure(let failure):
                try await refuse(reason: rejected ? "auth rejected by fault injection" : failure.message,
                                 inbound: inbound, outbound: outbound, logger: logger, record: record)
                return
            }
        } else {
            dialect = .graphqlWS
        }
        EmulatorMetrics.connectionsOpened.increment()
        let writer = ConnectionWriter(outbound: outbound, channel: channel, faults: faults, clock: clock, logger: logger, record: record)
        let clock = self.clock, keepAliveInterval = configuration.keepAliveInterval, faults = self.faults
        let initTimeout = configuration.graphQLConnectionInitTimeout
        let (inputs, inputContinuation) = AsyncStream.makeStream(of: Input.self)
        let (writerDone, writerDoneContinuation) = AsyncStream.makeStream(of: Void.self)
        let allChannels = try ChannelPath("\(configuration.namespaces.sorted().first ?? "vortex-app")/*", allowWildcard: true)
        await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                defer {
                    writerDoneContinuation.finish()
                    inputContinuation.finish()
                }
                try await writer.drain(outbox)
            }
            group.addTask {
                defer { inputContinuation.finish() }
                var iterator = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
                while let message = try await iterator.next() {
                    if case .text(let text) = message { inputContinuation.yield(.frame(text)) }
                }
            }
            if dialect == .transportWS {
                group.addTask {
                    try await clock.sleep(for: initTimeout)
                    inputContinuation.yield(.initTimeout)
                }
            }
            var session = GraphQLSession(
                dialect: dialect, authorizer: authorizer, connectionTimeoutMs: configuration.connectionTimeoutMs,
                maximumSubscriptions: configuration.maximumSubscriptionsPerConnection)
            var keepAliveStarted = false
            loop: for await input in inputs {
                let actions: [GraphQLSession.Action]
                switch input {
                case .frame(let text):
                    logger.trace("in", metadata: ["emulator.frame": "\(FrameRecorder.redacted(text))"])
                    record(.incoming, text)
                    EmulatorMetrics.framesReceived.increment()
                    actions = session.received(text, now: now())
                case .initTimeout:
                    actions = session.initTimedOut()
                }
                for action in actions {
                    switch action {
                    case .send(let text):
                        outbox.send(text)
                    case .subscribe(let id, let subscription):
                        let fanOut = LockedValue(OrganizationFanOut())
                        bus.subscribe(connection: number, id: id, channel: allChannels) { channel, event in
                            guard let payload = LegacyEventMapping.payload(for: subscription, channel: channel, event: event) else { return }
                            if subscription.field == "subscribeOrganizationState",
                                !fanOut.withLock({ $0.admits(event, fromUser: channel.segments[2]) })
                            {
                                return
                            }
                            guard !faults.dropsNextEvent(to: .graphql) else { return }
                            let result = LegacyEventMapping.result(for: subscription, payload: payload)
                            outbox.send(GraphQLSession.resultFrame(dialect: dialect, id: id, data: result.data, errors: result.errors))
                        }
                    case .unsubscribe(let id):
                        bus.unsubscribe(connection: number, id: id)
                    case .startKeepAlive where !keepAliveStarted:
                        keepAliveStarted = true
                        group.addTask {
                            while true {
                                try await clock.sleep(for: keepAliveInterval)
                                outbox.send(#"{"type":"ka"}"#)
                            }
                        }
                    case .startKeepAlive:
                        break
                    case .close(let code, let reason):
                        logger.debug("closing", metadata: ["emulator.close.code": "\(code)"])
                        outbox.close(code: code, reason: reason)
                        break loop
                    }
                }
            }
            // Let the writer flush what is queued (a close frame included), then stop the rest.
            outbox.finish()
            for await _ in writerDone {}
            group.cancelAll()
        }
    }

    private func refuse(
        reason: String, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, logger: Logger,
        record: @Sendable (FrameRecorder.Direction, String) -> Void
    ) async throws {
        var firstFrame = inbound.messages(maxSize: 1 << 22).makeAsyncIterator()
        guard case .text(let text)? = try await firstFrame.next() else { return }
        record(.incoming, text)
        logger.debug("connection refused", metadata: ["emulator.reason": "\(reason)"])
        EmulatorMetrics.connectionsRefused.increment()
        let frame = JSONText.encode([
            "type": "connection_error",
            "payload": ["errors": JSONText.errors("UnauthorizedException", "You are not authorized to make this call.", code: 401)],
        ])
        record(.outgoing, frame)
        try await outbound.write(.text(frame))
        try await outbound.close(.normalClosure, reason: nil)
    }
}
