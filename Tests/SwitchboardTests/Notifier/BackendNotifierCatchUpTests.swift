import Foundation
import MetricsTestKit
@testable import Switchboard
import SwitchboardCore
import SwitchboardSync
import SwitchboardTesting
import Testing

/// A backend event log for tests: what was "published", served to catch-ups from a checkpoint
/// (`seq:N`, the number of events already fetched), two events per batch. It can hold a
/// catch-up until released, and fail the next one.
final class ScriptedEventLog: CatchUpSource {
    private struct State {
        var events: [SyncEvent] = []
        var calls = 0
        var gateClosed = false
        var waiting = 0
        var failNext: SwitchboardError?
    }

    private let state = Observed(State())

    /// Appends an event on `channel` to the log, logged at `loggedAt`.
    func publish(_ payload: String, on channel: String, loggedAt: Date = Date()) {
        state.update { state in
            state.events.append(SyncEvent(id: "e\(state.events.count + 1)", channel: channel, event: payload, publishedAt: loggedAt))
        }
    }

    var calls: Int { state.value.calls }

    /// Holds the next catch-ups (after they have seen what the log holds) until ``open()``.
    func close() { state.update { $0.gateClosed = true } }
    func open() { state.update { $0.gateClosed = false } }
    /// Waits until a catch-up is held at the gate.
    func waitUntilHeld() async { await state.wait { $0.waiting > 0 } }
    func failNext(_ error: SwitchboardError) { state.update { $0.failNext = error } }

    /// How far the log's server clock runs ahead of this machine's; it answers every catch-up
    /// with its time, as `serverTime`, unless `sendsServerTime` is off.
    let serverClockOffset: TimeInterval
    let sendsServerTime: Bool

    init(serverClockOffset: TimeInterval = 0, sendsServerTime: Bool = true) {
        self.serverClockOffset = serverClockOffset
        self.sendsServerTime = sendsServerTime
    }

    /// The server's clock now.
    var serverNow: Date { Date().addingTimeInterval(serverClockOffset) }

    func catchUp(
        from start: SyncStart?, store: any CheckpointStore, backendClock: BackendClock,
        progress: @escaping @Sendable (SyncProgress) -> Void,
        deliver: @escaping @Sendable ([SyncEvent]) async throws -> Void
    ) async throws -> SyncSummary {
        let sent = backendClock.now()
        // What the log holds when the catch-up asks (a real server counts its total then).
        let events = state.update { state -> [SyncEvent] in
            state.calls += 1
            state.waiting += 1
            return state.events
        }
        if sendsServerTime { backendClock.record(serverTime: serverNow, sent: sent, received: backendClock.now()) }
        await state.wait { !$0.gateClosed }
        let failure = state.update { state -> SwitchboardError? in
            state.waiting -= 1
            defer { state.failNext = nil }
            return state.failNext
        }
        if let failure { throw failure }
        var position: Int
        if let saved = try await store.load(), let number = Int(saved.rawValue.dropFirst(4)) {
            position = number
        } else {
            let after: Date =
                switch start {
                case .checkpoint(let checkpoint)?: ISO8601Timestamp.date(from: checkpoint.rawValue) ?? .distantPast
                case .backendTime(let moment)?: backendClock.reading(at: moment).time
                case nil: .distantPast
                }
            position = events.firstIndex { $0.publishedAt > after } ?? events.count
        }
        let start = position
        while position < events.count {
            let batch = Array(events[position..<min(position + 2, events.count)])
            try await deliver(batch)
            position += batch.count
            try await store.save(SyncCheckpoint(rawValue: "seq:\(position)"))
            progress(SyncProgress(processed: position - start, total: events.count - start))
        }
        progress(SyncProgress(processed: position - start, total: events.count - start, isFinal: true))
        return SyncSummary(deliveredEvents: position - start, checkpoint: try await store.load(), streamFailure: nil, pullRequests: 0)
    }
}

@Suite("BackendNotifier catches up after gaps", .timeLimit(.minutes(1)))
struct BackendNotifierCatchUpTests {
    static let roleChannel = "vortex-app/user/u1/roleChanged"

    struct Harness {
        let notifier: BackendNotifier
        let transport: ScriptedTransport
        let session: SessionSource
        let log: ScriptedEventLog
        let store: InMemoryCheckpointStore
        let broker: RecordingEventBroker

        /// The scripted connection goes up again (`connecting`, then `connected`); in manual
        /// mode nothing is acknowledged.
        func reconnect() {
            transport.emit(.connectionStateChanged(.connecting(attempt: 1)))
            transport.emit(.connectionStateChanged(.connected))
        }

        /// Signs `user` in and waits until the transport holds the subscription `key`.
        func signIn(_ user: String = "u1", holding key: SubscriptionKey) async {
            session.update(.signedIn(userId: user, orgId: "o1") { _ in "t" })
            await transport.waitUntil { $0.subscriptions[key] != nil }
        }

        /// Publishes a role event: into the log, and live too unless `missed` (in the legacy
        /// shape, on the legacy subscription, when the transport is GraphQL).
        func publishRole(_ reason: String, missed: Bool = false) {
            let payload = #"{"eventType":"user/roleChanged","timestamp":"2026-11-22T10:00:00.000Z","reason":"\#(reason)"}"#
            log.publish(payload, on: BackendNotifierCatchUpTests.roleChannel)
            guard !missed else { return }
            switch transport.kind {
            case .appsync: transport.deliver(payload, on: SubscriptionKey(BackendNotifierCatchUpTests.roleChannel))
            default: transport.deliver(#"{"subscribeRoleChange":{"reason":"\#(reason)"}}"#, on: "graphql/subscribeRoleChange")
            }
        }
    }

    func run(
        _ kind: TransportKind = .appsync, behavior: ScriptedTransport.Behavior = .automatic,
        acknowledgesSubscriptions: Bool = true, settleClock: ManualClock? = nil,
        heldEnvelopeBytes: Int = BackendNotifier.CatchUp.defaultHeldEnvelopeBytes, metrics: TestMetrics? = nil,
        _ body: (Harness) async throws -> Void
    ) async throws {
        let transport = ScriptedTransport(kind: kind, behavior: behavior, acknowledgesSubscriptions: acknowledgesSubscriptions)
        let session = SessionSource()
        let log = ScriptedEventLog()
        let store = InMemoryCheckpointStore()
        let broker = RecordingEventBroker()
        let notifier = BackendNotifier(
            transport: transport, session: session,
            configuration: .init(catchUp: .init(
                source: log, store: store, heldEnvelopeBytes: heldEnvelopeBytes, subscriptionSettleTime: .seconds(1),
                clock: settleClock ?? ManualClock())),
            broker: broker.broker, metricsFactory: metrics)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await notifier.run() }
            try await body(Harness(notifier: notifier, transport: transport, session: session, log: log, store: store, broker: broker))
            await notifier.shutDown()
            try await group.waitForAll()
        }
    }

    func take(_ count: Int, from iterator: inout AsyncStream<RoleChangeOutput>.AsyncIterator) async -> [String?] {
        var values: [String?] = []
        while values.count < count, let value = await iterator.next() { values.append(value.reason) }
        return values
    }

    func connected(_ h: Harness) async {
        h.session.update(.signedIn(userId: "u1", orgId: "o1") { _ in "t" })
        await h.transport.waitUntil { $0.established.contains(SubscriptionKey(Self.roleChannel)) }
    }

    @Test("after a reconnect, the missed events are delivered once, in order, and the live ones are not repeated")
    func reconnect() async throws {
        try await run { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            await connected(h)
            h.publishRole("a")
            #expect(await take(1, from: &roles) == ["a"])
            h.transport.dropConnection()
            h.publishRole("b", missed: true)
            h.publishRole("c", missed: true)
            h.transport.dropConnection()
            h.publishRole("d")
            #expect(await take(3, from: &roles) == ["b", "c", "d"])
            #expect(h.log.calls >= 2, "the first connection and each reconnect catch up")
        }
    }

    @Test("live events that arrive while catching up wait for the missed ones, and one fetched both ways comes once")
    func heldWhileCatchingUp() async throws {
        try await run { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            await connected(h)
            h.publishRole("a")
            #expect(await take(1, from: &roles) == ["a"])
            h.log.close()
            h.publishRole("b", missed: true)
            h.transport.dropConnection()
            await h.log.waitUntilHeld()
            // "c" reaches the log before the catch-up reads it and arrives live while it is held;
            // "d" and "e" are published as it runs (in the log, and live).
            h.publishRole("c")
            h.log.open()
            h.publishRole("d")
            h.publishRole("e")
            let got = await take(4, from: &roles)
            #expect(got == ["b", "c", "d", "e"])
        }
    }

    @Test("held envelopes past their bytes are dropped, counted, and fetched again: every event still arrives once, in order")
    func heldEnvelopesBound() async throws {
        let metrics = TestMetrics()
        // Room for two held role envelopes, not three.
        let envelope = EventEnvelope(
            subscription: SubscriptionKey(Self.roleChannel),
            payload: Data(#"{"eventType":"user/roleChanged","timestamp":"2026-11-22T10:00:00.000Z","reason":"c"}"#.utf8),
            receivedAt: Date(), transport: .appsync)
        try await run(heldEnvelopeBytes: envelope.retainedBytes * 2 + 10, metrics: metrics) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            await connected(h)
            h.publishRole("a")
            #expect(await take(1, from: &roles) == ["a"])
            h.log.close()
            h.publishRole("b", missed: true)
            h.transport.dropConnection()
            await h.log.waitUntilHeld()  // the catch-up has read "a" and "b"
            // Live while it is held: "c" and "d" fill the room; "e" would pass it and is dropped
            // with them, and the notifier makes a new connection; "f" is held afresh.
            for reason in ["c", "d", "e", "f"] { h.publishRole(reason) }
            let evicted = try metrics.expectCounter("switchboard.notifier.catch_up.evicted", [("kind", "held_envelopes")])
            while evicted.totalValue == 0, !Task.isCancelled { try await Task.sleep(for: .milliseconds(1)) }
            h.log.open()
            #expect(await take(5, from: &roles) == ["b", "c", "d", "e", "f"])
            #expect(evicted.totalValue == 3)
            #expect(h.log.calls >= 3, "the start, the reconnect, and once more for what was dropped")
            h.publishRole("g")
            #expect(await take(1, from: &roles) == ["g"])
        }
    }

    @Test("legacy GraphQL: a live value equal to one missed in the gap is still delivered (no timestamps to tell them apart)")
    func legacyEqualValues() async throws {
        try await run(.graphql) { h in
            let legacyKey: SubscriptionKey = "graphql/subscribeRoleChange"
            /// Into the log as the backend records it (with the time of publishing: a missed one
            /// during the gap, a second ago), and live as the legacy API sends it (without).
            func publish(_ reason: String, missed: Bool = false) {
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                let published = Date().addingTimeInterval(missed ? -1 : 0)
                let timestamp = formatter.string(from: published)
                h.log.publish(#"{"eventType":"user/roleChanged","timestamp":"\#(timestamp)","reason":"\#(reason)"}"#,
                              on: Self.roleChannel, loggedAt: published)
                if !missed { h.transport.deliver(#"{"subscribeRoleChange":{"reason":"\#(reason)"}}"#, on: legacyKey) }
            }
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            h.session.update(.signedIn(userId: "u1", orgId: "o1") { _ in "t" })
            await h.transport.waitUntil { $0.established.contains(legacyKey) }
            // The first catch-up (of an empty log) has ended.
            while !h.broker.published(CatchUpProgressEvent.self).contains(where: \.isFinal) {
                try await Task.sleep(for: .milliseconds(2))
            }
            publish("a")
            #expect(await take(1, from: &roles) == ["a"])
            publish("x", missed: true)
            publish("y", missed: true)
            h.log.close()
            h.transport.dropConnection()
            await h.log.waitUntilHeld()  // the catch-up has read x and y from the log
            // A new "x" while it runs (held until it ends): the role is "x" again, and consumers
            // must see it after "y".
            publish("x")
            publish("z")
            h.log.open()
            let got = await take(4, from: &roles)
            #expect(got == ["x", "y", "x", "z"])
            // And after it.
            publish("y")
            #expect(await take(1, from: &roles) == ["y"])
        }
    }

    @Test(
        "a catch-up reads the log only once every subscription is acknowledged: an event published while one was on its way comes first, not after later live ones",
        arguments: [TransportKind.appsync, .graphql])
    func waitsForAcknowledgement(kind: TransportKind) async throws {
        try await run(kind, behavior: .manual) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            let key = kind == .appsync ? SubscriptionKey(Self.roleChannel) : SubscriptionKey("graphql/subscribeRoleChange")
            await h.signIn(holding: key)
            h.reconnect()
            // The notifier has asked for its first catch-up: it waits, or (were it not to wait
            // for the acknowledgement) it has read the log already.
            while await !h.notifier.catchUpIsWaiting, h.log.calls == 0, !Task.isCancelled {
                try await Task.sleep(for: .milliseconds(1))
            }
            // Published while the subscription is on its way: it does not arrive live.
            h.publishRole("a", missed: true)
            h.transport.acknowledge(key)
            h.publishRole("b")
            h.publishRole("c")
            // A second gap brings a catch-up that delivers whatever the first one missed.
            h.reconnect()
            h.transport.acknowledge(key)
            #expect(await take(3, from: &roles) == ["a", "b", "c"])
        }
    }

    @Test("a catch-up failing on the network is tried again after a pause, live events still held, and is not reported when a retry succeeds")
    func retriesTransientFailures() async throws {
        let clock = ManualClock()
        try await run(settleClock: clock) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            await connected(h)
            h.publishRole("a")
            #expect(await take(1, from: &roles) == ["a"])
            h.log.failNext(SwitchboardError(code: .network, message: "the log is unreachable"))
            h.publishRole("b", missed: true)
            h.transport.dropConnection()
            await clock.sleeper(dueBy: clock.now.advanced(by: .seconds(1)))  // the first retry's pause
            #expect(h.log.calls == 2, "the first connection's catch-up, then the failed one")
            h.publishRole("c")  // held until the missed b is delivered
            clock.advance(by: .seconds(1))
            #expect(await take(2, from: &roles) == ["b", "c"])
            #expect(h.log.calls == 3)
            #expect(!h.broker.published(SwitchboardErrorEvent.self).contains { $0.error.code == .network && $0.error.message.contains("unreachable") })
        }
    }

    @Test("each wait for acknowledgements is timed from when it began, even when an earlier one is still being timed")
    func acknowledgementTimeoutPerWait() async throws {
        let clock = ManualClock()
        try await run(behavior: .manual, settleClock: clock) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            let key = SubscriptionKey(Self.roleChannel)
            await h.signIn(holding: key)
            h.reconnect()
            await clock.sleepers(atLeast: 1)
            h.transport.acknowledge(key)  // the first wait ends at once; its timer still runs
            h.publishRole("a")
            #expect(await take(1, from: &roles) == ["a"])
            h.publishRole("b", missed: true)
            h.transport.emit(.connectionStateChanged(.connecting(attempt: 1)))
            h.transport.emit(.connectionStateChanged(.connected))  // never acknowledged
            await clock.sleepers(atLeast: 2)
            clock.advance(by: .seconds(10))
            #expect(await take(1, from: &roles) == ["b"])
        }
    }

    @Test("a change of user while a catch-up waits forgets the previous user's held events: none reaches the next user's consumers")
    func userChangeForgetsHeldEvents() async throws {
        try await run(.graphql, behavior: .manual) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            let key: SubscriptionKey = "graphql/subscribeRoleChange"  // the same for every user
            await h.signIn(holding: key)
            h.reconnect()
            // u1's event, held: the catch-up waits for the acknowledgement.
            h.transport.deliver(#"{"subscribeRoleChange":{"reason":"u1-only"}}"#, on: key)
            h.session.update(.signedIn(userId: "u2", orgId: "o1") { _ in "t" })
            await h.transport.waitUntil { $0.commands.contains(.connect(userId: "u2", orgId: "o1")) }
            h.reconnect()
            await h.transport.waitUntil { $0.subscriptions[key] != nil }
            h.transport.acknowledge(key)
            h.transport.deliver(#"{"subscribeRoleChange":{"reason":"u2"}}"#, on: key)
            // A gap: its catch-up releases whatever is held when it ends.
            h.reconnect()
            h.transport.acknowledge(key)
            h.transport.deliver(#"{"subscribeRoleChange":{"reason":"u2-later"}}"#, on: key)
            #expect(await take(2, from: &roles) == ["u2", "u2-later"])
        }
    }

    @Test("a subscription the server never answers holds the catch-up back only until the acknowledgement timeout")
    func acknowledgementTimeout() async throws {
        let clock = ManualClock()
        try await run(behavior: .manual, settleClock: clock) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            var errors = await h.notifier.errors().makeAsyncIterator()
            let key = SubscriptionKey(Self.roleChannel)
            await h.signIn(holding: key)
            h.publishRole("a", missed: true)
            h.reconnect()
            await clock.sleepers(atLeast: 1)  // the wait for the acknowledgement is being timed
            #expect(h.log.calls == 0, "no catch-up before the acknowledgement or the timeout")
            clock.advance(by: .seconds(10))
            #expect(await take(1, from: &roles) == ["a"])
            let error = await errors.next()
            #expect(error?.code == .timeout && error?.message.contains(Self.roleChannel) == true, "\(String(describing: error))")
        }
    }

    @Test("on a dialect without subscription acknowledgements, a catch-up after a connection waits the settle time before it reads the log")
    func settlesWithoutAcknowledgements() async throws {
        let clock = ManualClock()
        try await run(.graphql, acknowledgesSubscriptions: false, settleClock: clock) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            h.session.update(.signedIn(userId: "u1", orgId: "o1") { _ in "t" })
            await h.transport.waitUntil { $0.established.contains("graphql/subscribeRoleChange") }
            while clock.sleeperCount == 0, h.log.calls == 0, !Task.isCancelled { try await Task.sleep(for: .milliseconds(1)) }
            #expect(h.log.calls == 0, "the first catch-up waits for the subscriptions to settle")
            // Published while the server may still be setting the subscription up: not live.
            h.publishRole("a", missed: true)
            // Live, held while the catch-up waits, and read from the log too: delivered once, as
            // the log recorded it after this connection's attempt started (its payload's
            // timestamp is older: a producer stamps an event before the backend gets it).
            h.publishRole("b")
            clock.advance(by: .seconds(1))
            h.publishRole("c")
            #expect(await take(3, from: &roles) == ["a", "b", "c"])
            h.publishRole("d")
            #expect(await take(1, from: &roles) == ["d"], "b and c were not delivered twice")
            #expect(h.log.calls == 1)
        }
    }

    @Test("a gap that opens while a catch-up runs keeps the live events held until the next catch-up filled it")
    func gapDuringCatchUp() async throws {
        try await run { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            await connected(h)
            h.publishRole("a")
            #expect(await take(1, from: &roles) == ["a"])
            h.log.close()
            h.publishRole("b", missed: true)
            h.transport.dropConnection()
            await h.log.waitUntilHeld()  // the first catch-up has seen a and b only
            h.publishRole("c")
            h.publishRole("d", missed: true)
            h.transport.dropConnection()
            // The notifier has seen the second gap (while the first catch-up still waits).
            while h.broker.published(DeliveryGapEvent.self).count < 2 { try await Task.sleep(for: .milliseconds(2)) }
            h.publishRole("e")
            h.log.open()
            let got = await take(4, from: &roles)
            #expect(got == ["b", "c", "d", "e"])
        }
    }

    @Test("a failed catch-up is reported, releases the held events, and the next gap tries again from the same checkpoint")
    func failure() async throws {
        try await run { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            var errors = await h.notifier.errors().makeAsyncIterator()
            await connected(h)
            h.publishRole("a")
            #expect(await take(1, from: &roles) == ["a"])
            h.log.failNext(SwitchboardError(code: .checkpointExpired, message: "the log no longer reaches back"))
            h.publishRole("b", missed: true)
            h.transport.dropConnection()
            h.publishRole("c")
            let afterFailure = await take(1, from: &roles)
            #expect(afterFailure == ["c"])
            var codes: [SwitchboardError.Code] = []
            while let error = await errors.next() {
                codes.append(error.code)
                if error.code == .checkpointExpired { break }
            }
            #expect(codes.last == .checkpointExpired)
            h.transport.dropConnection()
            #expect(await take(1, from: &roles) == ["b"], "the missed event comes with the next catch-up; c is not repeated")
            h.publishRole("d")
            #expect(await take(1, from: &roles) == ["d"])
        }
    }

    @Test("events on other users' channels in the log are not delivered")
    func otherUsers() async throws {
        try await run { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            await connected(h)
            h.log.publish(#"{"eventType":"user/roleChanged","timestamp":"2026-11-22T10:00:00.000Z","reason":"not mine"}"#,
                          on: "vortex-app/user/u2/roleChanged")
            h.publishRole("b", missed: true)
            h.transport.dropConnection()
            #expect(await take(1, from: &roles) == ["b"])
        }
    }

    @Test("gaps and progress are published on the broker")
    func systemEvents() async throws {
        try await run { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            await connected(h)
            h.publishRole("a", missed: true)
            h.publishRole("b", missed: true)
            h.publishRole("c", missed: true)
            h.transport.dropConnection()
            #expect(await take(3, from: &roles) == ["a", "b", "c"])
            while h.broker.published(DeliveryGapEvent.self).isEmpty { try await Task.sleep(for: .milliseconds(2)) }
            #expect(h.broker.published(DeliveryGapEvent.self) == [DeliveryGapEvent(reason: "reconnected", transport: .appsync)])
            let final = CatchUpProgressEvent(processed: 3, total: 3, isFinal: true)
            while !h.broker.published(CatchUpProgressEvent.self).contains(final) { try await Task.sleep(for: .milliseconds(2)) }
            // The updates of the catch-up that fetched the three: after the previous final one,
            // up to its own final one, never going back.
            let all = h.broker.published(CatchUpProgressEvent.self)
            let end = try #require(all.firstIndex(of: final))
            let start = all[..<end].lastIndex { $0.isFinal }.map { $0 + 1 } ?? 0
            let updates = all[start...end].map(\.processed)
            #expect(updates == updates.sorted() && updates.last == 3, "\(all)")
        }
    }
}
