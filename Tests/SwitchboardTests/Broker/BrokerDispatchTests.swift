import Switchboard
import Testing

private typealias PresenceChanged = BrokerFixtures.PresenceChanged
private typealias RecordingStarted = BrokerFixtures.RecordingStarted
private typealias RoleChanged = BrokerFixtures.RoleChanged
private typealias Tick = BrokerFixtures.Tick
private typealias Collector<Element: Sendable> = BrokerFixtures.Collector<Element>
private typealias Box<Value: Sendable> = BrokerFixtures.Box<Value>

@Suite("EventBroker dispatch")
struct BrokerDispatchTests {
    @Test("EventPriority orders critical > high > normal > low")
    func priorityComparable() {
        #expect(EventPriority.critical > .high)
        #expect(EventPriority.high > .normal)
        #expect(EventPriority.normal > .low)
        #expect([EventPriority.normal, .low, .critical, .high].sorted(by: >) == [.critical, .high, .normal, .low])
    }

    @Test("Subscribers are called by priority, FIFO within a level, typed and category merged")
    func priorityOrder() {
        let broker = EventBroker()
        let calls = Collector<String>()
        var tokens: [EventSubscription] = []
        let plan: [(String, EventPriority, Bool)] = [
            ("low-1", .low, false), ("critical-1", .critical, true), ("normal-1", .normal, false),
            ("high-1", .high, true), ("low-2", .low, true), ("critical-2", .critical, false),
            ("normal-2", .normal, true), ("high-2", .high, false), ("critical-3", .critical, true),
        ]
        for (name, priority, byCategory) in plan {
            if byCategory {
                tokens.append(broker.subscribe(category: .device, priority: priority) { _ in calls.append(name) })
            } else {
                tokens.append(broker.subscribe(PresenceChanged.self, priority: priority) { _ in calls.append(name) })
            }
        }
        broker.publish(PresenceChanged(deviceID: "cam-1"))
        #expect(calls.values == [
            "critical-1", "critical-2", "critical-3", "high-1", "high-2", "normal-1", "normal-2", "low-1", "low-2",
        ])
        #expect(tokens.allSatisfy { $0.isActive })
    }

    @Test("Type subscriptions get their type only; category subscriptions get every type in the category")
    func typeVersusCategory() {
        let broker = EventBroker()
        let presence = Collector<String>()
        let device = Collector<String>()
        let user = Collector<String>()
        let tokens = [
            broker.subscribe(PresenceChanged.self) { presence.append($0.event.deviceID) },
            broker.subscribe(category: .device) { device.append($0.eventName) },
            broker.subscribe(category: .user) { record in
                user.append(record.event(as: RoleChanged.self)?.role ?? "wrong type")
            },
        ]
        broker.publish(PresenceChanged(deviceID: "cam-1"))
        broker.publish(RecordingStarted(deviceID: "cam-2"))
        broker.publish(RoleChanged(role: "admin"))
        #expect(presence.values == ["cam-1"])
        #expect(device.values == [PresenceChanged.eventName, RecordingStarted.eventName])
        #expect(user.values == ["admin"])
        withExtendedLifetime(tokens) {}
    }

    @Test("Filters decide which records reach the handler")
    func filters() {
        let broker = EventBroker()
        let typed = Collector<String>()
        let categorized = Collector<String>()
        let tokens = [
            broker.subscribe(PresenceChanged.self, where: { $0.event.deviceID.hasPrefix("cam") }) {
                typed.append($0.event.deviceID)
            },
            broker.subscribe(category: .device, where: { $0.metadata.stream == "devicePresence" }) {
                categorized.append($0.metadata.eventId)
            },
        ]
        broker.publish(PresenceChanged(deviceID: "cam-1"), metadata: EventMetadata(eventId: "a", stream: "devicePresence"))
        broker.publish(PresenceChanged(deviceID: "door-1"), metadata: EventMetadata(eventId: "b", stream: "other"))
        broker.publish(RecordingStarted(deviceID: "cam-2"), metadata: EventMetadata(eventId: "c", stream: "devicePresence"))
        #expect(typed.values == ["cam-1"])
        #expect(categorized.values == ["a", "c"])
        withExtendedLifetime(tokens) {}
    }

    @Test("Publishing an existential reaches the subscribers of its dynamic type")
    func publishExistential() {
        let broker = EventBroker()
        let received = Collector<Int>()
        let token = broker.subscribe(Tick.self) { received.append($0.event.value) }
        let events: [any SwitchboardEvent] = [Tick(value: 1), RoleChanged(role: "x"), Tick(value: 2)]
        for event in events { broker.publish(event) }
        #expect(received.values == [1, 2])
        #expect(broker.metricsReport().publishedCounts == [Tick.eventName: 2, RoleChanged.eventName: 1])
        token.cancel()
    }

    @Test("The record carries the metadata it was published with")
    func metadataIsDelivered() {
        let broker = EventBroker()
        let received = Collector<EventRecord<PresenceChanged>>()
        let token = broker.subscribe(PresenceChanged.self) { received.append($0) }
        let metadata = EventMetadata(eventId: "evt-1", transport: nil, stream: "devicePresence")
        broker.publish(PresenceChanged(deviceID: "cam-1"), metadata: metadata)
        #expect(received.values == [EventRecord(metadata: metadata, event: PresenceChanged(deviceID: "cam-1"))])
        token.cancel()
    }

    @Test("A handler can publish re-entrantly; the nested publish is dispatched before the outer one continues")
    func reentrantPublish() {
        let broker = EventBroker()
        let calls = Collector<String>()
        let tokens = [
            broker.subscribe(PresenceChanged.self, priority: .high) { record in
                calls.append("presence-high \(record.event.deviceID)")
                if record.event.deviceID == "outer" {
                    broker.publish(PresenceChanged(deviceID: "inner"))
                    broker.publish(RoleChanged(role: "nested"))
                }
            },
            broker.subscribe(PresenceChanged.self, priority: .low) { calls.append("presence-low \($0.event.deviceID)") },
            broker.subscribe(RoleChanged.self) { calls.append("role \($0.event.role)") },
        ]
        broker.publish(PresenceChanged(deviceID: "outer"))
        #expect(calls.values == [
            "presence-high outer",
            "presence-high inner", "presence-low inner",
            "role nested",
            "presence-low outer",
        ])
        #expect(broker.history.map { $0.eventName } == [PresenceChanged.eventName, PresenceChanged.eventName, RoleChanged.eventName])
        withExtendedLifetime(tokens) {}
    }

    @Test("A handler can subscribe re-entrantly; the new subscriber sees the next publish")
    func reentrantSubscribe() {
        let broker = EventBroker()
        let late = Collector<Int>()
        let lateToken = Box<EventSubscription?>(nil)
        let token = broker.subscribe(Tick.self) { record in
            if lateToken.value == nil {
                lateToken.value = broker.subscribe(Tick.self) { late.append($0.event.value) }
            }
        }
        broker.publish(Tick(value: 1))
        broker.publish(Tick(value: 2))
        #expect(late.values == [2])
        token.cancel()
        lateToken.value?.cancel()
    }
}
