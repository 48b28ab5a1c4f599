import Foundation
import SwitchboardCore

/// A ``/SwitchboardCore/WebSocketConnector`` that records everything said over the connections it opens, on the
/// client side, as a ``Fixture``.
///
/// Wrap the connector a transport uses, run a scenario, then take ``fixture(header:)`` and write
/// it. Credentials are redacted before they are recorded (see ``FixtureFrames/redacted(_:)``).
/// Offsets come from the clock you pass: give it the transport's `ManualClock` so that a
/// ``FixturePlayer`` can move time the same way when it replays.
///
/// ```swift
/// let recorder = FixtureRecorder(wrapping: NIOWebSocketConnector(), clock: clock)
/// let transport = AppSyncEventsSubscriber(configuration: …, connector: recorder, clock: clock)
/// … // run the scenario
/// try recorder.fixture(header: header).write(to: url)
/// ```
public final class FixtureRecorder: WebSocketConnector {
    private struct State {
        var entries: [Fixture.Entry] = []
        var connections = 0
        /// The connections handed out, held weakly: one the client lets go of stops its pump.
        var opened: [Weak] = []
    }

    private struct Weak {
        weak var connection: RecordedConnection?
    }

    private let base: any WebSocketConnector
    private let elapsed: @Sendable () -> Duration
    private let state = LockedValue(State())

    /// Creates a recorder.
    /// - Parameters:
    ///   - base: The connector that opens the real connections.
    ///   - clock: The clock whose time the offsets are measured on.
    public init<C: Clock>(wrapping base: any WebSocketConnector, clock: C) where C.Duration == Duration {
        self.base = base
        let start = clock.now
        self.elapsed = { start.duration(to: clock.now) }
    }

    /// How many times the client has tried to connect so far.
    public var connectAttempts: Int { state.withLock(\.connections) }

    /// Everything recorded so far.
    public var entries: [Fixture.Entry] { state.withLock(\.entries) }

    /// Returns once the client has handled every server event recorded so far on each open
    /// connection (its reader has asked for the event after it), or the connection has ended.
    ///
    /// Call it before moving the client's clock: the recorder records an event before the client
    /// reads it, and a client that reads it after the clock has moved notes a later time for it
    /// (a keep-alive deadline counted from a frame's arrival then differs from the recording's).
    public func clientHasRead() async {
        let connections = state.withLock { state in
            state.opened.removeAll { $0.connection == nil }
            return state.opened.compactMap(\.connection)
        }
        for connection in connections { await connection.waitUntilRead() }
    }

    /// The recording as a fixture.
    public func fixture(header: Fixture.Header? = nil) -> Fixture {
        Fixture(header: header, entries: entries)
    }

    public func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
        let number = state.withLock { state -> Int in
            state.connections += 1
            return state.connections
        }
        let endpoint = request.url.path.isEmpty ? "/" : request.url.path
        do {
            let connection = try await base.connect(request)
            let recorded = RecordedConnection(base: connection) { [weak self] event in
                self?.record(Fixture.Entry(
                    connection: number, endpoint: endpoint, protocol: connection.subprotocol,
                    offsetMs: 0, event: event))
            }
            state.withLock { $0.opened.append(Weak(connection: recorded)) }
            return recorded
        } catch {
            let failure = error as? SwitchboardError
            record(Fixture.Entry(
                connection: number, endpoint: endpoint, protocol: nil, offsetMs: 0,
                event: .connectFailed(code: "\(failure?.code ?? .network)", message: failure?.message ?? "\(error)")))
            throw error
        }
    }

    private func record(_ entry: Fixture.Entry) {
        var entry = entry
        let offset = elapsed()
        let milliseconds = Double(offset.components.seconds) * 1000 + Double(offset.components.attoseconds) / 1e15
        entry.offsetMs = (milliseconds * 1000).rounded() / 1000
        if case .frame(let direction, let text) = entry.event {
            entry.event = .frame(direction, FixtureFrames.redacted(text))
        }
        state.withLock { $0.entries.append(entry) }
    }
}

/// A connection that reports what passes through it.
private final class RecordedConnection: WebSocketConnection {
    let subprotocol: String?
    let inbound: WebSocketInbound
    private let base: any WebSocketConnection
    private let record: @Sendable (Fixture.Entry.Event) -> Void
    private let pump: Task<Void, Never>
    private let reading: Observed<Reading>

    /// How far the client's reader has got.
    private struct Reading {
        /// Events passed on to the client.
        var forwarded = 0
        /// How many times the client's reader asked for the next event.
        var demands = 0
        /// The server's side ended, or the client closed.
        var ended = false
    }

    init(base: any WebSocketConnection, record: @escaping @Sendable (Fixture.Entry.Event) -> Void) {
        self.base = base
        self.subprotocol = base.subprotocol
        self.record = record
        let reading = Observed(Reading())
        self.reading = reading
        let (inbound, continuation) = WebSocketInbound.makeStream(onDemand: { reading.update { $0.demands += 1 } })
        self.inbound = inbound
        // Forwards the server's side in order, recording each event before the client sees it.
        pump = Task {
            defer { reading.update { $0.ended = true } }
            do {
                for try await event in base.inbound {
                    // Counted before it is recorded: once it is in the recording, a wait for the
                    // client to read it waits for this event.
                    reading.update { $0.forwarded += 1 }
                    switch event {
                    case .message(.text(let text)): record(.frame(.serverToClient, text))
                    case .message(.binary(let data)): record(.frame(.serverToClient, data.base64EncodedString()))
                    case .closed(let close): record(.close(.serverToClient, code: close.code.rawValue, reason: close.reason))
                    }
                    continuation.yield(event)
                }
                continuation.finish()
            } catch {
                record(.drop("\(error)"))
                continuation.finish(throwing: error)
            }
        }
    }

    deinit { pump.cancel() }

    /// Returns once the client's reader has asked for the event after the last one forwarded, or
    /// the connection has ended.
    func waitUntilRead() async {
        await reading.wait { $0.ended || $0.demands > $0.forwarded }
    }

    func send(_ message: WebSocketMessage) async throws {
        if case .text(let text) = message { record(.frame(.clientToServer, text)) }
        try await base.send(message)
    }

    /// Passed on to the recorded connection; pings are not part of a fixture.
    func sendPing(_ payload: Data) async throws -> Duration {
        try await base.sendPing(payload)
    }

    func close(code: WebSocketCloseCode, reason: String) async {
        reading.update { $0.ended = true }
        record(.close(.clientToServer, code: code.rawValue, reason: reason))
        await base.close(code: code, reason: reason)
    }
}
