import Foundation
import Switchboard
import SwitchboardCore

/// The engine of `switchboard shadow`: both transports side by side for one user, each under its
/// own ``BackendNotifier``, every typed event fed to a ``ShadowMatcher``.
///
/// This is the one place where two transports run at once: an ops tool that compares them, not
/// the library's notifier (which never runs two). Every wait (the summary interval, the match
/// window) is on the injected clock, and arrival times are read from it too.
final class ShadowRun: Sendable {
    /// One side's notifier and a description of where it connects.
    struct Side: Sendable {
        var notifier: BackendNotifier
        var endpoint: String
    }

    /// Why a run stopped early.
    struct Failure: Error, Sendable, Equatable {
        var side: ShadowSide
        var error: SwitchboardError
    }

    private struct State {
        var matcher: ShadowMatcher
        var connection: [ShadowSide: ConnectionState] = [:]
        var failure: Failure?
    }

    private enum Wake: Sendable {
        case tick
        case stop
    }

    private let sides: [ShadowSide: Side]
    private let streams: [StreamName]
    private let interval: Duration
    private let clock: any Clock<Duration>
    private let stopwatch: Stopwatch
    private let state: LockedValue<State>
    private let onError: @Sendable (ShadowSide, SwitchboardError) -> Void
    private let wakes: AsyncStream<Wake>
    private let wake: AsyncStream<Wake>.Continuation

    /// - Parameters:
    ///   - legacy: The GraphQL side.
    ///   - appSync: The AppSync Events side.
    ///   - streams: The streams to compare.
    ///   - window: How long an event waits for its twin.
    ///   - interval: How often ``run(onTick:)`` reports.
    ///   - clock: The clock for the interval, the window and arrival times.
    ///   - onError: Non-fatal errors either side reports (logged by the caller).
    init(
        legacy: Side, appSync: Side, streams: [StreamName], window: Duration, interval: Duration,
        clock: any Clock<Duration> = ContinuousClock(), onError: @escaping @Sendable (ShadowSide, SwitchboardError) -> Void = { _, _ in }
    ) {
        sides = [.legacy: legacy, .appsync: appSync]
        self.streams = streams
        self.interval = interval
        self.clock = clock
        stopwatch = Stopwatch(clock)
        state = LockedValue(State(matcher: ShadowMatcher(window: window, streams: streams.map(\.rawValue))))
        self.onError = onError
        (wakes, wake) = AsyncStream.makeStream(of: Wake.self)
    }

    /// Ends ``run(onTick:)`` (once, from any task): both sides shut down and it returns.
    func stop() { wake.yield(.stop) }

    /// The figures now, after counting the events whose window has passed.
    func snapshot() -> ShadowSnapshot {
        let now = stopwatch.elapsed()
        return state.withLock { state in
            _ = state.matcher.expire(now: now)
            return ShadowSnapshot(
                elapsed: now, streams: streams.map(\.rawValue), matcher: state.matcher,
                connection: state.connection, endpoints: sides.mapValues(\.endpoint))
        }
    }

    /// Runs both sides until `onTick` returns false, ``stop()``, a side fails for good, or the
    /// task is cancelled; then shuts both down. Call it once.
    /// - Parameter onTick: Called every interval with the figures; return false to stop.
    /// - Returns: The last figures.
    /// - Throws: ``Failure`` when a side's connection ended for good (refused credentials, an
    ///   invalid configuration, or the reconnect policy gave up).
    @discardableResult
    func run(onTick: @escaping @Sendable (ShadowSnapshot) async -> Bool) async throws -> ShadowSnapshot {
        let wake = self.wake
        await withTaskGroup(of: Void.self) { group in
            for (side, entry) in sides {
                let notifier = entry.notifier
                // Every consumer first, then the run: the first connection subscribes to all of
                // them at once instead of re-planning as they arrive.
                for stream in streams {
                    let values = await stream.lines(from: notifier)
                    group.addTask { [self] in
                        for await line in values { receive(line, on: side) }
                    }
                }
                let states = await notifier.connectionStates()
                group.addTask { [self] in
                    for await connection in states {
                        if watch(connection, on: side) { wake.yield(.stop) }
                    }
                }
                let errors = await notifier.errors()
                group.addTask { [onError] in
                    for await error in errors { onError(side, error) }
                }
                group.addTask { try? await notifier.run() }
            }
            let clock = self.clock, interval = self.interval
            group.addTask {
                while (try? await clock.sleep(for: interval)) != nil { wake.yield(.tick) }
            }
            for await reason in wakes {
                if case .stop = reason { break }
                if await !onTick(snapshot()) { break }
            }
            for entry in sides.values { await entry.notifier.shutDown() }
            group.cancelAll()
        }
        wake.finish()
        if let failure = state.withLock({ $0.failure }) { throw failure }
        return snapshot()
    }

    /// Feeds one typed event to the matcher, stamped with its arrival on the run's clock.
    private func receive(_ line: EventLine, on side: ShadowSide) {
        let time = stopwatch.elapsed()
        guard let content = try? Self.content(of: line) else { return }
        _ = state.withLock { $0.matcher.receive(side, stream: line.stream.rawValue, content: content, at: time) }
    }

    /// Records a side's connection state; true when it failed for good.
    private func watch(_ connection: ConnectionState, on side: ShadowSide) -> Bool {
        state.withLock { state in
            state.connection[side] = connection
            guard case .disconnected(let error?) = connection, state.failure == nil else { return false }
            state.failure = Failure(side: side, error: error)
            return true
        }
    }

    /// The event's content for matching: its JSON in the new contract's field names, keys
    /// sorted, without `eventType` and `timestamp` (only AppSync Events carries them).
    static func content(of line: EventLine) throws -> String {
        let text = try line.json()
        guard var object = (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["event"] as? [String: Any]
        else { return text }
        object["eventType"] = nil
        object["timestamp"] = nil
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }
}
