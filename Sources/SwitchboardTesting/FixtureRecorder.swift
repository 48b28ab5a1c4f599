import Foundation
import SwitchboardCore

/// A ``WebSocketConnector`` that records everything said over the connections it opens, on the
/// client side, as a ``Fixture``.
///
/// Wrap the connector a transport uses, run a scenario, then take ``fixture(header:)`` and write
/// it. Credentials are redacted before they are recorded (see ``FixtureFrames/redacted(_:)``).
/// Offsets come from the clock you pass: give it the transport's `ManualClock` so that a
/// ``FixturePlayer`` can move time the same way when it replays.
///
/// ```swift
/// let recorder = FixtureRecorder(wrapping: NIOWebSocketConnector(), clock: clock)
/// let transport = AppSyncEventsTransport(configuration: …, connector: recorder, clock: clock)
/// … // run the scenario
/// try recorder.fixture(header: header).write(to: url)
/// ```
public final class FixtureRecorder: WebSocketConnector {
    private struct State {
        var entries: [Fixture.Entry] = []
        var connections = 0
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
            return RecordedConnection(base: connection) { [weak self] event in
                self?.record(Fixture.Entry(
                    connection: number, endpoint: endpoint, protocol: connection.subprotocol,
                    offsetMs: 0, event: event))
            }
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

    init(base: any WebSocketConnection, record: @escaping @Sendable (Fixture.Entry.Event) -> Void) {
        self.base = base
        self.subprotocol = base.subprotocol
        self.record = record
        let (inbound, continuation) = WebSocketInbound.makeStream()
        self.inbound = inbound
        // Forwards the server's side in order, recording each event before the client sees it.
        pump = Task {
            do {
                for try await event in base.inbound {
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

    func send(_ message: WebSocketMessage) async throws {
        if case .text(let text) = message { record(.frame(.clientToServer, text)) }
        try await base.send(message)
    }

    func close(code: WebSocketCloseCode, reason: String) async {
        record(.close(.clientToServer, code: code.rawValue, reason: reason))
        await base.close(code: code, reason: reason)
    }
}
