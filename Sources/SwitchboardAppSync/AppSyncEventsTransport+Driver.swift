import CoreMetrics
import Foundation
import Logging
import SwitchboardCore

extension AppSyncEventsTransport {
    /// The driver loop: feeds inputs to the state machine and performs its actions.
    func drive() async {
        let clock = ElapsedClock(configuration.clock)
        var random = AnyRandom(base: configuration.random)
        var machine = AppSyncConnectionMachine<Elapsed>(
            ackTimeout: configuration.ackTimeout, policy: configuration.reconnectPolicy,
            idPrefix: String(random.next() & 0xFFFF_FFFF, radix: 16), connectionLifetime: configuration.connectionLifetime)
        var connections: [Int: any WebSocketConnection] = [:]
        var identity: TransportIdentity?
        let timerTarget = LockedValue<Elapsed?>(nil)
        var publishWaiters: [String: (ticket: UInt64, continuation: CheckedContinuation<AppSyncPublishResult, any Error>)] = [:]
        var stopped = false
        /// Whether this identity's connection was up before: the next open is a reconnect.
        var wasConnected = false

        await withTaskGroup(of: Void.self) { group in
            func perform(_ actions: [AppSyncConnectionMachine<Elapsed>.Action]) async {
                for action in actions {
                    switch action {
                    case .open(let generation, let reason):
                        guard let identity else { continue }
                        metrics.connections.increment()
                        if wasConnected { metrics.reconnects.increment() }
                        if reason == .refreshAfterRejection {
                            logger.notice("credentials rejected; connecting once more with a refreshed token",
                                          metadata: ["switchboard.connection": "\(generation)"])
                        }
                        group.addTask { await self.open(generation: generation, identity: identity, reason: reason) }
                    case .openReplacement(let generation, let reason):
                        guard let identity else { continue }
                        metrics.connections.increment()
                        logger.debug("replacing the connection before its lifetime ends")
                        group.addTask { await self.open(generation: generation, identity: identity, reason: reason) }
                    case .pingSocket(let generation):
                        guard let connection = connections[generation] else {
                            inputContinuation.yield(.pingFailed(generation: generation, SwitchboardError(
                                code: .network, message: "the connection is already closed")))
                            continue
                        }
                        logger.debug("checking the connection", metadata: ["switchboard.connection": "\(generation)"])
                        group.addTask { await self.ping(connection, generation: generation, clock: clock) }
                    case .checkPassed(let generation):
                        logger.debug("connection check passed: the connection is kept", metadata: ["switchboard.connection": "\(generation)"])
                    case .replaced(let from, let to):
                        metrics.replacements.increment()
                        logger.debug("connection replaced", metadata: ["switchboard.from": "\(from)", "switchboard.to": "\(to)"])
                    case .sendInit(let generation):
                        await send(AppSyncCodec.encode(.connectionInit), on: connections[generation])
                    // Tokens and signatures are made in a child task, so a slow provider never holds up
                    // keep-alives, timers or other sockets; the frame comes back as `.authorized`.
                    case .sendSubscribe(let generation, let key, let id, let channel):
                        guard connections[generation] != nil, let identity else { continue }
                        metrics.subscriptions.increment()
                        logger.debug("subscribing", metadata: ["switchboard.subscription": "\(key)"])
                        group.addTask {
                            do {
                                let headers = try await self.authorizationHeaders(
                                    identity: identity, reason: .subscribe, for: .subscribe(channel: channel))
                                self.inputContinuation.yield(.authorized(
                                    generation: generation, frame: AppSyncCodec.encode(.subscribe(id: id, channel: channel, authorization: headers))))
                            } catch {
                                self.inputContinuation.yield(.subscribeUnauthorized(generation: generation, key, SwitchboardError(
                                    code: .sessionExpired, message: "no token or credentials for the subscription", cause: SendableErrorBox(error))))
                            }
                        }
                    case .sendPublish(let generation, let id, let channel, let events):
                        guard connections[generation] != nil, let identity else { continue }
                        logger.debug("publishing", metadata: ["switchboard.events": "\(events.count)"])
                        group.addTask {
                            do {
                                let headers = try await self.authorizationHeaders(
                                    identity: identity, reason: .publish, for: .publish(channel: channel, events: events))
                                self.inputContinuation.yield(.authorized(
                                    generation: generation,
                                    frame: AppSyncCodec.encode(.publish(id: id, channel: channel, events: events, authorization: headers))))
                            } catch {
                                self.inputContinuation.yield(.publishUnauthorized(id: id, SwitchboardError(
                                    code: .sessionExpired, message: "no token or credentials for the publish", cause: SendableErrorBox(error))))
                            }
                        }
                    case .completePublish(let id, let result):
                        guard let waiter = publishWaiters.removeValue(forKey: id) else { continue }
                        switch result {
                        case .success(let outcome):
                            metrics.publishAccepted.increment(by: outcome.accepted.count)
                            metrics.publishRefused.increment(by: outcome.refused.count)
                            waiter.continuation.resume(returning: outcome)
                        case .failure(let error):
                            metrics.publishFailed.increment()
                            logger.debug("publish failed", metadata: ["switchboard.error": "\(error.code)"])
                            waiter.continuation.resume(throwing: error)
                        }
                    case .sendUnsubscribe(let generation, let id):
                        await send(AppSyncCodec.encode(.unsubscribe(id: id)), on: connections[generation])
                    case .close(let generation, let code):
                        if let connection = connections.removeValue(forKey: generation) {
                            group.addTask { await connection.close(code: code, reason: "") }
                        }
                    case .emit(let event):
                        if case .connectionStateChanged(let state) = event {
                            if state == .connected { wasConnected = true }
                            logger.debug("connection state", metadata: ["switchboard.state": "\(state)"])
                        }
                        continuation.yield(event)
                    case .deliver(let key, let payloads):
                        let now = Date()
                        for payload in payloads {
                            metrics.events.increment()
                            let bytes = Array(payload.utf8)
                            continuation.yield(.received(EventEnvelope(
                                subscription: key, document: JSONDocument(bytes, isValidUTF8: true), payload: Data(bytes),
                                receivedAt: now, transport: .appsync)))
                        }
                    }
                }
                // Keep a timer child sleeping towards the machine's next deadline. Some child always
                // wakes at or before the target: a later target keeps the current one sleeping on,
                // an earlier one (or one after none) starts another.
                let deadline = machine.nextDeadline
                let previous = timerTarget.withLock { target -> Elapsed? in
                    defer { target = deadline }
                    return target
                }
                if let deadline, previous.map({ deadline < $0 }) ?? true {
                    group.addTask { await self.runTimer(clock: clock, target: timerTarget, until: deadline) }
                }
            }

            for await input in inputs {
                // A frame counts from its arrival, not from when it is handled (a keep-alive
                // deadline must not move because the driver was busy).
                let now: Elapsed =
                    switch input {
                    case .inbound(_, _, let receivedAt), .ponged(_, _, let receivedAt): receivedAt
                    default: clock.now()
                    }
                switch input {
                case .connect(let next):
                    identity = next
                    wasConnected = false
                    await perform(machine.connect())
                case .disconnect:
                    identity = nil
                    await perform(machine.disconnect())
                case .subscribe(let key, let channel):
                    await perform(machine.subscribe(key: key, channel: channel))
                case .unsubscribe(let key):
                    await perform(machine.unsubscribe(key: key))
                case .opened(let generation, let connection):
                    guard machine.wants(generation: generation) else {
                        group.addTask { await connection.close(code: .normalClosure, reason: "") }
                        continue
                    }
                    connections[generation] = connection
                    forward(connection, generation: generation, clock: clock)
                    await perform(machine.opened(generation: generation, at: now))
                case .openFailed(let generation, let error, let authorization):
                    logger.debug("connect failed", metadata: ["switchboard.error": "\(error.code)"])
                    await perform(machine.openFailed(generation: generation, error: error, authorization: authorization, at: now, random: &random))
                case .inbound(let generation, .message(.text(let text)), _):
                    logger.trace("frame in", metadata: ["switchboard.bytes": "\(text.utf8.count)"])
                    do {
                        let message = try AppSyncCodec.decode(text)
                        await perform(machine.received(message, generation: generation, at: now, random: &random))
                    } catch let error as SwitchboardError {
                        metrics.decodeFailures.increment()
                        await perform(machine.receivedGarbage(error, generation: generation, at: now))
                    } catch {}
                case .inbound(let generation, .message(.binary(let data)), _):
                    metrics.decodeFailures.increment()
                    let error = SwitchboardError(code: .protocolViolation, message: "the AppSync server sent a binary frame (\(data.count) bytes)")
                    await perform(machine.receivedGarbage(error, generation: generation, at: now))
                case .inbound(let generation, .closed(let close), _):
                    connections[generation] = nil
                    await perform(machine.closed(generation: generation, close: close, error: nil, at: now, random: &random))
                case .ended(let generation, let error):
                    connections[generation] = nil
                    await perform(machine.closed(generation: generation, close: nil, error: error, at: now, random: &random))
                case .timer:
                    await perform(machine.timerFired(at: now, random: &random))
                case .publish(let ticket, let channel, let events, let continuation):
                    guard !stopped else {
                        continuation.resume(throwing: SwitchboardError(code: .shutDown, message: "the AppSync transport is shut down"))
                        continue
                    }
                    let (id, actions) = machine.publish(channel: channel, events: events, timeout: configuration.publishTimeout, at: now)
                    publishWaiters[id] = (ticket, continuation)
                    await perform(actions)
                case .authorized(let generation, let frame):
                    // A socket replaced meanwhile is gone from `connections`: the frame is dropped,
                    // and the machine has already sent it again on the new socket if still wanted.
                    await send(frame, on: connections[generation])
                case .subscribeUnauthorized(let generation, let key, let error):
                    await perform(machine.subscribeNotSent(key: key, generation: generation, error, at: now))
                case .publishUnauthorized(let id, let error):
                    await perform(machine.cancelPublish(id: id, error))
                case .cancelPublish(let ticket):
                    guard let id = publishWaiters.first(where: { $0.value.ticket == ticket })?.key,
                        let waiter = publishWaiters.removeValue(forKey: id)
                    else { continue }
                    waiter.continuation.resume(throwing: CancellationError())
                    await perform(machine.cancelPublish(id: id, SwitchboardError(code: .shutDown, message: "cancelled")))
                case .verifyConnection(let timeout):
                    await perform(machine.verifyConnection(timeout: timeout, at: now))
                case .ponged(let generation, let roundTrip, _):
                    logger.trace("pong", metadata: ["switchboard.connection": "\(generation)", "switchboard.round_trip": "\(roundTrip)"])
                    await perform(machine.pongReceived(generation: generation, at: now))
                case .pingFailed(let generation, let error):
                    logger.debug("ping failed", metadata: ["switchboard.connection": "\(generation)", "switchboard.error": "\(error.code)"])
                    await perform(machine.pingFailed(generation: generation, error, at: now))
                case .shutDown:
                    stopped = true
                    for waiter in publishWaiters.values {
                        waiter.continuation.resume(throwing: SwitchboardError(code: .shutDown, message: "the AppSync transport shut down before the publish was answered"))
                    }
                    publishWaiters.removeAll()
                    for connection in connections.values { group.addTask { await connection.close(code: .goingAway, reason: "") } }
                    connections.removeAll()
                    continuation.yield(.connectionStateChanged(.shutDown))
                    continuation.finish()
                    inputContinuation.finish()
                    timerTarget.withLock { $0 = nil }
                    group.cancelAll()
                }
            }
        }
    }

    /// Opens one socket and reports the outcome.
    private func open(generation: Int, identity: TransportIdentity, reason: TokenRequestReason) async {
        guard let host = configuration.host ?? AppSyncAuthorization.httpHost(forRealtime: configuration.realtimeURL) else {
            inputContinuation.yield(.openFailed(generation: generation, SwitchboardError(
                code: .invalidConfiguration, message: "the realtime URL has no host"), authorization: false))
            return
        }
        let headers: [String: String]
        do {
            headers = try await configuration.authorization.headers(for: .connect, host: host, reason: reason, sessionToken: identity.tokens)
        } catch {
            inputContinuation.yield(.openFailed(generation: generation, SwitchboardError(
                code: .sessionExpired, message: "the token provider failed", cause: SendableErrorBox(error)), authorization: true))
            return
        }
        let request = WebSocketRequest(
            url: configuration.realtimeURL, subprotocols: ["aws-appsync-event-ws", AppSyncAuthorization.subprotocol(for: headers)])
        do {
            let connection = try await connector.connect(request)
            inputContinuation.yield(.opened(generation: generation, connection))
        } catch let error as WebSocketHandshakeError {
            inputContinuation.yield(.openFailed(generation: generation, SwitchboardError(
                code: .network, message: "\(error)", cause: error), authorization: error.isAuthorizationFailure))
        } catch let error as SwitchboardError {
            inputContinuation.yield(.openFailed(generation: generation, .connectFailure(error), authorization: false))
        } catch {
            inputContinuation.yield(.openFailed(generation: generation, SwitchboardError(
                code: .network, message: "connecting failed", cause: SendableErrorBox(error)), authorization: false))
        }
    }

    /// Sends a connection check's ping and reports the pong, with the time it arrived, or the
    /// failure. The machine's deadline decides whether it came in time.
    private func ping(_ connection: any WebSocketConnection, generation: Int, clock: ElapsedClock) async {
        do {
            let roundTrip = try await connection.sendPing(Data())
            inputContinuation.yield(.ponged(generation: generation, roundTrip: roundTrip, receivedAt: clock.now()))
        } catch let error as SwitchboardError {
            inputContinuation.yield(.pingFailed(generation: generation, error))
        } catch {
            inputContinuation.yield(.pingFailed(generation: generation, SwitchboardError(
                code: .network, message: "the ping failed", cause: SendableErrorBox(error))))
        }
    }

    /// Feeds one socket's frames, tagged with its generation, straight into the driver's inputs
    /// as the socket yields them (no reading task in between), then its end.
    private func forward(_ connection: any WebSocketConnection, generation: Int, clock: ElapsedClock) {
        let inputs = inputContinuation
        connection.inbound.forward { item in
            switch item {
            case .success(let event)?:
                inputs.yield(.inbound(generation: generation, event, receivedAt: clock.now()))
            case nil:
                inputs.yield(.ended(generation: generation, nil))
            case .failure(let error as SwitchboardError)?:
                inputs.yield(.ended(generation: generation, error))
            case .failure(let error)?:
                inputs.yield(.ended(generation: generation, SwitchboardError(
                    code: .network, message: "the connection failed", cause: SendableErrorBox(error))))
            }
        }
    }

    /// Sleeps towards the target; once it is reached, clears it and yields `.timer` (so the
    /// driver starts a new child for the next deadline). A later target keeps this child
    /// sleeping; an earlier one is owned by another child, and none means there is nothing to do.
    private func runTimer(clock: ElapsedClock, target: LockedValue<Elapsed?>, until deadline: Elapsed) async {
        enum Next { case fire, sleep(Elapsed), stop }
        var current = deadline
        while !Task.isCancelled {
            do { try await clock.sleep(current) } catch { return }
            let next = target.withLock { wanted -> Next in
                guard let value = wanted, value >= current else { return .stop }
                if value > current { return .sleep(value) }
                wanted = nil
                return .fire
            }
            switch next {
            case .fire:
                inputContinuation.yield(.timer)
                return
            case .sleep(let later):
                current = later
            case .stop:
                return
            }
        }
    }

    private func authorizationHeaders(
        identity: TransportIdentity, reason: TokenRequestReason, for operation: AppSyncAuthorization.Operation
    ) async throws -> [String: String] {
        let host = configuration.host ?? AppSyncAuthorization.httpHost(forRealtime: configuration.realtimeURL) ?? ""
        return try await configuration.authorization.headers(for: operation, host: host, reason: reason, sessionToken: identity.tokens)
    }

    private func send(_ text: String, on connection: (any WebSocketConnection)?) async {
        guard let connection else { return }
        logger.trace("frame out", metadata: ["switchboard.bytes": "\(text.utf8.count)"])
        do {
            try await connection.send(.text(text))
        } catch {
            logger.debug("send failed", metadata: ["switchboard.error": "\(error)"])
        }
    }
}
