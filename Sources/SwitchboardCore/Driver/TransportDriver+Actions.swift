import Foundation
import Logging

extension TransportDriver.Loop {
    /// Carries out `actions` in order; what the machine answers on the way (a ping on a socket
    /// already gone, an authorization refused) is carried out after them.
    @inlinable
    package mutating func perform(_ actions: [Dialect.Machine.Action], group: inout DiscardingTaskGroup) async {
        var queue = actions
        var index = 0
        while index < queue.count {
            let action = queue[index]
            index += 1
            switch action {
            case .deliver(let key, let delivery):
                driver.dialect.deliver(delivery, for: key, receivedAt: pendingArrival, charge: pendingCharge, to: driver.events)
                pendingCharge = .none
            case .send(let id, let message):
                guard let connection = openConnection(id) else { continue }
                switch driver.dialect.encode(message, on: id, identity: identity, state: &state) {
                case .frame(let text, let kind):
                    await send(text, kind: kind, on: connection, id: id)
                case .authorize:
                    let dialect = driver.dialect
                    let inputs = driver.inputContinuation
                    let identity = identity
                    group.addTask { inputs.yield(.authorized(id, await dialect.authorize(message, on: id, as: identity))) }
                case .skip:
                    break
                }
            case .report(let event):
                if case .connectionStateChanged(let connectionState) = event {
                    if connectionState == .connected { wasConnected = true }
                    logger.debug("connection state", metadata: ["switchboard.state": "\(connectionState)"])
                }
                driver.dialect.reporting(event, state: &state)
                driver.events.yield(event)
            case .ping(let id):
                guard let connection = openConnection(id) else {
                    queue += machine.pingFailed(
                        on: id, SwitchboardError(code: .network, message: "the connection is already closed"), at: clock.now())
                    continue
                }
                logger.debug("checking the connection", metadata: ["switchboard.connection": "\(id)"])
                ping(connection, id: id, group: &group)
            default:
                perform(lifecycle: action, group: &group)
            }
        }
    }

    /// The actions that open, close and log.
    @usableFromInline package mutating func perform(lifecycle action: Dialect.Machine.Action, group: inout DiscardingTaskGroup) {
        switch action {
        case .open(let id, let reason):
            open(id, reason: reason, isReplacement: false, group: &group)
        case .openReplacement(let id, let reason):
            open(id, reason: reason, isReplacement: true, group: &group)
        case .close(let id, let code, let reason):
            guard case .open(let connection)? = remove(id) else { return }
            logger.debug("closing socket", metadata: ["switchboard.connection": "\(id)", "switchboard.close": "\(code)"])
            group.addTask { await connection.close(code: code, reason: reason) }
        case .retire(let id, let code):
            guard let index = sockets.firstIndex(where: { $0.id == id }), case .open(let connection) = sockets[index].stage else { return }
            sockets[index].stage = .draining
            logger.debug("closing socket", metadata: ["switchboard.connection": "\(id)", "switchboard.close": "\(code)"])
            group.addTask { await connection.close(code: code, reason: "") }
        case .checkPassed(let id):
            logger.debug("connection check passed: the connection is kept", metadata: ["switchboard.connection": "\(id)"])
        case .finish:
            finished = true
        case .transport(let extra):
            driver.dialect.perform(extra, state: &state)
        case .deliver, .send, .report, .ping:
            break
        }
    }

    /// Opens socket `id` in a child task, unless signed out.
    package mutating func open(_ id: ConnectionID, reason: TokenRequestReason, isReplacement: Bool, group: inout DiscardingTaskGroup) {
        guard let identity else { return }
        driver.dialect.opening(
            SocketOpening(connection: id, reason: reason, isReplacement: isReplacement, wasConnected: wasConnected), state: &state)
        if isReplacement { logger.debug("replacing the connection before its lifetime ends") }
        if reason == .refreshAfterRejection {
            logger.notice("credentials rejected; connecting once more with a refreshed token",
                          metadata: ["switchboard.connection": "\(id)"])
        }
        sockets.append(TransportDriver<Dialect>.Socket(id: id, stage: .opening))
        let dialect = driver.dialect
        let inputs = driver.inputContinuation
        group.addTask {
            switch await dialect.open(id, reason: reason, as: identity) {
            case .success(let opened):
                if case .terminated = inputs.yield(.opened(id, opened.connection, opened.handshake)) {
                    // The loop is gone: nobody will read or close it.
                    await opened.connection.close(code: .goingAway, reason: "")
                }
            case .failure(let failure):
                inputs.yield(.openFailed(id, failure))
            }
        }
    }

    /// Sends a connection check's ping and reports the pong, with the time it arrived, or the
    /// failure. The machine's deadline decides whether it came in time.
    @usableFromInline package func ping(_ connection: any WebSocketConnection, id: ConnectionID, group: inout DiscardingTaskGroup) {
        let inputs = driver.inputContinuation
        let clock = clock
        group.addTask {
            do {
                let roundTrip = try await connection.sendPing(Data())
                inputs.yield(.ponged(id, roundTrip: roundTrip, receivedAt: clock.now()))
            } catch let error as SwitchboardError {
                inputs.yield(.pingFailed(id, error))
            } catch {
                inputs.yield(.pingFailed(id, SwitchboardError(
                    code: .network, message: "the ping failed: \(SwitchboardError.logDescription(error))")))
            }
        }
    }
}
