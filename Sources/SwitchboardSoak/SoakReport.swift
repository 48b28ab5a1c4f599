import Foundation
import SwitchboardCore

/// What a soak found, and whether it passed.
package struct SoakReport: Sendable {
    package var transport: SoakTransport
    package var seed: UInt64
    package var duration: Duration
    package var rate: Int
    package var catchUp: Bool
    /// The clocks moved from this machine's (``SoakConfiguration/clockOffset`` and the rest),
    /// as the header names them; empty when none was.
    package var clocks: [String] = []
    /// What the notifier learned of the backend's clock by the end: nil when no sync answer
    /// carried `serverTime` (or catch-up was off).
    package var backendClock: BackendClockReading?
    package struct BackendClockReading: Sendable, Equatable {
        /// How far the client's wall clock was ahead of the backend's (negative: behind), as estimated.
        package var clientOffset: TimeInterval
        /// The estimate's uncertainty at the end: half the best sample's round trip, plus drift.
        package var uncertainty: Duration
        /// How many samples the estimate kept.
        package var samples: Int
    }
    /// Per stream, in ``SoakStream`` order.
    package var tallies: [SoakLedger.Tally] = []
    /// Connections re-established after the first.
    package var reconnects = 0
    /// Faults injected, by kind; an auth rejection skipped while the last was unresolved is not
    /// counted.
    package var faults: [ChaosFault.Kind: Int] = [:]
    /// Errors the notifier reported, by code.
    package var errors: [String: Int] = [:]
    /// What the catch-up's memory bounds evicted, by kind (`switchboard.notifier.catch_up.evicted`).
    package var catchUpEvictions: [String: Int64] = [:]
    /// Values a full consumer-stream buffer dropped, by stream (`switchboard.notifier.consumer_dropped`).
    package var consumerDrops: [String: Int64] = [:]
    /// Times the session expired (two rejections in a row) and the soak signed in again.
    package var sessionExpirations = 0
    package var memory: [MemorySample] = []
    package var memoryVerdicts: [MemoryTrend.Verdict] = []
    package var memoryJudged = false
    /// Whose memory the samples are: the client's alone, or client and in-process emulator.
    package var memorySource = "the soak's process"
    /// Whether malloc gave its free pages back before each sample.
    package var memoryReleasedFreePages = false
    /// The events published on the rate's schedule (`rate × duration`; the last round comes on
    /// top) and how far behind its time the worst send was; nil when publishing did not finish.
    /// Every event of the schedule is published whatever the lag; the lag tells a publisher that
    /// kept its rate (a tick or a few late) from one that fell behind and caught up in bursts.
    package var publishing: (events: Int, lag: Duration)?
    /// How long, after publishing stopped, the last event took to arrive; nil when not all did.
    package var quiesceTime: Duration?
    /// How `BackendNotifier.run()` ended early, if it did.
    package var runFailure: String?

    package var total: SoakLedger.Tally { tallies.reduce(SoakLedger.Tally(), +) }

    /// Why the soak failed; empty when it passed.
    package var failures: [String] {
        var failures: [String] = []
        let total = total
        if total.missing > 0 { failures.append("\(total.missing) events missing") }
        if total.duplicated > 0 { failures.append("\(total.duplicated) events delivered more than once") }
        if total.outOfOrder > 0 { failures.append("\(total.outOfOrder) events out of order") }
        if total.unrecognised > 0 { failures.append("\(total.unrecognised) deliveries matched no published event") }
        if total.published == 0 { failures.append("nothing was published") }
        if let runFailure { failures.append("the notifier stopped: \(runFailure)") }
        for verdict in memoryVerdicts where verdict.grew {
            failures.append(
                "memory grew: \(verdict.measure) median \(Self.mebibytes(verdict.early)) -> \(Self.mebibytes(verdict.late)) after warm-up (allowed +\(Self.mebibytes(verdict.allowance)))")
        }
        for verdict in memoryVerdicts where verdict.climbs {
            if let slope = verdict.slope {
                failures.append(
                    "memory climbs: \(verdict.measure) \(Self.slope(slope.mebibytesPerHour)) fitted after warm-up (halves \(Self.slope(slope.firstHalf)), \(Self.slope(slope.secondHalf)); allowed \(Self.slope(slope.bound)))")
            }
        }
        return failures
    }

    package var passed: Bool { failures.isEmpty }

    /// The report as printed: a table per stream, the totals, faults, errors, memory over time
    /// (at most `memoryRows` rows), then the verdict.
    package func lines(memoryRows: Int = 13) -> [String] {
        var lines = [
            "soak: transport \(transport), seed \(seed), \(Int(duration.seconds)) s at \(rate) events/s, catch-up \(catchUp ? "on" : "off")"
                + clocks.map { ", \($0)" }.joined(),
            "",
            Self.row("stream", "published", "delivered", "missing", "duplicated", "reordered"),
        ]
        for (stream, tally) in zip(SoakStream.allCases, tallies) {
            lines.append(Self.row("\(stream)", tally))
        }
        lines.append(Self.row("total", total))
        lines.append("")
        lines.append("reconnects: \(reconnects)")
        lines.append("faults: " + Self.list(faults.map { ($0.key.rawValue, $0.value) }))
        lines.append("errors by code: " + Self.list(errors.map { ($0.key, $0.value) }))
        lines.append("catch-up evictions (memory bounds): " + Self.list(catchUpEvictions.map { ($0.key, Int($0.value)) }))
        if let backendClock {
            lines.append(String(
                format: "backend clock: client %+.3f s from the backend's, estimated within %.1f ms (best of %d samples)",
                backendClock.clientOffset, backendClock.uncertainty.seconds * 1000, backendClock.samples))
        }
        lines.append("consumer buffer drops: " + Self.list(consumerDrops.map { ($0.key, Int($0.value)) }))
        if sessionExpirations > 0 { lines.append("session expirations (signed in again): \(sessionExpirations)") }
        if let (events, lag) = publishing {
            lines.append("publishing: \(events) events at \(rate) events/s, at most \(Self.seconds(lag)) behind schedule")
        }
        lines.append("quiesce: " + (quiesceTime.map { "every event delivered \(Self.seconds($0)) after publishing stopped" } ?? "not every event arrived"))
        lines.append("")
        lines.append(
            "memory of \(memorySource) (malloc's bytes in use / resident anonymous / resident"
                + (memoryReleasedFreePages ? ", read after malloc gave its free pages back):" : "):"))
        for sample in Self.thin(memory, to: memoryRows) {
            lines.append(
                "  t=\(String(format: "%5.0f", sample.elapsed)) s  heap \(sample.heapBytes.map(Self.mebibytes) ?? "-")  anon \(sample.anonymousBytes.map(Self.mebibytes) ?? "-")  rss \(sample.residentBytes.map(Self.mebibytes) ?? "-")")
        }
        if !memoryJudged {
            lines.append("memory growth: not judged")
        } else if memoryVerdicts.isEmpty {
            lines.append("memory growth: not judged (too few samples after the warm-up)")
        } else {
            for verdict in memoryVerdicts {
                lines.append(
                    "memory growth (\(verdict.measure), median of the last third vs the first after warm-up): \(Self.mebibytes(verdict.early)) -> \(Self.mebibytes(verdict.late)), allowed +\(Self.mebibytes(verdict.allowance)): \(verdict.grew ? "GREW" : "ok")")
                if let slope = verdict.slope { lines.append(Self.slopeLine(verdict.measure, slope)) }
            }
        }
        lines.append("")
        let failures = failures
        lines.append(failures.isEmpty ? "PASS" : "FAIL: " + failures.joined(separator: "; "))
        return lines
    }

    private static func row(_ name: String, _ tally: SoakLedger.Tally) -> String {
        row(name, "\(tally.published)", "\(tally.delivered)", "\(tally.missing)", "\(tally.duplicated)", "\(tally.outOfOrder)")
    }

    private static func row(_ columns: String...) -> String {
        columns.enumerated().map { index, text in
            index == 0 ? text.padding(toLength: 16, withPad: " ", startingAt: 0) : String(repeating: " ", count: max(0, 11 - text.count)) + text
        }.joined()
    }

    private static func list(_ pairs: [(String, Int)]) -> String {
        pairs.isEmpty ? "none" : pairs.sorted { $0.0 < $1.0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
    }

    /// At most `count` samples, evenly spread, always keeping the first and the last.
    static func thin(_ samples: [MemorySample], to count: Int) -> [MemorySample] {
        guard samples.count > count, count >= 2 else { return samples }
        return (0..<count).map { samples[$0 * (samples.count - 1) / (count - 1)] }
    }

    /// The summary line of a fitted slope.
    static func slopeLine(_ measure: String, _ slope: MemoryTrend.Slope) -> String {
        let judgement: String
        if !slope.judged {
            judgement = "not judged (\(Int(slope.span)) s after warm-up, under the \(Int(slope.minimumSpan)) s needed)"
        } else {
            judgement = slope.climbs ? "CLIMBS" : "ok"
        }
        return "memory slope (\(measure), least squares after warm-up): \(Self.slope(slope.mebibytesPerHour)) ± \(String(format: "%.1f", slope.standardError)) "
            + "(halves \(Self.slope(slope.firstHalf)), \(Self.slope(slope.secondHalf))), allowed \(Self.slope(slope.bound)) sustained: \(judgement)"
    }

    static func slope(_ mebibytesPerHour: Double) -> String { String(format: "%+.1f MiB/hour", mebibytesPerHour) }

    static func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

    static func seconds(_ duration: Duration) -> String { String(format: "%.2f s", duration.seconds) }
}
