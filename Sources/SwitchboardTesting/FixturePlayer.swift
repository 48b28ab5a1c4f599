import Foundation
import SwitchboardCore

/// A ``/SwitchboardCore/WebSocketConnector`` that plays the server's side of a recorded ``Fixture`` to a client and
/// checks the client's side against the recording.
///
/// Hand the player to a transport as its connector and run ``play()``. The player goes through
/// the fixture in order:
/// - a line of a connection not yet open waits for the client to connect (a recorded failed
///   connect makes that attempt fail with the recorded error);
/// - a frame or close *from the server* is sent;
/// - a frame or close *from the client* is awaited and compared with the recording. Consecutive
///   client frames on one connection may arrive in any order. Credentials are redacted on both
///   sides, and operation ids are matched by position: the first id the client uses stands for
///   the first id in the recording, and so on; the server's frames are rewritten to the client's
///   ids.
///
/// With a ``ManualClock`` (the one the transport uses), the player also moves time as the
/// recording did: before it sends a server line it advances the clock to the line's offset, and
/// while it waits for the client it moves towards the awaited line's offset as soon as the client
/// has armed a timer due by then (a reconnect delay, a keep-alive deadline), one timer at a time,
/// so the client sees every instant it would have seen in real time. Time moves only after the
/// client has read every frame sent to it. Timers therefore fire where they fired when the
/// fixture was recorded, and the replay never waits on real time. Transports should time a frame
/// by when the socket delivered it (both of this package's do).
///
/// When every line is played, connections still open are closed by the server with a normal
/// closure, so the client settles. The first difference ends the replay: it is reported in
/// ``Report/mismatches`` and every open connection is dropped.
public final class FixturePlayer: WebSocketConnector {
    /// What a replay found.
    public struct Report: Sendable, Equatable {
        /// How many fixture lines were played.
        public var linesPlayed: Int
        /// How many times the client tried to connect.
        public var connectAttempts: Int
        /// Differences between the client and the recording; empty when the client behaved as
        /// recorded.
        public var mismatches: [String]
    }

    private struct State {
        var connections: [Int: PlayedConnection] = [:]
        var attempts = 0
        var finished = false
        var mismatches: [String] = []
    }

    private let fixture: Fixture
    private let clock: ManualClock?
    private let beforeAdvancing: (@Sendable (_ connectionsEnded: Int) async -> Void)?
    private let ended = LockedValue(Set<Int>())
    private let start: ManualClock.Instant
    private let order: [Int]
    private let state = Observed(State())

    /// Creates a player.
    /// - Parameters:
    ///   - fixture: The recording to play.
    ///   - clock: The transport's manual clock, to move time as the recording did; nil to leave
    ///     time alone (fixtures recorded without timers).
    ///   - beforeAdvancing: Called before the player moves the clock, with the number of
    ///     connections that have ended so far; it should return once the client has noticed that
    ///     many ended connections (for example, once its notifier has reported that many
    ///     `waitingToReconnect` or `disconnected` states). A timer armed before a connection
    ///     ended is then not mistaken for the one the recording fired. Nil moves time without
    ///     waiting.
    public init(
        _ fixture: Fixture, clock: ManualClock? = nil,
        beforeAdvancing: (@Sendable (_ connectionsEnded: Int) async -> Void)? = nil
    ) {
        self.fixture = fixture
        self.clock = clock
        self.beforeAdvancing = beforeAdvancing
        self.start = clock?.now ?? .zero
        self.order = fixture.connections
    }

    /// How many times the client has tried to connect so far.
    public var connectAttempts: Int { state.value.attempts }

    // MARK: WebSocketConnector

    public func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
        enum Outcome {
            case open(PlayedConnection)
            case fail(SwitchboardError)
        }
        let outcome = state.update { state -> Outcome in
            state.attempts += 1
            let index = state.attempts - 1
            guard index < order.count else {
                if !state.finished {
                    state.mismatches.append("the client opened connection \(state.attempts); the fixture has \(order.count)")
                }
                return .fail(SwitchboardError(code: .network, message: "the fixture has no connection \(state.attempts)"))
            }
            let number = order[index]
            let first = fixture.entries.first { $0.connection == number }
            if let first, request.url.path != first.endpoint {
                state.mismatches.append(
                    "connection \(number): the client connected to \(request.url.path), the recording to \(first.endpoint)")
            }
            if case .connectFailed(let code, let message)? = first?.event {
                return .fail(SwitchboardError(code: SwitchboardError.Code(name: code) ?? .network, message: message))
            }
            let connection = PlayedConnection(subprotocol: first?.protocol)
            state.connections[number] = connection
            return .open(connection)
        }
        switch outcome {
        case .open(let connection): return connection
        case .fail(let error): throw error
        }
    }

    // MARK: Playing

    /// Plays the whole fixture and returns what it found. Call it once, alongside the client.
    ///
    /// It returns when every line is played, or at the first mismatch. It waits for the client as
    /// long as needed; bound it with the test's time limit.
    public func play() async -> Report {
        var ids = IDBindings()
        var index = 0
        // Client lines further on that a frame sent early has already matched.
        var matchedAhead = Set<Int>()
        let entries = fixture.entries
        var failure: String?
        playing: while index < entries.count, !Task.isCancelled {
            let entry = entries[index]
            guard let connection = await opened(entry) else {
                if case .connectFailed = entry.event {
                    index += 1
                    continue
                }
                break playing
            }
            switch entry.event {
            case .connectFailed:
                index += 1
            case .frame(.serverToClient, let text):
                await advanceClock(to: entry)
                connection.serverSends(ids.toClient(text))
                index += 1
            case .close(.serverToClient, let code, let reason):
                await advanceClock(to: entry)
                connection.serverCloses(code: WebSocketCloseCode(code), reason: reason)
                _ = ended.withLock { $0.insert(entry.connection) }
                index += 1
            case .drop(let message):
                await advanceClock(to: entry)
                connection.serverFails(SwitchboardError(code: .network, message: message))
                _ = ended.withLock { $0.insert(entry.connection) }
                index += 1
            case .frame(.clientToServer, _), .close(.clientToServer, _, _):
                // The run of consecutive client lines on this connection, matched in any order.
                var run: [Fixture.Entry] = []
                while index < entries.count, entries[index].connection == entry.connection, entries[index].isFromClient {
                    if !matchedAhead.contains(index) { run.append(entries[index]) }
                    index += 1
                }
                if let problem = await expect(run, on: connection, ids: &ids, from: index, matchedAhead: &matchedAhead) {
                    failure = problem
                    break playing
                }
                if run.contains(where: { if case .close = $0.event { true } else { false } }) {
                    _ = ended.withLock { $0.insert(entry.connection) }
                }
            }
        }
        let report = state.update { state -> Report in
            state.finished = true
            if let failure { state.mismatches.append(failure) }
            return Report(linesPlayed: index, connectAttempts: state.attempts,
                          mismatches: state.mismatches)
        }
        for connection in state.value.connections.values {
            if report.mismatches.isEmpty {
                connection.serverCloses(code: .normalClosure, reason: "end of fixture")
            } else {
                connection.serverFails(SwitchboardError(code: .network, message: "fixture replay stopped: \(report.mismatches[0])"))
            }
        }
        return report
    }

    /// The connection an entry belongs to, once the client has opened it; nil when the client
    /// never will (the task was cancelled).
    private func opened(_ entry: Fixture.Entry) async -> PlayedConnection? {
        let number = entry.connection
        guard let position = order.firstIndex(of: number) else { return nil }
        let target = instant(entry)
        while !Task.isCancelled {
            if state.value.attempts > position {
                return state.value.connections[number]
            }
            guard let clock, target > clock.now else {
                await state.wait { $0.attempts > position }
                continue
            }
            let clientFirst = await race(
                { await self.state.wait { $0.attempts > position } },
                { await self.settledSleeper(clock, dueBy: target) })
            if !clientFirst { step(clock, toward: target) }
        }
        return nil
    }

    /// Awaits the client lines of `run` on `connection`, in any order; returns the difference, if any.
    private func expect(
        _ run: [Fixture.Entry], on connection: PlayedConnection, ids: inout IDBindings, from next: Int,
        matchedAhead: inout Set<Int>
    ) async -> String? {
        var pending = run
        while let target = pending.map(instant).min() {
            // Time moves to the earliest line still awaited, never past it: a client that sent a
            // ping at 15 s and gave up waiting for the pong at 25 s must see 15 s first, or its
            // timers drift from the recording.
            guard let sent = await nextFromClient(connection, advancingTo: target) else { return nil }
            var matched: Int?
            for (position, entry) in pending.enumerated() {
                switch (entry.event, sent) {
                case (.frame(_, let recorded), .frame(let live)):
                    if ids.match(recorded: recorded, live: live) { matched = position }
                case (.close(_, let code, _), .close(let live, _)):
                    if code == live { matched = position }
                default:
                    break
                }
                if matched != nil { break }
            }
            if matched == nil, case .frame(let live) = sent,
                let ahead = matchAhead(live, connection: run[0].connection, from: next, skipping: matchedAhead, ids: &ids)
            {
                // A frame the recording has a little later (the client may send independent
                // frames in another order, such as subscriptions signed concurrently).
                matchedAhead.insert(ahead)
                continue
            }
            guard let matched else {
                let expected = pending.map(\.event.summary).joined(separator: " or ")
                return "connection \(run[0].connection): expected \(expected), the client sent \(sent.summary)"
            }
            pending.remove(at: matched)
        }
        return nil
    }

    /// The first client frame line of `connection` from `start` on, before that connection's
    /// close, that `live` matches.
    private func matchAhead(
        _ live: String, connection: Int, from start: Int, skipping matched: Set<Int>, ids: inout IDBindings
    ) -> Int? {
        let entries = fixture.entries
        var position = start
        while position < entries.count {
            let entry = entries[position]
            if entry.connection == connection {
                switch entry.event {
                case .frame(.clientToServer, let recorded) where !matched.contains(position):
                    if ids.match(recorded: recorded, live: live) { return position }
                case .close, .drop:
                    return nil
                default:
                    break
                }
            }
            position += 1
        }
        return nil
    }

    private func nextFromClient(_ connection: PlayedConnection, advancingTo target: ManualClock.Instant) async -> ClientEvent? {
        while !Task.isCancelled {
            if let event = connection.takeFromClient() { return event }
            guard let clock, target > clock.now else {
                await connection.waitForClient()
                continue
            }
            let clientFirst = await race({ await connection.waitForClient() }, { await self.settledSleeper(clock, dueBy: target) })
            if !clientFirst { step(clock, toward: target) }
        }
        return nil
    }

    /// Returns once the client has read every frame sent, has noticed every ended connection and
    /// has armed a timer due by `target`.
    private func settledSleeper(_ clock: ManualClock, dueBy target: ManualClock.Instant) async {
        await clientHasRead()
        if let beforeAdvancing { await beforeAdvancing(ended.withLock(\.count)) }
        await clock.sleeper(dueBy: target)
    }

    /// Moves the clock to the client's earliest timer, or to `target` if that comes first.
    ///
    /// Time passes through every instant, as it did when the fixture was recorded: a transport
    /// may keep a timer sleeping towards an earlier instant than its real deadline and re-arm it
    /// when it wakes, and it must see that instant before the next one.
    private func step(_ clock: ManualClock, toward target: ManualClock.Instant) {
        clock.advance(to: min(clock.nextDeadline ?? target, target))
    }

    private func clientHasRead() async {
        for connection in state.value.connections.values { await connection.waitUntilRead() }
    }

    private func instant(_ entry: Fixture.Entry) -> ManualClock.Instant { start.advanced(by: entry.offset) }

    private func advanceClock(to entry: Fixture.Entry) async {
        guard let clock, instant(entry) > clock.now else { return }
        await clientHasRead()
        clock.advance(to: instant(entry))
    }

    /// Runs two waits; true when the first finished first. The other is cancelled.
    private func race(_ first: @escaping @Sendable () async -> Void, _ second: @escaping @Sendable () async -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await first()
                return true
            }
            group.addTask {
                await second()
                return false
            }
            let winner = await group.next() ?? true
            group.cancelAll()
            return winner
        }
    }
}

// MARK: - Ids
