import SwitchboardCore

/// A current value and any number of independent sequences that each see it first (when there
/// is one), then every update in the order the updates were applied. ``SessionSource`` and
/// ``NetworkPathSource`` are built on it.
final class CurrentValueBroadcast<Value: Sendable>: Sendable {
    private struct State {
        var current: Value?
        var observers: [Int: AsyncStream<Value>.Continuation] = [:]
        var nextObserver = 0
    }

    private let state: LockedValue<State>

    init(_ initial: Value?) {
        state = LockedValue(State(current: initial))
    }

    var current: Value? { state.withLock { $0.current } }

    /// Replaces the current value and tells every observer, unless `isRepeat` says the new value
    /// repeats the current one.
    func update(_ value: Value, isRepeat: (Value, Value) -> Bool = { _, _ in false }) {
        // Yield under the lock (it only enqueues), so concurrent updates reach every observer in
        // the order they were applied and the last update is always the current value.
        state.withLock { state in
            if let current = state.current, isRepeat(current, value) { return }
            state.current = value
            for observer in state.observers.values { observer.yield(value) }
        }
    }

    /// A new, independent sequence: the current value, then every update.
    func values() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream()
        let id = state.withLock { state in
            let id = state.nextObserver
            state.nextObserver += 1
            state.observers[id] = continuation
            if let current = state.current { continuation.yield(current) }
            return id
        }
        continuation.onTermination = { [state] _ in
            _ = state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }
}
