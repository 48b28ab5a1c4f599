import MetricsTestKit
import Switchboard
import Testing

private typealias PresenceChanged = BrokerFixtures.PresenceChanged
private typealias RecordingStarted = BrokerFixtures.RecordingStarted
private typealias RoleChanged = BrokerFixtures.RoleChanged
private typealias Tick = BrokerFixtures.Tick

@Suite("EventBroker streams")
struct BrokerStreamTests {
    @Test("A stream receives its events in publish order")
    func receivesInOrder() async {
        let broker = EventBroker()
        let stream = broker.events(of: Tick.self)
        for value in 1...5 { broker.publish(Tick(value: value)) }
        broker.publish(RoleChanged(role: "ignored"))
        let received = await BrokerFixtures.take(5, from: stream)
        #expect(received.map { $0.event.value } == [1, 2, 3, 4, 5])
    }

    @Test("Each call returns an independent stream that sees every event")
    func independentStreams() async {
        let broker = EventBroker()
        let first = broker.events(of: Tick.self)
        let second = broker.events(of: Tick.self, where: { $0.event.value.isMultiple(of: 2) })
        let category = broker.events(in: .system)
        #expect(broker.metricsReport().subscriberCounts[Tick.eventName] == 2)
        #expect(broker.metricsReport().categorySubscriberCounts[.system] == 1)
        for value in 1...4 { broker.publish(Tick(value: value)) }
        #expect(await BrokerFixtures.take(4, from: first).map { $0.event.value } == [1, 2, 3, 4])
        #expect(await BrokerFixtures.take(2, from: second).map { $0.event.value } == [2, 4])
        #expect(await BrokerFixtures.take(4, from: category).compactMap { $0.event(as: Tick.self)?.value } == [1, 2, 3, 4])
    }

    @Test("Releasing the stream and its iterator removes the subscriber")
    func releaseRemovesSubscriber() async {
        let broker = EventBroker()
        do {
            let stream = broker.events(of: Tick.self)
            #expect(broker.metricsReport().subscriberCounts[Tick.eventName] == 1)
            broker.publish(Tick(value: 1))
            #expect(await BrokerFixtures.take(1, from: stream).map { $0.event.value } == [1])
        }
        // The stream's termination hook ran synchronously when the last reference went away.
        #expect(broker.metricsReport().subscriberCount == 0)
        broker.publish(Tick(value: 2))
        #expect(broker.metricsReport().droppedCount == 0)
    }

    @Test("Cancelling the consuming task removes the subscriber")
    func cancellationRemovesSubscriber() async {
        let broker = EventBroker()
        let stream = broker.events(in: .system)
        #expect(broker.metricsReport().subscriberCount == 1)
        let consumed = await withTaskGroup(of: [Int].self) { group in
            group.addTask {
                var values: [Int] = []
                // Ends only after the termination hook has run (it runs before the final nil).
                for await record in stream {
                    values.append(record.event(as: Tick.self)?.value ?? -1)
                }
                return values
            }
            broker.publish(Tick(value: 1))
            group.cancelAll()
            return await group.next() ?? []
        }
        // The consumer may or may not have taken the event before it saw the cancellation.
        #expect(consumed == [1] || consumed.isEmpty)
        #expect(broker.metricsReport().categorySubscriberCounts[.system] == nil)
    }

    @Test("bufferingNewest keeps the newest events and counts the dropped ones")
    func bufferingNewest() async throws {
        let metrics = TestMetrics()
        let broker = EventBroker(metricsFactory: metrics)
        let stream = broker.events(of: Tick.self, bufferingPolicy: .bufferingNewest(2))
        for value in 1...5 { broker.publish(Tick(value: value)) }
        let report = broker.metricsReport()
        #expect(report.droppedCounts == [Tick.eventName: 3])
        #expect(report.droppedCount == 3)
        let counter = try metrics.expectCounter("switchboard.broker.dropped", [("event", Tick.eventName)])
        #expect(counter.totalValue == 3)
        #expect(await BrokerFixtures.take(2, from: stream).map { $0.event.value } == [4, 5])
    }

    @Test("bufferingOldest keeps the oldest events and counts the dropped ones per type")
    func bufferingOldest() async {
        let broker = EventBroker()
        let stream = broker.events(in: .device, bufferingPolicy: .bufferingOldest(1))
        broker.publish(PresenceChanged(deviceID: "a"))
        broker.publish(RecordingStarted(deviceID: "b"))
        broker.publish(PresenceChanged(deviceID: "c"))
        broker.publish(RecordingStarted(deviceID: "d"))
        #expect(broker.metricsReport().droppedCounts == [PresenceChanged.eventName: 1, RecordingStarted.eventName: 2])
        let kept = await BrokerFixtures.take(1, from: stream)
        #expect(kept.first?.event(as: PresenceChanged.self)?.deviceID == "a")
    }
}
