import CSwitchboardMalloc
import Foundation

/// One reading of the process's memory, from `/proc/self/status` and the C library's malloc
/// (nil where there is none).
package struct MemorySample: Sendable, Equatable {
    /// Seconds since the soak started.
    package var elapsed: Double
    /// Resident set size in bytes (`VmRSS`).
    package var residentBytes: Int?
    /// Resident anonymous memory in bytes (`RssAnon`): the heap and stacks, without mapped
    /// files. Read after malloc gave its free pages back when ``read(elapsed:releasingFreePages:)``
    /// was asked to, so that it counts what is in use and what fragmentation strands, not what
    /// glibc keeps for later.
    package var anonymousBytes: Int?
    /// Bytes malloc has handed out and not had back: what the process holds, whatever the
    /// allocator keeps around it (glibc's `mallinfo2`; nil elsewhere).
    package var heapBytes: Int?

    package init(elapsed: Double, residentBytes: Int?, anonymousBytes: Int?, heapBytes: Int? = nil) {
        self.elapsed = elapsed
        self.residentBytes = residentBytes
        self.anonymousBytes = anonymousBytes
        self.heapBytes = heapBytes
    }

    /// Reads the current process.
    /// - Parameters:
    ///   - elapsed: Seconds since the soak started.
    ///   - releasingFreePages: Whether malloc gives its free pages back to the kernel first
    ///     (glibc's `malloc_trim(0)`), so the resident figures count what is in use.
    package static func read(elapsed: Double, releasingFreePages: Bool = false) -> MemorySample {
        if releasingFreePages { _ = switchboard_malloc_release_free_pages() }
        let inUse = switchboard_malloc_bytes_in_use()
        let heap = inUse >= 0 ? Int(inUse) : nil
        // procfs files report a size of zero: read to the end rather than by size.
        guard let file = FileHandle(forReadingAtPath: "/proc/self/status"),
            let data = try? file.readToEnd(), let status = String(data: data, encoding: .utf8)
        else {
            return MemorySample(elapsed: elapsed, residentBytes: nil, anonymousBytes: nil, heapBytes: heap)
        }
        return MemorySample(
            elapsed: elapsed, residentBytes: kibibytes("VmRSS:", in: status).map { $0 * 1024 },
            anonymousBytes: kibibytes("RssAnon:", in: status).map { $0 * 1024 }, heapBytes: heap)
    }

    /// The value of a `Name:   1234 kB` line.
    static func kibibytes(_ name: String, in status: String) -> Int? {
        for line in status.split(separator: "\n") where line.hasPrefix(name) {
            return line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Int($0) }
        }
        return nil
    }
}

/// The soak's rule for memory growth. Pure.
///
/// Samples before ``warmUp`` are ignored: buffers, caches, the emulator's bounded event log and
/// the notifier's remembered deliveries fill up then. Two checks follow, and either fails the soak.
///
/// - The jump: the rest is cut in thirds, and the median of the last third is compared with the
///   median of the first: memory grew when the difference exceeds ``relativeTolerance`` of the
///   early median or ``absoluteTolerance``, whichever is larger. Medians shrug off a single spike
///   (a catch-up's batch, a backlog after a stall). Applied to each measure the samples carry:
///   malloc's bytes in use, the anonymous and the whole resident size.
/// - The slope: a least-squares line is fitted to the samples of malloc's bytes in use and to
///   those of anonymous memory after the warm-up (see ``Slope``). Memory climbs when the slope stays above ``maximumSlope`` (MiB per hour)
///   over the whole run and over each half of it, with the noise taken into account: a leak
///   of a few MiB an hour that the jump's tolerance would pass. A single step is no slope; the
///   jump judges it.
package struct MemoryTrend: Sendable, Equatable {
    /// Seconds from the start before samples count.
    package var warmUp: Double
    /// The jump allowed, as a share of the early median.
    package var relativeTolerance: Double
    /// The jump allowed in bytes, when larger than the relative one.
    package var absoluteTolerance: Int
    /// Fewer samples after the warm-up than this gives no verdict.
    package var minimumSamples: Int
    /// The steepest sustained growth allowed of malloc's bytes in use and of anonymous memory,
    /// in MiB per hour. Defaults to 2.
    package var maximumSlope: Double
    /// Seconds of samples after the warm-up below which the slope is reported but not judged:
    /// a short run cannot tell a leak of a few MiB an hour from noise. Defaults to 300.
    package var minimumSlopeSpan: Double

    /// Creates the rule.
    /// - Parameters:
    ///   - warmUp: Seconds from the start before samples count.
    ///   - relativeTolerance: The jump allowed, as a share of the early median.
    ///   - absoluteTolerance: The jump allowed in bytes, when larger than the relative one.
    ///   - minimumSamples: The fewest samples after the warm-up that give a verdict.
    ///   - maximumSlope: The steepest sustained growth allowed, MiB per hour.
    ///   - minimumSlopeSpan: Seconds of samples after the warm-up needed to judge the slope.
    package init(
        warmUp: Double, relativeTolerance: Double = 0.10, absoluteTolerance: Int = 16 << 20, minimumSamples: Int = 6,
        maximumSlope: Double = 2, minimumSlopeSpan: Double = 300
    ) {
        self.warmUp = warmUp
        self.relativeTolerance = relativeTolerance
        self.absoluteTolerance = absoluteTolerance
        self.minimumSamples = minimumSamples
        self.maximumSlope = maximumSlope
        self.minimumSlopeSpan = minimumSlopeSpan
    }

    /// The comparison for one measure.
    package struct Verdict: Sendable, Equatable {
        /// `heap` (malloc's bytes in use), `anon` (resident anonymous memory) or `rss` (the
        /// whole resident size).
        package var measure: String
        /// The median of the first third after the warm-up, in bytes.
        package var early: Int
        /// The median of the last third, in bytes.
        package var late: Int
        /// How much `late` may exceed `early`, in bytes.
        package var allowance: Int
        /// The line fitted after the warm-up; for `heap` and `anon`.
        package var slope: Slope?
        /// Whether memory jumped by more than the allowance.
        package var grew: Bool { late - early > allowance }
        /// Whether memory climbed steadily faster than the rule allows.
        package var climbs: Bool { slope?.climbs ?? false }
    }

    /// The verdicts, one per measure the samples carry; empty when there are too few samples.
    package func evaluate(_ samples: [MemorySample]) -> [Verdict] {
        let settled = samples.filter { $0.elapsed >= warmUp }
        guard settled.count >= minimumSamples else { return [] }
        let third = settled.count / 3
        let early = settled.prefix(third)
        let late = settled.suffix(third)
        var verdicts: [Verdict] = []
        let measures = [
            ("heap", \MemorySample.heapBytes, true), ("anon", \MemorySample.anonymousBytes, true),
            ("rss", \MemorySample.residentBytes, false),
        ]
        for (measure, value, fitted) in measures {
            guard let before = Self.median(early.compactMap { $0[keyPath: value] }),
                let after = Self.median(late.compactMap { $0[keyPath: value] })
            else { continue }
            let allowance = max(absoluteTolerance, Int(Double(before) * relativeTolerance))
            var verdict = Verdict(measure: measure, early: before, late: after, allowance: allowance)
            if fitted {
                let points = settled.compactMap { sample in sample[keyPath: value].map { (sample.elapsed, Double($0)) } }
                verdict.slope = Slope(fitting: points, bound: maximumSlope, minimumSpan: minimumSlopeSpan)
            }
            verdicts.append(verdict)
        }
        return verdicts
    }

    static func median(_ values: [Int]) -> Int? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
