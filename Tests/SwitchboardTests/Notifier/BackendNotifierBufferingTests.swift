import Foundation
import MetricsTestKit
import Switchboard
import SwitchboardCore
import SwitchboardTesting
import Testing

@Suite("BackendNotifier consumer buffering", .timeLimit(.minutes(1)))
struct BackendNotifierBufferingTests {
    @Test("a slow consumer loses the oldest values beyond its buffer; the loss is counted and reported")
    func slowConsumer() async throws {
        let metrics = TestMetrics()
        let policy = EventStreamBufferingPolicy.bufferingNewest(3)
        try await NotifierHarness.run(
            .appsync, configuration: BackendNotifier.Configuration(bufferingPolicy: policy), metrics: metrics
        ) { h in
            let reports = h.broker.events(of: ConsumerOverflowEvent.self)
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            let channel = NotifierHarness.channel("roleChanged")
            await h.waitForSubscriptions([channel])

            for index in 1...10 { h.transport.deliver(AppSyncPayload.role("r\(index)"), on: channel) }
            var reportIterator = reports.makeAsyncIterator()
            let began = await reportIterator.next()?.event
            #expect(began == ConsumerOverflowEvent(stream: "role", policy: policy, phase: .began, dropped: 1))
            await waitUntil { counter(metrics, stream: "role") == 7 }

            #expect(await take(3, from: &roles).map(\.reason) == ["r8", "r9", "r10"])
            h.transport.deliver(AppSyncPayload.role("r11"), on: channel)
            let ended = await reportIterator.next()?.event
            #expect(ended == ConsumerOverflowEvent(stream: "role", policy: policy, phase: .ended, dropped: 7))
            #expect(await take(1, from: &roles).map(\.reason) == ["r11"])
            #expect(counter(metrics, stream: "role") == 7)
        }
    }

    @Test("connection states and errors are bounded by the same policy")
    func observersAreBounded() async throws {
        let metrics = TestMetrics()
        let policy = EventStreamBufferingPolicy.bufferingNewest(1)
        try await NotifierHarness.run(
            .appsync, configuration: BackendNotifier.Configuration(bufferingPolicy: policy), metrics: metrics
        ) { h in
            let reports = h.broker.events(of: ConsumerOverflowEvent.self)
            var states = await h.notifier.connectionStates().makeAsyncIterator()
            let errors = await h.notifier.errors()
            let roles = await h.notifier.roleValues()
            h.session.update(NotifierHarness.signedIn())
            let channel = NotifierHarness.channel("roleChanged")
            await h.waitForSubscriptions([channel])
            // Nobody reads the errors: the second undecodable payload overflows their buffer.
            h.transport.deliver("not json", on: channel)
            h.transport.deliver("not json either", on: channel)

            var seen: Set<String> = []
            for await report in reports where report.event.phase == .began {
                seen.insert(report.event.stream)
                if seen == ["connectionStates", "errors"] { break }
            }
            #expect(seen == ["connectionStates", "errors"])
            #expect(counter(metrics, stream: "errors") == 1)
            #expect(counter(metrics, stream: "connectionStates") >= 1)
            // The newest state is kept.
            #expect(await states.next() == .connected)
            withExtendedLifetime((errors, roles)) {}
        }
    }

    @Test("the default configuration is bounded")
    func defaultIsBounded() {
        #expect(BackendNotifier.Configuration().bufferingPolicy == .standard)
    }

    private func counter(_ metrics: TestMetrics, stream: String) -> Int64 {
        (try? metrics.expectCounter("switchboard.notifier.consumer_dropped", [("stream", stream)]))?.totalValue ?? 0
    }

    private func waitUntil(_ condition: () -> Bool) async {
        while !condition(), !Task.isCancelled { try? await Task.sleep(for: .milliseconds(2)) }
    }
}
