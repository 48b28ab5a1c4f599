import SwitchboardCore

/// State that tests can wait on: `wait(until:)` suspends until a predicate holds, woken by
/// every change, never by polling or sleeping.
package final class Observed<State: Sendable>: Sendable {
    private struct Waiter {
        var predicate: @Sendable (State) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct Storage {
        var state: State
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    private let storage: LockedValue<Storage>

    package init(_ state: State) { storage = LockedValue(Storage(state: state)) }

    package var value: State { storage.withLock { $0.state } }

    /// Changes the state and wakes the waiters whose predicate now holds.
    @discardableResult
    package func update<R>(_ body: (inout State) -> R) -> R {
        let (result, ready) = storage.withLock { storage -> (R, [CheckedContinuation<Void, Never>]) in
            let result = body(&storage.state)
            var ready: [CheckedContinuation<Void, Never>] = []
            for (id, waiter) in storage.waiters where waiter.predicate(storage.state) {
                ready.append(waiter.continuation)
                storage.waiters[id] = nil
            }
            return (result, ready)
        }
        for continuation in ready { continuation.resume() }
        return result
    }

    /// Suspends until `predicate` holds (at once if it already does). Returns early, without the
    /// predicate holding, if the task is cancelled.
    package func wait(until predicate: @escaping @Sendable (State) -> Bool) async {
        let id = storage.withLock { storage -> Int in
            defer { storage.nextWaiter += 1 }
            return storage.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = storage.withLock { storage -> Bool in
                    if predicate(storage.state) || Task.isCancelled { return true }
                    storage.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = storage.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume()
        }
    }
}
