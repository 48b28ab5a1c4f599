import Foundation
import Logging
import Synchronization
import SwitchboardCore

extension ServerSentEventsTransport {
    /// The transport's state, owned by the one loop in ``ServerSentEventsTransport/run()``: inputs
    /// are commands and what child tasks found out; it reports through `emit` and starts child
    /// tasks (the stream, a subscribe or unsubscribe request, a reconnect delay) in the run's group.
    struct Driver {
        /// A subscription the owner holds.
        struct Held {
            var channel: String
            /// Its id on the current connection; nil until sent there.
            var wireId: String?
            var established = false
        }

        let configuration: Configuration
        let requests: HTTPRequests
        let emit: @Sendable (TransportEvent) -> Void
        let inputs: AsyncStream<Input>.Continuation

        private var identity: TransportIdentity?
        private var held: [SubscriptionKey: Held] = [:]
        /// Ids whose subscribe was sent but whose key was removed before the server answered:
        /// unsubscribed on the wire once it does.
        private var orphans: Set<String> = []
        /// The current connection's number; inputs of other numbers are stale.
        private var connection = 0
        private var connectionId: String?
        private var streamHandle: StreamHandle?
        /// Consecutive attempts since the last successful connection.
        private var attempt = 0
        private var nextWireId = 0
        private var random: Jitter

        init(
            configuration: Configuration, requests: HTTPRequests, emit: @escaping @Sendable (TransportEvent) -> Void,
            inputs: AsyncStream<Input>.Continuation
        ) {
            self.configuration = configuration
            self.requests = requests
            self.emit = emit
            self.inputs = inputs
            self.random = Jitter(base: configuration.random)
        }

        private var logger: Logger { configuration.logger }

        mutating func handle(_ input: Input, in group: inout DiscardingTaskGroup) {
            switch input {
            case .connect(let identity):
                self.identity = identity
                attempt = 1
                open(in: &group)
            case .disconnect:
                closeConnection()
                emit(.connectionStateChanged(.idle))
            case .subscribe(let key, let channel):
                if let old = held[key], let wireId = old.wireId {
                    if old.established { unsubscribeOnWire(wireId, in: &group) } else { orphans.insert(wireId) }
                }
                held[key] = Held(channel: channel)
                if connectionId != nil { send(key, in: &group) }
            case .unsubscribe(let key):
                guard let removed = held.removeValue(forKey: key), let wireId = removed.wireId else { return }
                if removed.established { unsubscribeOnWire(wireId, in: &group) } else { orphans.insert(wireId) }
            case .shutDown:
                break
            case .event(let number, let event) where number == connection:
                received(event, in: &group)
            case .lost(let number, let error) where number == connection:
                lost(error, in: &group)
            case .refused(let number, let error) where number == connection:
                logger.debug("sse credentials refused after a refreshed token; the session expired")
                closeConnection()
                emit(.connectionStateChanged(.disconnected(error)))
            case .subscribeFailed(let number, let wireId, let error, let rejected) where number == connection:
                guard let key = held.first(where: { $0.value.wireId == wireId })?.key else { return }
                if rejected {
                    held[key] = nil
                    emit(.subscriptionFailed(key, error))
                } else {
                    emit(.error(error))
                }
            case .reconnectDue(let number) where number == connection:
                open(in: &group)
            case .event, .lost, .refused, .subscribeFailed, .reconnectDue:
                break  // from a connection that was replaced
            }
        }

        /// Ends the connection (shutdown).
        mutating func stop() { closeConnection() }

        // MARK: Connection

        private mutating func open(in group: inout DiscardingTaskGroup) {
            closeConnection()
            guard let identity else { return }
            emit(.connectionStateChanged(.connecting(attempt: max(attempt, 1))))
            let number = connection
            let (requests, inputs, logger) = (requests, inputs, logger)
            let handle = StreamHandle()
            group.addTask {
                await Self.runStream(number: number, identity: identity, requests: requests, handle: handle, inputs: inputs, logger: logger)
            }
            streamHandle = handle
        }

        /// Opens the stream (a refused token is refreshed once, quietly) and forwards its events.
        private static func runStream(
            number: Int, identity: TransportIdentity, requests: HTTPRequests, handle: StreamHandle,
            inputs: AsyncStream<Input>.Continuation, logger: Logger
        ) async {
            var reason = TokenRequestReason.connect
            while true {
                let token: String
                do {
                    token = try await identity.tokens.token(for: reason)
                } catch {
                    inputs.yield(.lost(connection: number, SwitchboardError(
                        code: .sessionExpired, message: "no token for the sse connection: \(error)")))
                    return
                }
                let request = requests.openStream(token: token)
                guard handle.install(request) else { return }
                switch await forward(request, number: number, inputs: inputs, logger: logger) {
                case .ended:
                    return
                case .refused(let status) where reason == .connect:
                    logger.debug("sse credentials refused; fetching a refreshed token", metadata: ["sse.status": "\(status)"])
                    reason = .refreshAfterRejection
                case .refused(let status):
                    inputs.yield(.refused(connection: number, SwitchboardError(
                        code: .sessionExpired, message: "the server refused the credentials (HTTP \(status)), also after a refreshed token")))
                    return
                }
            }
        }

        private enum StreamOutcome { case ended, refused(status: Int) }

        private static func forward(
            _ request: EventStreamRequest, number: Int, inputs: AsyncStream<Input>.Continuation, logger: Logger
        ) async -> StreamOutcome {
            await withTaskCancellationHandler {
                request.start()
                // However it ended, the request and its session are done with.
                defer { request.cancel() }
                return await read(request, number: number, inputs: inputs, logger: logger)
            } onCancel: {
                request.cancel()
            }
        }

        private static func read(
            _ request: EventStreamRequest, number: Int, inputs: AsyncStream<Input>.Continuation, logger: Logger
        ) async -> StreamOutcome {
            var parser = ServerSentEventsParser()
            for await chunk in request.chunks {
                switch chunk {
                case .response(let status) where status == 401 || status == 403:
                    request.cancel()
                    return .refused(status: status)
                case .response(let status) where status != 200:
                    request.cancel()
                    inputs.yield(.lost(connection: number, SwitchboardError(
                        code: .network, message: "the sse stream answered HTTP \(status)")))
                    return .ended
                case .response:
                    break
                case .bytes(let data):
                    for event in parser.consume(data) {
                        logger.trace("sse in", metadata: ["sse.event": "\(event.name)"])
                        inputs.yield(.event(connection: number, event))
                    }
                case .ended(let failure):
                    inputs.yield(.lost(connection: number, SwitchboardError(
                        code: .network, message: failure.map { "the sse stream failed: \($0)" } ?? "the server ended the sse stream")))
                    return .ended
                }
            }
            inputs.yield(.lost(connection: number, SwitchboardError(code: .network, message: "the sse stream ended")))
            return .ended
        }

        /// Forgets the current connection: later inputs tagged with it are ignored.
        private mutating func closeConnection() {
            connection += 1
            connectionId = nil
            streamHandle?.cancel()
            streamHandle = nil
            orphans.removeAll()
            for key in held.keys {
                held[key]?.wireId = nil
                held[key]?.established = false
            }
        }

        private mutating func lost(_ error: SwitchboardError, in group: inout DiscardingTaskGroup) {
            logger.debug("sse connection lost", metadata: ["sse.error": "\(error)"])
            let wasConnected = connectionId != nil
            closeConnection()
            if wasConnected { attempt = 0 }
            emit(.error(error))
            attempt += 1
            let disconnect = ReconnectPolicy.Disconnect(.failed(error), isSignedIn: identity != nil)
            switch configuration.reconnectPolicy.decision(for: disconnect, attempt: attempt, using: &random) {
            case .reconnect(let delay):
                emit(.connectionStateChanged(.waitingToReconnect(attempt: attempt, delay: delay)))
                let (number, clock, inputs) = (connection, configuration.clock, inputs)
                group.addTask {
                    do {
                        try await clock.sleep(for: delay)
                        inputs.yield(.reconnectDue(connection: number))
                    } catch {}
                }
            case .stop(let reason):
                logger.debug("sse transport stops reconnecting", metadata: ["sse.reason": "\(reason)"])
                emit(.connectionStateChanged(.disconnected(error)))
            }
        }

        // MARK: Events

        private mutating func received(_ event: ServerSentEvent, in group: inout DiscardingTaskGroup) {
            let fields = (try? JSONSerialization.jsonObject(with: Data(event.data.utf8))) as? [String: Any]
            switch (event.name, fields) {
            case ("ready", let fields?):
                guard let id = fields["connectionId"] as? String else { return violation(event) }
                connectionId = id
                attempt = 0
                emit(.connectionStateChanged(.connected))
                for key in held.keys.sorted() { send(key, in: &group) }
            case ("subscribed", let fields?):
                guard let wireId = fields["id"] as? String else { return violation(event) }
                if orphans.remove(wireId) != nil { return unsubscribeOnWire(wireId, in: &group) }
                guard let key = key(of: wireId) else { return }
                held[key]?.established = true
                emit(.subscriptionEstablished(key))
            case ("subscribe_error", let fields?):
                guard let wireId = fields["id"] as? String else { return violation(event) }
                orphans.remove(wireId)
                guard let key = key(of: wireId) else { return }
                held[key] = nil
                let message = fields["message"] as? String ?? "the server refused the subscription"
                emit(.subscriptionFailed(key, SwitchboardError(code: .subscriptionRejected, message: message)))
            case ("data", let fields?):
                guard let wireId = fields["id"] as? String, let text = fields["event"] as? String else { return violation(event) }
                guard let key = key(of: wireId) else { return }
                emit(.received(EventEnvelope(
                    subscription: key, payload: Data(text.utf8), receivedAt: configuration.now(), transport: ServerSentEventsTransport.kind)))
            case (_, nil):
                violation(event)
            default:
                logger.debug("sse event ignored", metadata: ["sse.event": "\(event.name)"])
            }
        }

        private func key(of wireId: String) -> SubscriptionKey? { held.first { $0.value.wireId == wireId }?.key }

        private func violation(_ event: ServerSentEvent) {
            let error = SwitchboardError(
                code: .protocolViolation, message: "malformed sse event \(event.name): \(event.data.prefix(200))")
            logger.debug("sse event malformed", metadata: ["sse.error": "\(error)"])
            emit(.error(error))
        }

        // MARK: Subscriptions on the wire

        private mutating func send(_ key: SubscriptionKey, in group: inout DiscardingTaskGroup) {
            guard let connectionId, let identity, let channel = held[key]?.channel else { return }
            nextWireId += 1
            let wireId = "s\(nextWireId)"
            held[key]?.wireId = wireId
            let (number, requests, inputs) = (connection, requests, inputs)
            group.addTask {
                do {
                    let token = try await identity.tokens.token(for: .subscribe)
                    let status = try await requests.subscribe(connectionId: connectionId, wireId: wireId, channel: channel, token: token)
                    guard (200..<300).contains(status) else {
                        inputs.yield(.subscribeFailed(connection: number, wireId: wireId, SwitchboardError(
                            code: .subscriptionRejected, message: "the server refused the subscription to \(channel) (HTTP \(status))"),
                            rejected: (400..<500).contains(status) && status != 404))
                        return
                    }
                } catch {
                    inputs.yield(.subscribeFailed(connection: number, wireId: wireId, SwitchboardError(
                        code: .network, message: "the subscribe request for \(channel) failed: \(error)"), rejected: false))
                }
            }
        }

        private func unsubscribeOnWire(_ wireId: String, in group: inout DiscardingTaskGroup) {
            guard let connectionId, let identity else { return }
            let (requests, logger) = (requests, logger)
            group.addTask {
                do {
                    let token = try await identity.tokens.token(for: .subscribe)
                    _ = try await requests.unsubscribe(connectionId: connectionId, wireId: wireId, token: token)
                } catch {
                    logger.debug("sse unsubscribe failed", metadata: ["sse.error": "\(error)"])
                }
            }
        }
    }
}

/// The configured random source as the generic generator `ReconnectPolicy.decision` takes.
struct Jitter: RandomNumberGenerator {
    var base: any RandomNumberGenerator & Sendable
    mutating func next() -> UInt64 { base.next() }
}

/// The stream request of one connection, so the driver can end it from outside the task reading it.
final class StreamHandle: Sendable {
    private let state = Mutex<(request: EventStreamRequest?, cancelled: Bool)>((nil, false))

    /// Installs the next request; false (and the request is not started) once cancelled.
    func install(_ request: EventStreamRequest) -> Bool {
        let cancelled = state.withLock { state in
            if !state.cancelled { state.request = request }
            return state.cancelled
        }
        return !cancelled
    }

    func cancel() {
        let request = state.withLock { state in
            state.cancelled = true
            return state.request
        }
        request?.cancel()
    }
}
