import Switchboard
import Testing

private typealias Tick = BrokerFixtures.Tick
private typealias Collector<Element: Sendable> = BrokerFixtures.Collector<Element>
private typealias Box<Value: Sendable> = BrokerFixtures.Box<Value>

@Suite("EventBroker subscription lifetime")
struct BrokerSubscriptionLifetimeTests {
    @Test("cancel() stops delivery at once, is idempotent and updates isActive and counts")
    func cancelStopsDelivery() {
        let broker = EventBroker()
        let received = Collector<Int>()
        let token = broker.subscribe(Tick.self) { received.append($0.event.value) }
        #expect(token.isActive)
        #expect(broker.metricsReport().subscriberCounts[Tick.eventName] == 1)
        broker.publish(Tick(value: 1))
        token.cancel()
        token.cancel()
        broker.publish(Tick(value: 2))
        #expect(received.values == [1])
        #expect(!token.isActive)
        #expect(broker.metricsReport().subscriberCount == 0)
    }

    @Test("Releasing the token cancels the subscription")
    func deinitCancels() {
        let broker = EventBroker()
        let received = Collector<Int>()
        do {
            let token = broker.subscribe(Tick.self) { received.append($0.event.value) }
            withExtendedLifetime(token) {
                broker.publish(Tick(value: 1))
            }
        }
        broker.publish(Tick(value: 2))
        #expect(received.values == [1])
        #expect(broker.metricsReport().subscriberCount == 0)
    }

    @Test("A subscriber cancelled by an earlier handler does not get the event being dispatched")
    func cancelDuringDispatch() {
        let broker = EventBroker()
        let received = Collector<String>()
        let victim = Box<EventSubscription?>(nil)
        let first = broker.subscribe(category: .system, priority: .critical) { _ in
            received.append("first")
            victim.value?.cancel()
        }
        victim.value = broker.subscribe(Tick.self, priority: .low) { _ in received.append("victim") }
        broker.publish(Tick(value: 1))
        #expect(received.values == ["first"])
        #expect(victim.value?.isActive == false)
        first.cancel()
    }

    @Test("A handler can cancel its own subscription")
    func cancelSelf() {
        let broker = EventBroker()
        let received = Collector<Int>()
        let own = Box<EventSubscription?>(nil)
        own.value = broker.subscribe(Tick.self) { record in
            received.append(record.event.value)
            own.value?.cancel()
        }
        broker.publish(Tick(value: 1))
        broker.publish(Tick(value: 2))
        #expect(received.values == [1])
    }
}
