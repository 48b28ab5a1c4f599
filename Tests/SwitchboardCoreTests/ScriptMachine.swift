import Foundation
import Logging
import SwitchboardCore
import SwitchboardTesting

/// Opens when ``release()`` is called; everything waiting in ``wait()`` goes on then.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters.removeAll()
    }
}

/// A trivial machine for driving ``TransportDriver``: one socket at a time, frames are texts.
///
/// - `ack` connects and arms a 10 s silence deadline, `ka` moves it (and is delivered);
/// - `switch` closes the current socket and opens the next;
/// - anything else is delivered.
///
/// Every fact it is told goes into `log`, so a test sees what reached it and what did not.
struct ScriptMachine: ConnectionMachine {
    typealias ServerMessage = String
    typealias ClientMessage = String
    typealias Delivery = String
    typealias Extra = Never
    typealias Handshake = Void

    let log: LockedValue<[String]>
    var current: ConnectionID = 0
    var deadline: Duration?

    var nextDeadline: Duration? { deadline }

    private func note(_ line: String) { log.withLock { $0.append(line) } }

    mutating func connect() -> [Action] {
        current = current.next
        return [.report(.connectionStateChanged(.connecting(attempt: 1))), .open(current, reason: .connect)]
    }

    mutating func disconnect() -> [Action] {
        deadline = nil
        return [.close(current, code: .normalClosure, reason: "disconnect"), .report(.connectionStateChanged(.idle))]
    }

    mutating func shutDown() -> [Action] {
        deadline = nil
        return [.close(current, code: .normalClosure, reason: "shut down"), .report(.connectionStateChanged(.shutDown)), .finish]
    }

    mutating func subscribe(_ request: SubscriptionRequest) -> [Action] { [.send(current, "auth:\(request.key)")] }

    mutating func unsubscribe(_ key: SubscriptionKey) -> [Action] { [] }

    mutating func verifyConnection(timeout: Duration, at now: Duration) -> [Action] { [.ping(current)] }

    mutating func opened(_ connection: ConnectionID, handshake: Void, at now: Duration) -> [Action] {
        note("opened \(connection)")
        return [.send(connection, "hello")]
    }

    mutating func openFailed(
        _ connection: ConnectionID, _ failure: ConnectFailure, at now: Duration, random: inout some RandomNumberGenerator
    ) -> [Action] {
        note("open failed \(connection)")
        return []
    }

    mutating func received(
        _ message: String, on connection: ConnectionID, at now: Duration, random: inout some RandomNumberGenerator
    ) -> [Action] {
        note("\(connection): \(message)")
        switch message {
        case "ack":
            deadline = now + .seconds(10)
            return [.report(.connectionStateChanged(.connected))]
        case "ka":
            deadline = now + .seconds(10)
            return [.deliver("k", message)]
        case "switch":
            let old = current
            current = current.next
            return [.close(old, code: .normalClosure, reason: "switch"), .open(current, reason: .connect)]
        default:
            return [.deliver("k", message)]
        }
    }

    mutating func receivedGarbage(_ error: SwitchboardError, on connection: ConnectionID, at now: Duration) -> [Action] { [] }

    mutating func closed(
        _ connection: ConnectionID, close: WebSocketClose?, error: (any Error)?, at now: Duration,
        random: inout some RandomNumberGenerator
    ) -> [Action] {
        note("closed \(connection)")
        return [.report(.error(SwitchboardError(code: .network, message: "closed \(connection)")))]
    }

    mutating func timerFired(at now: Duration, random: inout some RandomNumberGenerator) -> [Action] {
        note("timer \(now)")
        guard let deadline, now >= deadline else { return [] }
        self.deadline = nil
        return [.close(current, code: .goingAway, reason: "silent"), .report(.error(SwitchboardError(code: .timeout, message: "silent")))]
    }

    mutating func readsHeldBack(on connection: ConnectionID, at now: Duration) {
        note("held back \(connection) at \(now)")
        if let deadline { self.deadline = max(deadline, now + .seconds(10)) }
    }

    mutating func pongReceived(on connection: ConnectionID, at now: Duration) -> [Action] {
        [.checkPassed(connection), .report(.error(SwitchboardError(code: .network, message: "pong \(connection)")))]
    }

    mutating func pingFailed(on connection: ConnectionID, _ error: SwitchboardError, at now: Duration) -> [Action] {
        [.report(.error(SwitchboardError(code: .network, message: "ping failed \(connection)")))]
    }
}

/// The dialect of ``ScriptMachine``: sockets from a ``ScriptedWebSocketConnector`` (after
/// `openGate`, if any), texts as they are, and messages starting with `auth:` authorized only
/// once `authorizeGate` opens. A delivery is reported as an error event naming it, so a test
/// reads everything in order from the transport's events.
struct ScriptDialect: ConnectionDialect {
    typealias Machine = ScriptMachine
    typealias State = Void

    let connector: ScriptedWebSocketConnector
    let openGate: Gate?
    let authorizeGate: Gate
    var logger: Logger { Logger(label: "driver-test", factory: { _ in SwiftLogNoOpLogHandler() }) }

    func open(_ connection: ConnectionID, reason: TokenRequestReason, as identity: TransportIdentity) async -> Result<OpenedSocket<Void>, ConnectFailure> {
        if let openGate { await openGate.wait() }
        do {
            return .success(OpenedSocket(try await connector.connect(WebSocketRequest(url: URL(string: "ws://127.0.0.1/")!)), handshake: ()))
        } catch {
            return .failure(ConnectFailure(SwitchboardError(code: .network, message: "refused"), isAuthorization: false))
        }
    }

    func opening(_ opening: SocketOpening, state: inout Void) {}

    func decode(_ message: WebSocketMessage, on connection: ConnectionID) -> Result<String, SwitchboardError>? {
        guard case .text(let text) = message else { return .failure(SwitchboardError(code: .protocolViolation, message: "binary")) }
        return .success(text)
    }

    func encode(_ message: String, on connection: ConnectionID, identity: TransportIdentity?, state: inout Void) -> Encoding {
        message.hasPrefix("auth:") ? .authorize : .frame(message, kind: nil)
    }

    func authorize(_ message: String, on connection: ConnectionID, as identity: TransportIdentity?) async -> Authorized<Never> {
        await authorizeGate.wait()
        return .frame("\(message) signed", kind: nil)
    }

    func deliver(
        _ delivery: String, for key: SubscriptionKey, receivedAt: Date, charge: InboundCharge, to events: TransportEvents.Continuation
    ) {
        events.yield(.error(SwitchboardError(code: .network, message: "delivered \(delivery)")), charge: charge)
    }

    func reporting(_ event: TransportEvent, state: inout Void) {}

    func shutDown(state: inout Void) {}
}
