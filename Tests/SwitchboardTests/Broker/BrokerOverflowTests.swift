import Foundation
import MetricsTestKit
import Switchboard
import SwitchboardCore
import Testing

private typealias Tick = BrokerFixtures.Tick

@Suite("EventBroker stream overflow")
struct BrokerOverflowTests {
    /// Collects every overflow report the broker publishes.
    private final class Reports: Sendable {
        let events = LockedValue<[ConsumerOverflowEvent]>([])

        var all: [ConsumerOverflowEvent] { events.withLock { $0 } }

        static func observe(_ broker: EventBroker) -> (Reports, EventSubscription) {
            let reports = Reports()
            let subscription = broker.subscribe(ConsumerOverflowEvent.self) { record in
                reports.events.withLock { $0.append(record.event) }
            }
            return (reports, subscription)
        }
    }

    @Test("streams are bounded by default: the newest 10,000 are kept and the rest counted")
    func boundedByDefault() async {
        #expect(EventStreamBufferingPolicy.standard == .bufferingNewest(10_000))
        #expect(EventStreamBufferingPolicy.standard.limit == 10_000)
        #expect(EventStreamBufferingPolicy.unbounded.limit == nil)
        let broker = EventBroker()
        let stream = broker.events(of: Tick.self)
        for value in 1...10_003 { broker.publish(Tick(value: value)) }
        #expect(broker.metricsReport().droppedCounts == [Tick.eventName: 3])
        #expect(await BrokerFixtures.take(1, from: stream).map { $0.event.value } == [4])
    }

    @Test("an overflow is reported once when it begins and once, with the total, when the consumer caught up")
    func overflowEpisode() async {
        let broker = EventBroker()
        let (reports, subscription) = Reports.observe(broker)
        defer { subscription.cancel() }
        let policy = EventStreamBufferingPolicy.bufferingNewest(4)
        let stream = broker.events(of: Tick.self, bufferingPolicy: policy)
        var iterator = stream.makeAsyncIterator()

        for value in 1...10 { broker.publish(Tick(value: value)) }
        #expect(reports.all == [ConsumerOverflowEvent(stream: Tick.eventName, policy: policy, phase: .began, dropped: 1)])

        // Taking one frees one slot: not yet caught up, so the next drop is part of the same episode.
        _ = await iterator.next()
        broker.publish(Tick(value: 11))
        broker.publish(Tick(value: 12))
        #expect(reports.all.count == 1)

        var kept: [Int] = []
        for _ in 0..<4 { if let record = await iterator.next() { kept.append(record.event.value) } }
        #expect(kept == [9, 10, 11, 12])
        broker.publish(Tick(value: 13))
        #expect(reports.all.last == ConsumerOverflowEvent(stream: Tick.eventName, policy: policy, phase: .ended, dropped: 7))
        #expect(broker.metricsReport().droppedCounts == [Tick.eventName: 7])

        // A new overflow is a new episode.
        for value in 14...20 { broker.publish(Tick(value: value)) }
        #expect(reports.all.map(\.phase) == [.began, .ended, .began])
    }

    @Test("a category stream names its category; an unbounded stream never reports")
    func categoryAndUnbounded() {
        let broker = EventBroker()
        let (reports, subscription) = Reports.observe(broker)
        defer { subscription.cancel() }
        let bounded = broker.events(in: .system, bufferingPolicy: .bufferingOldest(1))
        let unbounded = broker.events(of: Tick.self, bufferingPolicy: .unbounded)
        for value in 1...3 { broker.publish(Tick(value: value)) }
        broker.publish(ConnectionStateChangedEvent(state: .idle, transport: .appsync))
        broker.publish(ConnectionStateChangedEvent(state: .idle, transport: .appsync))
        // The report of the system stream's overflow is itself a system event, dropped by the same
        // full stream without starting another episode.
        #expect(reports.all.map(\.stream) == ["category:system"])
        #expect(reports.all.first?.policy == .bufferingOldest(1))
        withExtendedLifetime((bounded, unbounded)) {}
    }
}
