import Switchboard
import SwitchboardCore

/// Event types and helpers shared by the broker tests, namespaced so they cannot clash with other
/// test files in this target. Each test file brings them in with private typealiases.
enum BrokerFixtures {
    /// A device-category event with a payload to filter on.
    struct PresenceChanged: SwitchboardEvent, Equatable {
        static let category = EventCategory.device
        static let eventName = "test.device.presence"
        var deviceID: String
    }

    /// A second device-category event type.
    struct RecordingStarted: SwitchboardEvent, Equatable {
        static let category = EventCategory.device
        static let eventName = "test.device.recording"
        var deviceID: String
    }

    /// A user-category event.
    struct RoleChanged: SwitchboardEvent, Equatable {
        static let category = EventCategory.user
        static let eventName = "test.user.role"
        var role: String
    }

    /// A numbered event for ordering, history and replay tests.
    struct Tick: SwitchboardEvent, Equatable {
        static let category = EventCategory.system
        static let eventName = "test.system.tick"
        var value: Int
    }

    struct HandlerFailure: Error, Equatable {
        var reason: String
    }

    /// A thread-safe list that `@Sendable` handlers append to.
    final class Collector<Element: Sendable>: Sendable {
        private let storage = LockedValue<[Element]>([])

        func append(_ element: Element) {
            storage.withLock { $0.append(element) }
        }

        var values: [Element] {
            storage.withLock { $0 }
        }
    }

    /// Holds a value set after the closure that reads it was created.
    final class Box<Value: Sendable>: Sendable {
        private let storage: LockedValue<Value>

        init(_ value: Value) {
            storage = LockedValue(value)
        }

        var value: Value {
            get { storage.withLock { $0 } }
            set { storage.withLock { $0 = newValue } }
        }
    }

    /// Takes the next `count` elements of a stream; fewer only if the stream ends.
    static func take<Element>(_ count: Int, from stream: EventStream<Element>) async -> [Element] {
        var result: [Element] = []
        guard count > 0 else { return result }
        for await element in stream {
            result.append(element)
            if result.count == count { break }
        }
        return result
    }
}
