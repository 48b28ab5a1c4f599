import Foundation
import SwitchboardCore

/// What the client knows of the backend's wall clock, on this process's monotonic timeline
/// (contract §6, "Clocks").
///
/// The backend's times (`publishedAt`, `since`, checkpoints) are never compared with this
/// device's wall clock, which is commonly half a second off, sometimes minutes, and can jump.
/// Instead, each sync answer that carries the server's time (`serverTime`) is a sample: the
/// server read its clock somewhere between the moment the request left and the moment the answer
/// came back, so the backend's time at any later (or earlier) moment of this process is the
/// sample's time plus the monotonic time since the middle of that round trip, give or take half
/// the round trip. Samples age: a device's oscillator and the backend's may drift apart by up to
/// ``driftAllowance`` (100 parts per million), which is added to a sample's uncertainty for every
/// second between it and the moment read, so a fresh sample with a slower round trip can win
/// over an old, fast one.
///
/// Moments are `Duration`s since the ``BackendClock`` that took them was made (its timeline);
/// readings made from an estimate are only meaningful for moments of the same timeline.
///
/// Without any sample (a backend that does not send `serverTime`), the estimate falls back to the
/// device's wall clock read once, when the timeline started: the device's offset from the
/// backend is then not corrected, but a jump of the device's clock after that changes nothing.
public struct BackendTimeEstimate: Sendable, Equatable {
    /// One reading of the backend's clock.
    public struct Reading: Sendable, Equatable {
        /// The backend's time at the moment read.
        public var time: Date
        /// How far ``time`` may be off, either way: half the sample's round trip plus the drift
        /// allowed since the sample. Zero for the device's own clock (the fallback), which is not
        /// an estimate of the backend's at all.
        public var uncertainty: Duration
        /// Whether ``time`` comes from the server's time (false: from this device's clock, the
        /// fallback when no sync answer carried `serverTime`).
        public var fromServer: Bool
    }

    private struct Sample: Sendable, Equatable {
        var time: Date
        var at: Duration
        var halfRoundTrip: Duration
    }

    /// How far a device's monotonic clock and the backend's may drift apart, per second: 100 parts
    /// per million (quartz oscillators stay within ±20–50).
    public static let driftAllowance = 100e-6
    /// How many of the newest server samples are kept, beside the one with the shortest round
    /// trip ever (a busy moment's samples do not push out a quiet moment's).
    static let keptSamples = 8

    private var samples: [Sample] = []
    private var fastest: Sample?
    private var fallback: Sample

    /// An estimate with no sample: readings fall back to the device's wall clock, `deviceTime`,
    /// read at moment `at` of the timeline.
    /// - Parameters:
    ///   - deviceTime: The device's wall clock, read once.
    ///   - at: The moment of the timeline it was read at.
    public init(deviceTime: Date, at: Duration) {
        fallback = Sample(time: deviceTime, at: at, halfRoundTrip: .zero)
    }

    /// Whether a sync answer carried the server's time.
    public var hasServerTime: Bool { !samples.isEmpty }
    /// How many server samples are kept (at most eight, the newest, and the fastest ever).
    public var sampleCount: Int { samples.count + (fastest.map { samples.contains($0) ? 0 : 1 } ?? 0) }

    /// Adds a sample: the server answered `serverTime` to a request sent at moment `sent` whose
    /// answer arrived at moment `received`. A sample whose round trip runs backwards is ignored.
    /// - Parameters:
    ///   - serverTime: The server's time, from its answer.
    ///   - sent: When the request left, on the timeline.
    ///   - received: When the answer arrived, on the timeline.
    public mutating func record(serverTime: Date, sent: Duration, received: Duration) {
        guard received >= sent else { return }
        let half = (received - sent) / 2
        let sample = Sample(time: serverTime, at: sent + half, halfRoundTrip: half)
        samples.append(sample)
        if samples.count > Self.keptSamples { samples.removeFirst(samples.count - Self.keptSamples) }
        if fastest.map({ half < $0.halfRoundTrip }) ?? true { fastest = sample }
    }

    /// The backend's time at moment `moment` of the timeline, from the sample that knows it best
    /// (the device's clock when no server sample exists).
    /// - Parameter moment: A moment of the timeline (earlier or later than the samples).
    /// - Returns: The reading.
    public func reading(at moment: Duration) -> Reading {
        var best: Reading?
        for sample in samples + (fastest.map { [$0] } ?? []) {
            let distance = moment > sample.at ? moment - sample.at : sample.at - moment
            let reading = Reading(
                time: sample.time.addingTimeInterval((moment - sample.at).seconds),
                uncertainty: sample.halfRoundTrip + distance * Self.driftAllowance, fromServer: true)
            if best.map({ reading.uncertainty < $0.uncertainty }) ?? true { best = reading }
        }
        if let best { return best }
        return Reading(time: fallback.time.addingTimeInterval((moment - fallback.at).seconds), uncertainty: .zero, fromServer: false)
    }
}

/// The backend's wall clock as this process learns it from the sync answers' `serverTime`: a
/// monotonic timeline (``now()``) and a ``BackendTimeEstimate`` that the ``SyncClient`` adds
/// samples to. `BackendNotifier` makes one when it starts and hands it to every catch-up; a
/// ``CatchUpSource`` of your own records what it learns with ``record(serverTime:sent:received:)``.
///
/// It is safe to use from any thread.
public final class BackendClock: Sendable {
    private let stopwatch: Stopwatch
    private let state: LockedValue<BackendTimeEstimate>

    /// Starts a timeline now, with the device's wall clock read once as the fallback estimate.
    /// - Parameters:
    ///   - clock: The monotonic clock of the timeline; `ContinuousClock` (it keeps counting
    ///     while the device sleeps) by default.
    ///   - deviceNow: The device's wall clock; read once, here.
    public init(clock: any Clock<Duration> = ContinuousClock(), deviceNow: @Sendable () -> Date = { Date() }) {
        stopwatch = Stopwatch(clock)
        state = LockedValue(BackendTimeEstimate(deviceTime: deviceNow(), at: stopwatch.elapsed()))
    }

    /// The current moment of the timeline: the time since this clock was made.
    public func now() -> Duration { stopwatch.elapsed() }

    /// What is known so far.
    public var estimate: BackendTimeEstimate { state.withLock { $0 } }

    /// Adds a sample (see ``BackendTimeEstimate/record(serverTime:sent:received:)``).
    /// - Parameters:
    ///   - serverTime: The server's time, from its answer.
    ///   - sent: When the request left (``now()`` before sending).
    ///   - received: When the answer arrived (``now()`` on reading it).
    public func record(serverTime: Date, sent: Duration, received: Duration) {
        state.withLock { $0.record(serverTime: serverTime, sent: sent, received: received) }
    }

    /// The backend's time at moment `moment` of this clock's timeline.
    /// - Parameter moment: A moment of the timeline.
    /// - Returns: The reading.
    public func reading(at moment: Duration) -> BackendTimeEstimate.Reading { estimate.reading(at: moment) }
}
