/// Time since a start, on an injected clock, without exposing the clock's instant type: the
/// one notion of "now" of the transport drivers' state machines, the socket engine's pings and
/// anything else that measures durations.
///
/// A state machine takes `Duration`s since the driver started as its instants, so it is tested
/// with plain numbers, and the driver sleeps towards them on whatever clock it was given
/// (`ContinuousClock` in apps, SwitchboardTesting's `ManualClock` in tests).
@usableFromInline package struct ElapsedClock: Sendable {
    /// The time since the clock was made.
    @usableFromInline package let elapsed: @Sendable () -> Duration
    private let sleepUntil: @Sendable (Duration) async throws -> Void

    /// Starts measuring now.
    /// - Parameter clock: The clock to read and sleep on.
    @usableFromInline package init(_ clock: any Clock<Duration>) {
        (elapsed, sleepUntil) = Self.measure(clock)
    }

    /// The time since the clock was made; the same as ``elapsed``.
    @inlinable package func now() -> Duration { elapsed() }

    /// Sleeps until `deadline` (a time since the start) has been reached.
    /// - Parameter deadline: The time since the start to wake at.
    /// - Throws: `CancellationError` when the task is cancelled first.
    @usableFromInline package func sleep(until deadline: Duration) async throws { try await sleepUntil(deadline) }

    private static func measure<C: Clock<Duration>>(
        _ clock: C
    ) -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void) {
        let start = clock.now
        return (
            { start.duration(to: clock.now) },
            { deadline in try await clock.sleep(until: start.advanced(by: deadline), tolerance: nil) }
        )
    }
}

/// The name the socket engine, catch-up and the CLI use for an ``ElapsedClock`` that only
/// measures.
package typealias Stopwatch = ElapsedClock
