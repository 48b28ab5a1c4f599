import Foundation
import Switchboard
import SwitchboardCore
import Testing

private typealias PresenceChanged = BrokerFixtures.PresenceChanged
private typealias Tick = BrokerFixtures.Tick
private typealias HandlerFailure = BrokerFixtures.HandlerFailure
private typealias Collector<Element: Sendable> = BrokerFixtures.Collector<Element>

@Suite("EventBroker dead letters")
struct BrokerDeadLetterTests {
    @Test("A throwing handler produces a dead letter; the other subscribers still get the event")
    func throwingHandler() throws {
        let broker = EventBroker()
        let others = Collector<String>()
        let tokens = [
            broker.subscribe(PresenceChanged.self, priority: .high) { _ in others.append("before") },
            broker.subscribe(PresenceChanged.self) { _ in throw HandlerFailure(reason: "boom") },
            broker.subscribe(category: .device, priority: .low) { _ in others.append("after") },
        ]
        let metadata = EventMetadata(eventId: "evt-7")
        broker.publish(PresenceChanged(deviceID: "cam-1"), metadata: metadata)
        #expect(others.values == ["before", "after"])
        let letter = try #require(broker.deadLetters.first)
        #expect(broker.deadLetters.count == 1)
        #expect(letter.eventName == PresenceChanged.eventName)
        #expect(letter.metadata == metadata)
        #expect((letter.event as? PresenceChanged) == PresenceChanged(deviceID: "cam-1"))
        #expect(letter.payload == nil)
        #expect((letter.error as? HandlerFailure) == HandlerFailure(reason: "boom"))
        withExtendedLifetime(tokens) {}
    }

    @Test("reportUndeliverable records the payload and the decoding error")
    func undeliverable() throws {
        let broker = EventBroker()
        let payload = Data(#"{"deviceId":42}"#.utf8)
        let error = SwitchboardError(code: .decodingFailed, message: "deviceId is not a string")
        broker.reportUndeliverable(
            payload: payload,
            eventName: PresenceChanged.eventName,
            error: error,
            metadata: EventMetadata(eventId: "raw-1", stream: "devicePresence")
        )
        let letter = try #require(broker.deadLetters.first)
        #expect(letter.payload == payload)
        #expect(letter.event == nil)
        #expect(letter.eventName == PresenceChanged.eventName)
        #expect(letter.metadata.eventId == "raw-1")
        #expect((letter.error as? SwitchboardError)?.code == .decodingFailed)
        #expect(broker.metricsReport().deadLetterCount == 1)
    }

    @Test("The dead-letter queue keeps the newest deadLetterCapacity letters")
    func deadLettersAreBounded() {
        let broker = EventBroker(configuration: .init(deadLetterCapacity: 3))
        let token = broker.subscribe(Tick.self) { record in
            throw HandlerFailure(reason: "tick \(record.event.value)")
        }
        for value in 1...5 { broker.publish(Tick(value: value)) }
        let kept = broker.deadLetters.compactMap { ($0.event as? Tick)?.value }
        #expect(kept == [3, 4, 5])
        #expect(broker.metricsReport().deadLetterCount == 5)
        token.cancel()
    }

    @Test("A handler that throws during replay produces a dead letter")
    func throwingDuringReplay() {
        let broker = EventBroker()
        broker.publish(Tick(value: 1))
        let token = broker.subscribe(Tick.self, replay: 1) { _ in throw HandlerFailure(reason: "replay") }
        #expect(broker.deadLetters.map { $0.eventName } == [Tick.eventName])
        token.cancel()
    }
}
