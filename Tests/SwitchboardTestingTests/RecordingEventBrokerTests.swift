import Switchboard
import SwitchboardCore
import SwitchboardTesting
import Testing

private struct DoorOpened: SwitchboardEvent, Equatable {
    static let category = EventCategory.device
    static let eventName = "test.door.opened"
    var door: String
}

private struct PlanChanged: SwitchboardEvent, Equatable {
    static let category = EventCategory.organization
    static let eventName = "test.org.plan"
    var plan: String
}

private final class Seen: Sendable {
    private let storage = LockedValue<[String]>([])
    func append(_ value: String) { storage.withLock { $0.append(value) } }
    var values: [String] { storage.withLock { $0 } }
}

@Suite("RecordingEventBroker")
struct RecordingEventBrokerTests {
    @Test("Immediate mode delivers at once and records every publish in order")
    func immediate() {
        let recording = RecordingEventBroker()
        let seen = Seen()
        let token = recording.broker.subscribe(DoorOpened.self) { seen.append($0.event.door) }
        recording.broker.publish(DoorOpened(door: "front"))
        recording.publish(PlanChanged(plan: "pro"))
        recording.broker.publish(DoorOpened(door: "back"))
        #expect(seen.values == ["front", "back"])
        #expect(recording.pendingCount == 0)
        #expect(recording.published.map { $0.eventName } == [DoorOpened.eventName, PlanChanged.eventName, DoorOpened.eventName])
        #expect(recording.published(DoorOpened.self) == [DoorOpened(door: "front"), DoorOpened(door: "back")])
        #expect(recording.expectEvent(ofType: DoorOpened.self, matching: { $0.door == "back" }) == DoorOpened(door: "back"))
        #expect(recording.expectEvent(ofType: PlanChanged.self) == PlanChanged(plan: "pro"))
        #expect(recording.expectEvent(ofType: PlanChanged.self, matching: { $0.plan == "free" }) == nil)
        #expect(recording.deliverNext() == false)
        token.cancel()
    }

    @Test("Manual mode holds publishes until deliverNext and deliverAll")
    func manual() {
        let recording = RecordingEventBroker(deliveryMode: .manual)
        let seen = Seen()
        let token = recording.broker.subscribe(category: .device) { record in
            seen.append(record.event(as: DoorOpened.self)?.door ?? "?")
        }
        for door in ["a", "b", "c"] { recording.broker.publish(DoorOpened(door: door)) }
        #expect(seen.values.isEmpty)
        #expect(recording.pendingCount == 3)
        #expect(recording.published(DoorOpened.self).count == 3)
        #expect(recording.broker.history.isEmpty)

        #expect(recording.deliverNext())
        #expect(seen.values == ["a"])
        #expect(recording.pendingCount == 2)
        #expect(recording.deliverAll() == 2)
        #expect(seen.values == ["a", "b", "c"])
        #expect(recording.pendingCount == 0)
        #expect(recording.deliverNext() == false)
        #expect(recording.broker.history.count == 3)
        token.cancel()
    }

    @Test("In manual mode, events published by handlers are held too and deliverAll drains them")
    func manualReentrant() {
        let recording = RecordingEventBroker(deliveryMode: .manual)
        let seen = Seen()
        let broker = recording.broker
        let tokens = [
            broker.subscribe(DoorOpened.self) { record in
                seen.append("door \(record.event.door)")
                broker.publish(PlanChanged(plan: "after \(record.event.door)"))
            },
            broker.subscribe(PlanChanged.self) { seen.append("plan \($0.event.plan)") },
        ]
        broker.publish(DoorOpened(door: "a"))
        #expect(recording.deliverNext())
        #expect(seen.values == ["door a"])
        #expect(recording.pendingCount == 1)
        #expect(recording.deliverAll() == 1)
        #expect(seen.values == ["door a", "plan after a"])
        withExtendedLifetime(tokens) {}
    }

    @Test("Switching modes and reset")
    func switchingAndReset() {
        let recording = RecordingEventBroker(deliveryMode: .manual)
        let seen = Seen()
        let token = recording.broker.subscribe(DoorOpened.self) { seen.append($0.event.door) }
        recording.publish(DoorOpened(door: "held"))
        recording.deliveryMode = .immediate
        #expect(recording.deliveryMode == .immediate)
        recording.publish(DoorOpened(door: "now"))
        #expect(seen.values == ["now"])
        #expect(recording.pendingCount == 1)

        recording.reset()
        #expect(recording.pendingCount == 0)
        #expect(recording.published.isEmpty)
        #expect(recording.deliverAll() == 0)
        #expect(seen.values == ["now"])
        token.cancel()
    }

    @Test("A subscriber with replay sees held events only once they are delivered")
    func manualReplayHasNoDuplicates() {
        let recording = RecordingEventBroker(deliveryMode: .manual)
        recording.publish(DoorOpened(door: "a"))
        let seen = Seen()
        let token = recording.broker.subscribe(DoorOpened.self, replay: 10) { seen.append($0.event.door) }
        #expect(seen.values.isEmpty)
        recording.deliverAll()
        #expect(seen.values == ["a"])
        token.cancel()
    }
}
