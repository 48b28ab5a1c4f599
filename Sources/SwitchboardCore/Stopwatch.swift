/// Measures durations on an injected clock, without exposing the clock's instant type.
package struct Stopwatch: Sendable {
    /// The time since the stopwatch was made.
    package let elapsed: @Sendable () -> Duration

    /// Starts a stopwatch now.
    /// - Parameter clock: The clock to read.
    package init(_ clock: any Clock<Duration>) {
        elapsed = Self.measure(clock)
    }

    private static func measure<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }
}
