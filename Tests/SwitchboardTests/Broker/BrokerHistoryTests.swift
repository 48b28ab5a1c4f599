import Switchboard
import Testing

private typealias PresenceChanged = BrokerFixtures.PresenceChanged
private typealias RecordingStarted = BrokerFixtures.RecordingStarted
private typealias RoleChanged = BrokerFixtures.RoleChanged
private typealias Tick = BrokerFixtures.Tick
private typealias Collector<Element: Sendable> = BrokerFixtures.Collector<Element>

@Suite("EventBroker history and replay")
struct BrokerHistoryTests {
    @Test("History keeps the last historyCapacity records, oldest first")
    func historyIsBounded() {
        let broker = EventBroker(configuration: .init(historyCapacity: 10))
        for value in 0..<15 { broker.publish(Tick(value: value)) }
        let values = broker.history.compactMap { $0.event(as: Tick.self)?.value }
        #expect(values == Array(5..<15))
    }

    @Test("A history capacity of zero keeps nothing and replays nothing")
    func zeroHistory() {
        let broker = EventBroker(configuration: .init(historyCapacity: 0))
        broker.publish(Tick(value: 1))
        let received = Collector<Int>()
        let token = broker.subscribe(Tick.self, replay: 5) { received.append($0.event.value) }
        #expect(broker.history.isEmpty)
        #expect(received.values.isEmpty)
        token.cancel()
    }

    @Test("replay delivers the last n matching records in publish order, then live events")
    func replayThenLive() {
        let broker = EventBroker()
        for value in 1...9 { broker.publish(Tick(value: value)) }
        broker.publish(RoleChanged(role: "not a tick"))
        let received = Collector<Int>()
        let token = broker.subscribe(Tick.self, replay: 3, where: { $0.event.value.isMultiple(of: 2) }) {
            received.append($0.event.value)
        }
        #expect(received.values == [4, 6, 8])
        for value in 10...12 { broker.publish(Tick(value: value)) }
        #expect(received.values == [4, 6, 8, 10, 12])
        token.cancel()
    }

    @Test("replay larger than the history delivers all matching records")
    func replayMoreThanAvailable() {
        let broker = EventBroker()
        broker.publish(PresenceChanged(deviceID: "a"))
        broker.publish(RoleChanged(role: "admin"))
        broker.publish(RecordingStarted(deviceID: "b"))
        let received = Collector<String>()
        let token = broker.subscribe(category: .device, replay: 50) { received.append($0.eventName) }
        #expect(received.values == [PresenceChanged.eventName, RecordingStarted.eventName])
        token.cancel()
    }

    @Test("Events published by a handler during replay come after the replay, exactly once")
    func publishDuringReplay() {
        let broker = EventBroker()
        for value in 1...3 { broker.publish(Tick(value: value)) }
        let received = Collector<Int>()
        let token = broker.subscribe(Tick.self, replay: 3) { record in
            received.append(record.event.value)
            if record.event.value == 1 {
                broker.publish(Tick(value: 100))
            }
        }
        #expect(received.values == [1, 2, 3, 100])
        broker.publish(Tick(value: 4))
        #expect(received.values == [1, 2, 3, 100, 4])
        token.cancel()
    }

    @Test("Replay into a stream, then live events, with no gap or duplicate")
    func streamReplay() async {
        let broker = EventBroker()
        for value in 1...5 { broker.publish(Tick(value: value)) }
        let stream = broker.events(of: Tick.self, replay: 2)
        broker.publish(Tick(value: 6))
        #expect(await BrokerFixtures.take(3, from: stream).map { $0.event.value } == [4, 5, 6])
    }

    @Test(
        "Subscribing with replay while another task publishes loses and repeats nothing",
        .timeLimit(.minutes(1))
    )
    func replayRacesWithPublisher() async {
        let count = 2_000
        let broker = EventBroker(configuration: .init(historyCapacity: count))
        let received = Collector<Int>()
        let token = await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for value in 0..<count { broker.publish(Tick(value: value)) }
            }
            let token = broker.subscribe(Tick.self, replay: count) { received.append($0.event.value) }
            await group.waitForAll()
            return token
        }
        // Whatever the interleaving, replay plus live must be exactly the published sequence.
        #expect(received.values == Array(0..<count))
        token.cancel()
    }
}
