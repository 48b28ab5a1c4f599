import SwitchboardCore

/// A clock that moves only when a test tells it to, so time-based code runs instantly and
/// deterministically.
///
/// Sleepers park until ``advance(by:)`` or ``advance(to:)`` moves ``now`` to or past their
/// deadline. Before advancing, wait until the code under test has actually gone to sleep, with
/// ``sleepers(atLeast:)``; that replaces yield loops and real-time waits:
///
/// ```swift
/// let clock = ManualClock()
/// async let woke: Void = clock.sleep(for: .seconds(10))
/// await clock.sleepers(atLeast: 1)
/// clock.advance(by: .seconds(10))
/// try await woke
/// ```
///
/// It can be passed wherever an `any Clock<Duration>` is expected.
public final class ManualClock: Clock, Sendable {
    /// A point in the manual clock's time: an offset from its zero.
    public struct Instant: InstantProtocol, Hashable, Sendable, CustomStringConvertible {
        /// How far this instant is from the clock's zero.
        public var offset: Duration

        /// Creates an instant.
        /// - Parameter offset: How far the instant is from the clock's zero.
        public init(offset: Duration) { self.offset = offset }

        /// The clock's zero, where a new ``ManualClock`` starts by default.
        public static let zero = Instant(offset: .zero)

        /// The instant `duration` later (or earlier, if negative).
        /// - Parameter duration: How far to move.
        /// - Returns: The moved instant.
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }

        /// The duration from this instant to `other`.
        /// - Parameter other: The later (or earlier) instant.
        /// - Returns: `other − self`.
        public func duration(to other: Instant) -> Duration { other.offset - offset }

        /// Whether `lhs` comes before `rhs`.
        /// - Parameters:
        ///   - lhs: An instant.
        ///   - rhs: Another instant.
        /// - Returns: `true` if `lhs` is earlier.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }

        /// The offset from zero, such as `10.0 seconds`.
        public var description: String { "\(offset)" }
    }

    private enum Entry {
        /// Registered, continuation not yet installed.
        case pending(deadline: Instant)
        /// Parked and counted by ``sleeperCount``.
        case parked(deadline: Instant, continuation: CheckedContinuation<Void, any Error>)
        /// Cancelled before its continuation was installed.
        case cancelled
    }

    private struct Waiter {
        /// What the waiter waits for.
        enum Condition {
            /// At least this many parked sleepers.
            case count(Int)
            /// A parked sleeper whose deadline is at or before this instant.
            case dueBy(Instant)
        }
        var condition: Condition
        var continuation: CheckedContinuation<Void, Never>?
    }

    private struct State {
        var now: Instant
        var nextID: UInt64 = 0
        var entries: [UInt64: Entry] = [:]
        var waiters: [UInt64: Waiter] = [:]

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }

        var parkedCount: Int {
            entries.values.reduce(0) { count, entry in
                if case .parked = entry { count + 1 } else { count }
            }
        }

        var earliestParkedDeadline: Instant? {
            entries.values.compactMap { entry -> Instant? in
                if case .parked(let deadline, _) = entry { deadline } else { nil }
            }.min()
        }

        func isSatisfied(_ condition: Waiter.Condition) -> Bool {
            switch condition {
            case .count(let count): parkedCount >= count
            case .dueBy(let instant): earliestParkedDeadline.map { $0 <= instant } ?? false
            }
        }

        /// Removes and returns the waiters whose condition the parked sleepers now meet.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
            let ready = waiters.filter { isSatisfied($0.value.condition) }
            for id in ready.keys { waiters[id] = nil }
            return ready.values.compactMap(\.continuation)
        }
    }

    private let state: LockedValue<State>

    /// Creates a clock.
    /// - Parameter now: The starting time; ``Instant/zero`` by default.
    public init(now: Instant = .zero) {
        state = LockedValue(State(now: now))
    }

    /// The current time. It changes only through ``advance(by:)`` and ``advance(to:)``.
    public var now: Instant { state.withLock(\.now) }

    /// Zero: the clock has no granularity of its own.
    public var minimumResolution: Duration { .zero }

    /// How many tasks are parked in ``sleep(until:tolerance:)``.
    public var sleeperCount: Int { state.withLock(\.parkedCount) }

    /// The earliest deadline among the parked sleepers, or nil if none is parked.
    public var nextDeadline: Instant? { state.withLock(\.earliestParkedDeadline) }

    /// Suspends until ``now`` reaches `deadline`. Returns at once if it already has.
    /// - Parameters:
    ///   - deadline: When to wake up.
    ///   - tolerance: Ignored; the manual clock is exact.
    /// - Throws: `CancellationError` if the task is cancelled before or while it sleeps; the
    ///   sleeper is then removed at once.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try Task.checkCancellation()
        let id: UInt64? = state.withLock { state in
            guard deadline > state.now else { return nil }
            let id = state.makeID()
            state.entries[id] = .pending(deadline: deadline)
            return id
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                park(id: id, continuation: continuation)
            }
        } onCancel: {
            cancel(id: id)
        }
    }

    private func park(id: UInt64, continuation: CheckedContinuation<Void, any Error>) {
        enum Outcome {
            case parked([CheckedContinuation<Void, Never>])
            case reached
            case cancelled
        }
        let outcome: Outcome = state.withLock { state in
            switch state.entries[id] {
            case .pending(let deadline):
                if deadline <= state.now {
                    state.entries[id] = nil
                    return .reached
                }
                state.entries[id] = .parked(deadline: deadline, continuation: continuation)
                return .parked(state.satisfiedWaiters())
            case .cancelled, .parked, nil:
                state.entries[id] = nil
                return .cancelled
            }
        }
        switch outcome {
        case .parked(let waiters): for waiter in waiters { waiter.resume() }
        case .reached: continuation.resume()
        case .cancelled: continuation.resume(throwing: CancellationError())
        }
    }

    private func cancel(id: UInt64) {
        let continuation: CheckedContinuation<Void, any Error>? = state.withLock { state in
            switch state.entries[id] {
            case .pending:
                state.entries[id] = .cancelled
                return nil
            case .parked(_, let continuation):
                state.entries[id] = nil
                return continuation
            case .cancelled, nil:
                return nil
            }
        }
        continuation?.resume(throwing: CancellationError())
    }

    /// Moves time forward by `duration` and wakes every sleeper whose deadline is reached, in
    /// deadline order (sleepers with equal deadlines in the order they went to sleep).
    /// - Parameter duration: How far to move; a negative duration does nothing.
    /// - Returns: The deadlines of the sleepers it woke, in the order it resumed them.
    @discardableResult
    public func advance(by duration: Duration) -> [Instant] {
        advance { $0.advanced(by: max(duration, .zero)) }
    }

    /// Moves time forward to `instant` and wakes every sleeper whose deadline is reached, in
    /// deadline order. Time never goes backwards: an earlier `instant` does nothing.
    /// - Parameter instant: The new time.
    /// - Returns: The deadlines of the sleepers it woke, in the order it resumed them.
    @discardableResult
    public func advance(to instant: Instant) -> [Instant] {
        advance { _ in instant }
    }

    private func advance(_ target: (Instant) -> Instant) -> [Instant] {
        typealias Due = (deadline: Instant, id: UInt64, continuation: CheckedContinuation<Void, any Error>)
        let due: [Due] = state.withLock { state in
            state.now = max(state.now, target(state.now))
            var due: [Due] = []
            for (id, entry) in state.entries {
                if case .parked(let deadline, let continuation) = entry, deadline <= state.now {
                    due.append((deadline, id, continuation))
                }
            }
            for item in due { state.entries[item.id] = nil }
            return due.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
        }
        for item in due { item.continuation.resume() }
        return due.map(\.deadline)
    }

    /// Suspends until at least `count` tasks are parked in ``sleep(until:tolerance:)``. Returns at
    /// once if they already are.
    ///
    /// Use it before ``advance(by:)`` to be sure the code under test has gone to sleep. It
    /// returns early, without an error, if the waiting task is cancelled.
    /// - Parameter count: The number of parked sleepers to wait for.
    public func sleepers(atLeast count: Int) async {
        await wait(for: .count(count))
    }

    /// Suspends until a task is parked in ``sleep(until:tolerance:)`` with a deadline at or before
    /// `instant`. Returns at once if one already is.
    ///
    /// Use it to advance time only once the code under test has armed the timer that the advance
    /// is meant to fire. It returns early, without an error, if the waiting task is cancelled.
    /// - Parameter instant: The latest deadline that satisfies the wait.
    public func sleeper(dueBy instant: Instant) async {
        await wait(for: .dueBy(instant))
    }

    private func wait(for condition: Waiter.Condition) async {
        let id: UInt64? = state.withLock { state in
            guard !state.isSatisfied(condition) else { return nil }
            let id = state.makeID()
            state.waiters[id] = Waiter(condition: condition, continuation: nil)
            return id
        }
        guard let id else { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready: Bool = state.withLock { state in
                    guard state.waiters[id] != nil, !state.isSatisfied(condition) else {
                        state.waiters[id] = nil
                        return true
                    }
                    state.waiters[id]?.continuation = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state in state.waiters.removeValue(forKey: id)?.continuation }
            continuation?.resume()
        }
    }
}
