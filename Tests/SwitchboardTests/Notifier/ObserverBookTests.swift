import CoreMetrics
import Foundation
import Logging
import MetricsTestKit
import SwitchboardCore
import SwitchboardSync
import Testing

@testable import Switchboard

@Suite("Observer book")
struct ObserverBookTests {
    func reporter(_ metrics: TestMetrics) -> OverflowReporter {
        OverflowReporter(
            monitor: OverflowMonitor(stream: "connectionStates", policy: .standard),
            dropped: Counter(label: "dropped", factory: metrics), broker: EventBroker(),
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    @Test("an observer gets the current state, then every one told; its end is reported; finishing ends its stream")
    func states() async {
        var book = ObserverBook()
        let ended = LockedValue<[Int]>([])
        let stream = book.observeStates(
            current: .idle, policy: .standard, open: true, overflow: reporter(TestMetrics()),
            ended: { id in ended.withLock { $0.append(id) } })
        book.yield(ConnectionState.connecting(attempt: 1))
        book.yield(SwitchboardError(code: .timeout, message: "not for state observers"))
        book.finish()
        var seen: [ConnectionState] = []
        for await state in stream { seen.append(state) }
        #expect(seen == [.idle, .connecting(attempt: 1)])
        #expect(ended.withLock { $0 } == [0])
    }

    @Test("a closed book finishes new streams at once, after the current state, and never asks for a reporter")
    func closed() async {
        var book = ObserverBook()
        let states = book.observeStates(
            current: .shutDown, policy: .standard, open: false, overflow: { () -> OverflowReporter in
                Issue.record("a reporter was made for a finished stream")
                return reporter(TestMetrics())
            }(), ended: { _ in })
        var seen: [ConnectionState] = []
        for await state in states { seen.append(state) }
        #expect(seen == [.shutDown])
        let errors = book.observeErrors(policy: .standard, open: false, overflow: reporter(TestMetrics()), ended: { _ in })
        for await _ in errors { Issue.record("a finished error stream yielded") }
        let statuses = book.observeStatuses(current: [:], open: false, ended: { _ in })
        var dictionaries = 0
        for await _ in statuses { dictionaries += 1 }
        #expect(dictionaries == 1)
    }

    @Test("errors reach error observers; a removed observer hears nothing more")
    func errors() async {
        var book = ObserverBook()
        let first = book.observeErrors(policy: .standard, open: true, overflow: reporter(TestMetrics()), ended: { _ in })
        let second = book.observeErrors(policy: .standard, open: true, overflow: reporter(TestMetrics()), ended: { _ in })
        book.yield(SwitchboardError(code: .timeout, message: "one"))
        book.remove(1)
        book.yield(SwitchboardError(code: .timeout, message: "two"))
        book.finish()
        var seen: [String] = []
        for await error in first { seen.append(error.message) }
        #expect(seen == ["one", "two"])
        // The removed observer's consumer went away; its stream is left as it was.
        var removed = second.makeAsyncIterator()
        #expect(await removed.next()?.message == "one")
    }
}

@Suite("Catch-up control")
struct CatchUpControlTests {
    @Test("off: nothing is held, every value is admitted, nothing is counted or ordered")
    func off() {
        var control = CatchUpControl(setting: nil, metricsFactory: TestMetrics())
        control.start(at: .zero, backendTime: BackendTimeEstimate(deviceTime: Date(timeIntervalSince1970: 0), at: .zero))
        #expect(control.machine == nil)
        let envelope = EventEnvelope(subscription: "s", payload: Data("{}".utf8), receivedAt: Date(timeIntervalSince1970: 0), transport: .appsync)
        let held = control.hold(envelope, logger: Logger(label: "test"), reconnect: { Issue.record("reconnect with catch-up off") })
        #expect(!held)
        let readiness = CatchUpMachine.Readiness(connected: true, settled: true, acknowledgesSubscriptions: true)
        let (admitted, actions) = control.admit(
            { Issue.record("fingerprinted with catch-up off"); return Fingerprint(key: FingerprintKey(stream: "role", fields: AnyHashable(1)), timestamp: nil) },
            stream: "role", route: .live, now: { .zero }, readiness: { readiness })
        #expect(admitted)
        #expect(actions.isEmpty)
        #expect(!control.isWaiting)
        #expect(control.fetchedCounts.delivered == 0 && control.fetchedCounts.skipped == 0)
    }

    @Test("the fetched events of other users or namespaces are left out")
    func envelopes() {
        let at = Date(timeIntervalSince1970: 10)
        let events = [
            SyncEvent(id: "1", channel: "ns/user/u1/role", event: #"{"eventType":"user/roleChanged"}"#, publishedAt: at),
            SyncEvent(id: "2", channel: "ns/user/u2/role", event: "{}", publishedAt: at),
            SyncEvent(id: "3", channel: "other/user/u1/role", event: "{}", publishedAt: at),
        ]
        let envelopes = CatchUpControl.envelopes(events, userId: "u1", namespace: "ns", now: at)
        #expect(envelopes.map { $0.eventId } == ["1"])
        #expect(envelopes.first?.envelope.subscription == "catch-up")
        #expect(envelopes.first?.loggedAt == at)
    }
}
