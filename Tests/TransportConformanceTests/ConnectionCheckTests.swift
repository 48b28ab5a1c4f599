import Foundation
import Logging
import SwitchboardCore
import SwitchboardTesting
import Testing

/// `verifyConnection(timeout:)` on every transport flavor, over scripted sockets (the
/// ``ScriptedServer`` answers the protocol; the tests answer or withhold the pongs) on a
/// ``ManualClock``: nothing here waits on real time except bounded waits for what must happen.
@Suite("Connection checks over scripted sockets", .timeLimit(.minutes(1)))
struct ConnectionCheckTests {
    @Test("a pong within the timeout keeps the connection", arguments: Flavor.allCases)
    func pongKeepsTheConnection(_ flavor: Flavor) async throws {
        try await CheckRig.run(flavor) { rig in
            let socket = try await rig.connectSubscribed()
            let mark = rig.mark()
            rig.transport.verifyConnection(timeout: .seconds(2))
            #expect(await socket.nextPing() != nil)
            #expect(socket.answerPing())
            try await rig.waitForLog("connection check passed", count: 1)
            // The check's deadline passes without consequence.
            rig.clock.advance(by: .seconds(3))
            try await rig.deliverAndReceive("after-check")
            #expect(rig.server?.connector.attempts.count == 1)
            #expect(!socket.state.isClosed)
            #expect(rig.states(from: mark).isEmpty, "\(rig.states(from: mark))")
            #expect(rig.errors(from: mark).isEmpty, "\(rig.errors(from: mark))")
        }
    }

    @Test("no pong within the timeout: a network error, the socket closed, an immediate reconnect that subscribes again",
          arguments: Flavor.allCases)
    func noPongReconnectsAtOnce(_ flavor: Flavor) async throws {
        try await CheckRig.run(flavor) { rig in
            let socket = try await rig.connectSubscribed()
            let mark = rig.mark()
            rig.transport.verifyConnection(timeout: .seconds(2))
            #expect(await socket.nextPing() != nil)  // and withheld
            await rig.clock.sleeper(dueBy: .init(offset: .seconds(2)))
            rig.clock.advance(by: .seconds(2))
            try await rig.waitFor("subscriptionEstablished again after the check", count: 2) { $0 == .subscriptionEstablished(CheckRig.key) }
            let errors = rig.errors(from: mark)
            #expect(errors.map(\.code) == [.network])
            #expect(errors.first?.message == "connection check: no pong within 2 s")
            // No waitingToReconnect and no reconnect delay: the clock stayed where the check's deadline put it.
            #expect(rig.states(from: mark) == [.connecting(attempt: 1), .connected])
            #expect(rig.clock.now == .init(offset: .seconds(2)))
            #expect(socket.state.clientClose != nil, "the checked socket was closed by the client")
            #expect(rig.server?.connector.attempts.count == 2)
            try await rig.deliverAndReceive("on-the-new-connection")
        }
    }

    @Test("an engine that cannot ping fails the check at once and the transport reconnects", arguments: Flavor.allCases)
    func engineWithoutPingReconnects(_ flavor: Flavor) async throws {
        try await CheckRig.run(flavor, connector: { NoPingConnector(base: $0) }) { rig in
            _ = try await rig.connectSubscribed()
            let mark = rig.mark()
            rig.transport.verifyConnection(timeout: .seconds(2))
            try await rig.waitFor("subscriptionEstablished again", count: 2) { $0 == .subscriptionEstablished(CheckRig.key) }
            #expect(rig.clock.now == .zero, "no time passed: the check did not wait for its deadline")
            let errors = rig.errors(from: mark)
            #expect(errors.map(\.code) == [.network])
            #expect(errors.first?.message.hasPrefix("connection check: the ping failed") == true, "\(errors)")
            #expect((errors.first?.cause as? SwitchboardError)?.message.contains("NoPingConnection cannot send pings") == true)
            #expect(rig.states(from: mark) == [.connecting(attempt: 1), .connected])
        }
    }

    @Test("waiting to reconnect: the check connects at once instead of waiting out the delay", arguments: Flavor.allCases)
    func waitingConnectsAtOnce(_ flavor: Flavor) async throws {
        try await CheckRig.run(flavor) { rig in
            _ = try await rig.connectSubscribed()
            let mark = rig.mark()
            rig.server?.dropConnections()
            try await rig.waitFor("waitingToReconnect after the drop") { event in
                if case .connectionStateChanged(.waitingToReconnect) = event { true } else { false }
            }
            rig.transport.verifyConnection(timeout: .seconds(2))
            try await rig.waitFor("subscriptionEstablished again", count: 2) { $0 == .subscriptionEstablished(CheckRig.key) }
            #expect(rig.states(from: mark) == [.waitingToReconnect(attempt: 1, delay: .seconds(10)), .connecting(attempt: 1), .connected])
            #expect(rig.clock.now == .zero, "the reconnect delay was skipped, not waited out")
        }
    }

    @Test("idle and disconnected: the check does nothing", arguments: Flavor.allCases)
    func ignoredWhenIdleOrDisconnected(_ flavor: Flavor) async throws {
        try await CheckRig.run(flavor, policy: .never) { rig in
            // Idle: before the first connect.
            rig.transport.verifyConnection(timeout: .seconds(2))
            let socket = try await rig.connectSubscribed()
            #expect(rig.states(from: 0) == [.connecting(attempt: 1), .connected])
            #expect(socket.state.pings.isEmpty)
            // Disconnected: the policy gives up after the server drops the connection.
            rig.server?.dropConnections()
            let stopped = try await rig.waitFor("disconnected after the drop") { event in
                if case .connectionStateChanged(.disconnected) = event { true } else { false }
            }
            rig.transport.verifyConnection(timeout: .seconds(2))
            // The barrier: the next connect(as:). A check that connected would show up before it.
            rig.transport.connect(as: rig.identity)
            try await rig.waitFor("subscriptionEstablished after connecting again", count: 2) { $0 == .subscriptionEstablished(CheckRig.key) }
            #expect(rig.states(from: stopped + 1) == [.connecting(attempt: 1), .connected])
            #expect(rig.server?.connector.attempts.count == 2)
        }
    }

    @Test("a second call while a check is running sends no second ping", arguments: Flavor.allCases)
    func secondCallSendsNoSecondPing(_ flavor: Flavor) async throws {
        try await CheckRig.run(flavor) { rig in
            let socket = try await rig.connectSubscribed()
            rig.transport.verifyConnection(timeout: .seconds(2))
            #expect(await socket.nextPing() != nil)
            rig.transport.verifyConnection(timeout: .seconds(2))  // while the first waits for its pong
            socket.answerPing()
            try await rig.waitForLog("connection check passed", count: 1)
            // A check after the first ended pings again.
            rig.transport.verifyConnection(timeout: .seconds(2))
            #expect(await socket.nextPing() != nil)
            socket.answerPing()
            try await rig.waitForLog("connection check passed", count: 2)
            #expect(socket.state.pings.count == 2)
            #expect(rig.server?.connector.attempts.count == 1)
        }
    }

    @Test("a timeout that is not positive is refused with a logged invalidConfiguration error", arguments: [Flavor.appSyncEvents, .graphQLTransportWS])
    func invalidTimeoutIsRefused(_ flavor: Flavor) async throws {
        try await CheckRig.run(flavor) { rig in
            let socket = try await rig.connectSubscribed()
            rig.transport.verifyConnection(timeout: .zero)
            rig.transport.verifyConnection(timeout: .seconds(-1))
            try await rig.waitForLog("connection check refused", count: 2)
            rig.transport.verifyConnection(timeout: .seconds(1))
            #expect(await socket.nextPing() != nil)
            #expect(socket.state.pings.count == 1, "the refused calls sent no ping")
        }
    }
}

/// One transport of a flavor, on a ``ManualClock``, with its events and log lines recorded:
/// over a ``ScriptedServer`` (``run(_:policy:connector:_:)``) or the emulator.
struct CheckRig: Sendable {
    static let key: SubscriptionKey = "checked"

    let flavor: Flavor
    /// The scripted server, when there is one.
    let server: ScriptedServer?
    let clock: ManualClock
    let transport: any ConnectionVerifying
    let events: Observed<[TransportEvent]>
    let lines: Observed<[String]>
    let identity: TransportIdentity
    let deliver: @Sendable (String) async throws -> Void

    /// Over a scripted server.
    static func run(
        _ flavor: Flavor, policy: ReconnectPolicy = .fixedDelay(.seconds(10)),
        connector: (ScriptedWebSocketConnector) -> any WebSocketConnector = { $0 },
        _ body: (CheckRig) async throws -> Void
    ) async throws {
        let server = ScriptedServer(flavor: flavor)
        let userId = Conformance.userId(.first)
        let target = Conformance.address(Conformance.target(flavor.kind, .first, userId: userId))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await server.serve() }
            defer { group.cancelAll() }
            try await run(
                flavor, server: server, host: "scripted.invalid", connector: connector(server.connector), policy: policy,
                identity: TransportIdentity(userId: userId, orgId: Conformance.orgId, tokens: .constant("token-of-\(userId)")),
                deliver: { marker in await server.deliver(Conformance.payload(flavor.kind, .first, marker: marker), to: target) },
                body)
        }
    }

    static func run(
        _ flavor: Flavor, server: ScriptedServer?, host: String, connector: any WebSocketConnector, policy: ReconnectPolicy,
        identity: TransportIdentity, deliver: @escaping @Sendable (String) async throws -> Void, _ body: (CheckRig) async throws -> Void
    ) async throws {
        let clock = ManualClock()
        let lines = Observed([String]())
        let logger = Logger(label: "check", factory: { _ in ObservedLogHandler(lines: lines) })
        let transport = try #require(
            flavor.makeTransport(host: host, connector: connector, clock: clock, reconnectPolicy: policy, logger: logger)
                as? any ConnectionVerifying)
        let rig = CheckRig(
            flavor: flavor, server: server, clock: clock, transport: transport, events: Observed([]), lines: lines,
            identity: identity, deliver: deliver)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await transport.run() }
            group.addTask { for await event in transport.events { rig.events.update { $0.append(event) } } }
            do {
                try await body(rig)
            } catch {
                transport.shutDown()
                group.cancelAll()
                throw error
            }
            transport.shutDown()
            try await group.waitForAll()
        }
    }

    var target: SubscriptionRequest.Target { Conformance.target(flavor.kind, .first, userId: identity.userId) }

    /// Subscribes, connects, and waits until the subscription is established.
    /// - Returns: The connection the scripted server accepted.
    func connectSubscribed() async throws -> ScriptedWebSocketConnection {
        try await subscribeAndConnect()
        return try #require(server?.connector.attempts.last?.connection)
    }

    /// Subscribes, connects, and waits until the subscription is established.
    func subscribeAndConnect() async throws {
        try transport.subscribe(SubscriptionRequest(key: Self.key, target: target))
        transport.connect(as: identity)
        try await waitFor("subscriptionEstablished") { $0 == .subscriptionEstablished(Self.key) }
    }

    /// Has the server send an event carrying `marker`, and waits for it.
    func deliverAndReceive(_ marker: String) async throws {
        try await deliver(marker)
        try await waitFor("\(marker) received") { event in
            if case .received(let envelope) = event { String(decoding: envelope.payload, as: UTF8.self).contains(marker) } else { false }
        }
    }

    func mark() -> Int { events.value.count }

    func states(from start: Int) -> [ConnectionState] {
        events.value.dropFirst(start).compactMap { if case .connectionStateChanged(let state) = $0 { state } else { nil } }
    }

    func errors(from start: Int) -> [SwitchboardError] {
        events.value.dropFirst(start).compactMap { if case .error(let error) = $0 { error } else { nil } }
    }

    /// Waits, at most 30 s of real time (a bound for what must happen, never a delay a result
    /// depends on; generous, since the whole suite loads the machine), until `count` events match.
    /// - Returns: The index of the `count`th match.
    @discardableResult
    func waitFor(_ what: String, count: Int = 1, _ match: @escaping @Sendable (TransportEvent) -> Bool) async throws -> Int {
        let satisfied: @Sendable ([TransportEvent]) -> Bool = { $0.filter(match).count >= count }
        try await Self.bounded(what) { await events.wait(until: satisfied) } satisfied: { satisfied(events.value) }
        let all = events.value
        return all.indices.filter { match(all[$0]) }[count - 1]
    }

    /// Waits, at most 30 s of real time, until `count` log lines contain `text`.
    func waitForLog(_ text: String, count: Int) async throws {
        let satisfied: @Sendable ([String]) -> Bool = { $0.filter { $0.contains(text) }.count >= count }
        try await Self.bounded("\(count) log line(s) with \(text)") { await lines.wait(until: satisfied) } satisfied: { satisfied(lines.value) }
    }

    private static func bounded(
        _ what: String, _ wait: @escaping @Sendable () async -> Void, satisfied: () -> Bool
    ) async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await wait() }
            group.addTask { try? await Task.sleep(for: .seconds(30)) }
            await group.next()
            group.cancelAll()
        }
        guard satisfied() else {
            Issue.record("waited in vain for \(what)")
            throw CancellationError()
        }
    }
}

/// Appends every log line, with its metadata, to an ``Observed`` list.
struct ObservedLogHandler: LogHandler {
    let lines: Observed<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.update { $0.append("\(event.message) \(merged)") }
    }
}

/// Opens the scripted server's connections behind a wrapper that leaves out `sendPing(_:)`, as
/// a third-party engine written before connection checks would.
struct NoPingConnector: WebSocketConnector {
    let base: ScriptedWebSocketConnector

    func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
        NoPingConnection(base: try await base.connect(request))
    }
}

/// A connection without `sendPing(_:)`: it gets the protocol's default, which throws.
struct NoPingConnection: WebSocketConnection {
    let base: any WebSocketConnection
    var subprotocol: String? { base.subprotocol }
    var inbound: WebSocketInbound { base.inbound }
    func send(_ message: WebSocketMessage) async throws { try await base.send(message) }
    func close(code: WebSocketCloseCode, reason: String) async { await base.close(code: code, reason: reason) }
}
