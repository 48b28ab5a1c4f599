import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

/// A ``TransportDriver`` over ``ScriptMachine`` and scripted sockets on a ``ManualClock``.
struct DriverHarness {
    let connector = ScriptedWebSocketConnector()
    let clock = ManualClock()
    let log = LockedValue<[String]>([])
    let authorizeGate = Gate()
    let driver: TransportDriver<ScriptDialect>
    let events: TransportEvents
    static let identity = TransportIdentity(userId: "u1", orgId: "o1", tokens: .constant("t"))

    init(openGate: Gate? = nil) {
        let continuation: TransportEvents.Continuation
        (events, continuation) = TransportEvents.makeStream()
        driver = TransportDriver(
            dialect: ScriptDialect(connector: connector, openGate: openGate, authorizeGate: authorizeGate),
            clock: clock, events: continuation, name: "ScriptTransport")
    }

    func run() async throws {
        try await driver.run(machine: ScriptMachine(log: log), state: (), random: SeededRandomNumberGenerator(seed: 1))
    }

    var lines: [String] { log.withLock { $0 } }

    /// Runs the driver around `body`, which reads the events; shuts it down afterwards.
    func running(_ body: (inout TransportEvents.AsyncIterator) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await run() }
            var events = events.makeAsyncIterator()
            try await body(&events)
            driver.shutDown()
            try await group.waitForAll()
        }
    }

    /// Connects and acknowledges socket 1 (at the clock's current time); returns it.
    func connected(_ events: inout TransportEvents.AsyncIterator) async throws -> ScriptedWebSocketConnection {
        driver.yield(.connect(Self.identity))
        #expect(await events.next() == .connectionStateChanged(.connecting(attempt: 1)))
        let socket = try #require(await connector.nextAttempt()?.connection)
        #expect(await socket.nextSentText() == "hello")
        socket.serverSends(text: "ack")
        #expect(await events.next() == .connectionStateChanged(.connected))
        return socket
    }
}

private func delivered(_ text: String) -> TransportEvent { .error(SwitchboardError(code: .network, message: "delivered \(text)")) }

@Suite("The transport driver shared by both transports", .timeLimit(.minutes(1)))
struct TransportDriverTests {
    @Test("a socket the machine closed is forgotten: its close and anything after it never reach the machine")
    func closedSocketIsForgotten() async throws {
        let h = DriverHarness()
        try await h.running { events in
            let first = try await h.connected(&events)
            first.serverSends(text: "switch")
            let second = try #require(await h.connector.nextAttempt()?.connection)
            #expect(await first.nextSent() == nil, "the driver closed it")
            #expect(first.state.clientClose == WebSocketClose(code: .normalClosure, reason: "switch"))
            // The scripted socket reports its own close as a close frame: the driver no longer
            // holds socket 1 and drops it, so the machine never hears of it.
            #expect(await second.nextSentText() == "hello")
            second.serverSends(text: "fresh")
            #expect(await events.next() == delivered("fresh"))
            second.serverSends(text: "again")
            #expect(await events.next() == delivered("again"))
            #expect(h.lines == ["opened 1", "1: ack", "1: switch", "opened 2", "2: fresh", "2: again"])
        }
    }

    @Test("a socket that opens after the machine gave it up is closed at once and never delivers")
    func lateOpenIsClosed() async throws {
        let gate = Gate()
        let h = DriverHarness(openGate: gate)
        try await h.running { events in
            h.driver.yield(.connect(DriverHarness.identity))
            #expect(await events.next() == .connectionStateChanged(.connecting(attempt: 1)))
            h.driver.yield(.disconnect)
            #expect(await events.next() == .connectionStateChanged(.idle))
            await gate.release()
            let late = try #require(await h.connector.nextAttempt()?.connection)
            #expect(await late.nextSent() == nil)
            #expect(late.state.clientClose == WebSocketClose(code: .normalClosure, reason: "stale connection"))
            #expect(late.state.sent.isEmpty, "nothing was sent on it")
            h.driver.yield(.connect(DriverHarness.identity))
            #expect(await events.next() == .connectionStateChanged(.connecting(attempt: 1)))
            let next = try #require(await h.connector.nextAttempt()?.connection)
            #expect(await next.nextSentText() == "hello")
            #expect(h.lines == ["opened 2"], "the machine never heard of socket 1 opening")
        }
    }

    @Test("one timer child: a deadline that moves later wakes it early once, then the timeout fires on the manual clock")
    func oneTimer() async throws {
        let h = DriverHarness()
        try await h.running { events in
            let socket = try await h.connected(&events)
            await h.clock.sleepers(atLeast: 1)
            #expect(h.clock.nextDeadline == ManualClock.Instant(offset: .seconds(10)))
            h.clock.advance(by: .seconds(5))
            socket.serverSends(text: "ka")
            #expect(await events.next() == delivered("ka"))
            #expect(h.clock.sleeperCount == 1, "a later deadline starts no second timer child")
            h.clock.advance(to: ManualClock.Instant(offset: .seconds(10)))
            await h.clock.sleepers(atLeast: 1)
            #expect(h.clock.nextDeadline == ManualClock.Instant(offset: .seconds(15)), "the frame counted from its arrival at 5 s")
            h.clock.advance(to: ManualClock.Instant(offset: .seconds(15)))
            #expect(await events.next() == .error(SwitchboardError(code: .timeout, message: "silent")))
            #expect(await socket.nextSent() == nil)
            #expect(socket.state.clientClose?.reason == "silent")
            #expect(h.lines.filter { $0.hasPrefix("timer") }.count == 2, "\(h.lines)")
        }
    }

    @Test("a socket whose reads the client held back is not judged silent: its deadline counts from the timer, then fires once reading goes on and nothing comes")
    func heldBackReadsAreNotSilence() async throws {
        let h = DriverHarness()
        try await h.running { events in
            let socket = try await h.connected(&events)
            await h.clock.sleepers(atLeast: 1)
            // A frame charged to the connection's budget: the driver learns the budget from it.
            let budget = InboundBudget(limit: 100)
            socket.serverSends(text: "ka", charging: budget)
            #expect(await events.next() == delivered("ka"))
            // The consumer falls behind: the budget is full and the socket engine stops reading.
            let backlog = budget.charge(200)
            let readable = budget.mayRead(orWake: {})
            #expect(!readable)
            // The silence deadline (10 s after "ka") passes while reads are held back: no timeout.
            h.clock.advance(to: ManualClock.Instant(offset: .seconds(10)))
            await h.clock.sleepers(atLeast: 1)
            #expect(h.clock.nextDeadline == ManualClock.Instant(offset: .seconds(20)), "\(h.lines)")
            #expect(h.lines.contains("held back 1 at 10.0 seconds"), "\(h.lines)")
            // Reading goes on (the backlog is consumed); a full window later, still nothing came.
            backlog.release()
            h.clock.advance(to: ManualClock.Instant(offset: .seconds(20)))
            await h.clock.sleepers(atLeast: 1)
            #expect(h.clock.nextDeadline == ManualClock.Instant(offset: .seconds(30)), "resumed since the last look: one more window")
            h.clock.advance(to: ManualClock.Instant(offset: .seconds(30)))
            #expect(await events.next() == .error(SwitchboardError(code: .timeout, message: "silent")))
            #expect(h.lines.filter { $0.hasPrefix("held back") }.count == 2, "\(h.lines)")
        }
    }

    @Test("a slow authorization holds up nothing: frames are delivered meanwhile, the authorized frame follows")
    func authorizationOffTheLoop() async throws {
        let h = DriverHarness()
        try await h.running { events in
            let socket = try await h.connected(&events)
            h.driver.yield(.subscribe(SubscriptionRequest(key: "a", target: .channel("/ns/a"))))
            socket.serverSends(text: "data")
            #expect(await events.next() == delivered("data"))
            #expect(socket.state.sent == [.text("hello")], "the subscribe waits for its authorization")
            await h.authorizeGate.release()
            #expect(await socket.nextSentText() == "auth:a signed")
        }
    }

    @Test("a connection check pings the machine's socket and passes the pong back")
    func ping() async throws {
        let h = DriverHarness()
        try await h.running { events in
            let socket = try await h.connected(&events)
            h.driver.yield(.verifyConnection(timeout: .seconds(2)))
            #expect(await socket.nextPing() != nil)
            socket.answerPing()
            #expect(await events.next() == .error(SwitchboardError(code: .network, message: "pong 1")))
        }
    }

    @Test("run() once at a time; shutDown() closes the sockets and finishes the events; before run() it finishes them at once")
    func lifecycle() async throws {
        let h = DriverHarness()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await h.run() }
            var events = h.events.makeAsyncIterator()
            let socket = try await h.connected(&events)
            await #expect(throws: SwitchboardError.self) { try await h.run() }
            h.driver.shutDown()
            #expect(await events.next() == .connectionStateChanged(.shutDown))
            #expect(await events.next() == nil)
            try await group.waitForAll()
            #expect(socket.state.clientClose?.reason == "shut down")
        }
        #expect(h.driver.isShutDown)

        let early = DriverHarness()
        early.driver.shutDown()
        try await early.run()
        var events = early.events.makeAsyncIterator()
        #expect(await events.next() == .connectionStateChanged(.shutDown))
        #expect(await events.next() == nil)
    }
}
