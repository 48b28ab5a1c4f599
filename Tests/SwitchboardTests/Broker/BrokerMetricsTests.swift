import Foundation
import Metrics
import MetricsTestKit
import Switchboard
import SwitchboardCore
import Testing

private typealias PresenceChanged = BrokerFixtures.PresenceChanged
private typealias RoleChanged = BrokerFixtures.RoleChanged
private typealias Tick = BrokerFixtures.Tick
private typealias HandlerFailure = BrokerFixtures.HandlerFailure

@Suite("EventBroker metrics")
struct BrokerMetricsTests {
    @Test("swift-metrics: published, dispatch, dead_letters and subscribers")
    func swiftMetrics() throws {
        let metrics = TestMetrics()
        let broker = EventBroker(metricsFactory: metrics)
        let failing = broker.subscribe(RoleChanged.self) { _ in throw HandlerFailure(reason: "no") }
        let gauge = try metrics.expectGauge("switchboard.broker.subscribers")
        #expect(gauge.lastValue == 1)
        let second = broker.subscribe(category: .system) { _ in }
        #expect(gauge.lastValue == 2)

        for value in 1...3 { broker.publish(Tick(value: value)) }
        broker.publish(RoleChanged(role: "admin"))
        broker.reportUndeliverable(payload: Data(), eventName: "test.raw", error: SwitchboardError(code: .decodingFailed, message: "bad"))

        let ticks = try metrics.expectCounter("switchboard.broker.published", [("event", Tick.eventName)])
        #expect(ticks.totalValue == 3)
        let roles = try metrics.expectCounter("switchboard.broker.published", [("event", RoleChanged.eventName)])
        #expect(roles.totalValue == 1)
        let dispatch = try metrics.expectTimer("switchboard.broker.dispatch", [("event", Tick.eventName)])
        #expect(dispatch.values.count == 3)
        #expect(dispatch.values.allSatisfy { $0 >= 0 })
        #expect(metrics.counterTotal(label: "switchboard.broker.dead_letters") == 2)
        let raw = try metrics.expectCounter("switchboard.broker.dead_letters", [("event", "test.raw")])
        #expect(raw.totalValue == 1)

        failing.cancel()
        second.cancel()
        #expect(gauge.lastValue == 0)
    }

    @Test("The metrics prefix comes from the configuration")
    func customPrefix() throws {
        let metrics = TestMetrics()
        let broker = EventBroker(configuration: .init(metricsPrefix: "app.events"), metricsFactory: metrics)
        broker.publish(Tick(value: 1))
        #expect(try metrics.expectCounter("app.events.published", [("event", Tick.eventName)]).totalValue == 1)
        #expect(metrics.counters(label: "switchboard.broker.published").isEmpty)
    }

    @Test("metricsReport: counts, dispatch times, subscribers, dead letters")
    func report() {
        let broker = EventBroker(metricsFactory: TestMetrics())
        let empty = broker.metricsReport()
        #expect(empty.dispatchCount == 0)
        #expect(empty.meanDispatchTime == .zero)

        let tokens = [
            broker.subscribe(Tick.self) { _ in },
            broker.subscribe(Tick.self, priority: .low) { _ in },
            broker.subscribe(PresenceChanged.self) { _ in throw HandlerFailure(reason: "x") },
            broker.subscribe(category: .device) { _ in },
        ]
        for value in 1...4 { broker.publish(Tick(value: value)) }
        broker.publish(PresenceChanged(deviceID: "cam"))

        let report = broker.metricsReport()
        #expect(report.publishedCounts == [Tick.eventName: 4, PresenceChanged.eventName: 1])
        #expect(report.publishedCount == 5)
        #expect(report.dispatchCount == 5)
        #expect(report.subscriberCounts == [Tick.eventName: 2, PresenceChanged.eventName: 1])
        #expect(report.categorySubscriberCounts == [.device: 1])
        #expect(report.subscriberCount == 4)
        #expect(report.deadLetterCount == 1)
        #expect(report.droppedCount == 0)
        #expect(report.meanDispatchTime == report.totalDispatchTime / 5)
        #expect(report.maxDispatchTime <= report.totalDispatchTime)
        #expect(report.maxDispatchTime >= report.meanDispatchTime)
        withExtendedLifetime(tokens) {}
    }
}
