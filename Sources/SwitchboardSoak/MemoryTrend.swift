import Foundation

/// One reading of the process's memory, from `/proc/self/status` (nil where there is none).
package struct MemorySample: Sendable, Equatable {
    /// Seconds since the soak started.
    package var elapsed: Double
    /// Resident set size in bytes (`VmRSS`).
    package var residentBytes: Int?
    /// Resident anonymous memory in bytes (`RssAnon`): the heap and stacks, without mapped
    /// files, so the closest procfs gets to what malloc holds.
    package var anonymousBytes: Int?

    package init(elapsed: Double, residentBytes: Int?, anonymousBytes: Int?) {
        self.elapsed = elapsed
        self.residentBytes = residentBytes
        self.anonymousBytes = anonymousBytes
    }

    /// Reads the current process.
    package static func read(elapsed: Double) -> MemorySample {
        // procfs files report a size of zero: read to the end rather than by size.
        guard let file = FileHandle(forReadingAtPath: "/proc/self/status"),
            let data = try? file.readToEnd(), let status = String(data: data, encoding: .utf8)
        else {
            return MemorySample(elapsed: elapsed, residentBytes: nil, anonymousBytes: nil)
        }
        return MemorySample(
            elapsed: elapsed, residentBytes: kibibytes("VmRSS:", in: status).map { $0 * 1024 },
            anonymousBytes: kibibytes("RssAnon:", in: status).map { $0 * 1024 })
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
/// the notifier's remembered deliveries fill up then. The rest is cut in thirds, and the median
/// of the last third is compared with the median of the first: memory grew when the difference
/// exceeds ``relativeTolerance`` of the early median or ``absoluteTolerance``, whichever is
/// larger. Medians shrug off a single spike (a catch-up's batch, a backlog after a stall); a leak
/// of a few bytes per event over hundreds of thousands of events does not fit in the tolerance.
/// Applied to both the anonymous and the whole resident size.
package struct MemoryTrend: Sendable, Equatable {
    package var warmUp: Double
    package var relativeTolerance: Double
    package var absoluteTolerance: Int
    /// Fewer samples after the warm-up than this gives no verdict.
    package var minimumSamples: Int

    package init(warmUp: Double, relativeTolerance: Double = 0.10, absoluteTolerance: Int = 16 << 20, minimumSamples: Int = 6) {
        self.warmUp = warmUp
        self.relativeTolerance = relativeTolerance
        self.absoluteTolerance = absoluteTolerance
        self.minimumSamples = minimumSamples
    }

    /// The comparison for one measure.
    package struct Verdict: Sendable, Equatable {
        package var measure: String
        package var early: Int
        package var late: Int
        package var allowance: Int
        package var grew: Bool { late - early > allowance }
    }

    /// The verdicts, one per measure the samples carry; empty when there are too few samples.
    package func evaluate(_ samples: [MemorySample]) -> [Verdict] {
        let settled = samples.filter { $0.elapsed >= warmUp }
        guard settled.count >= minimumSamples else { return [] }
        let third = settled.count / 3
        let early = settled.prefix(third)
        let late = settled.suffix(third)
        var verdicts: [Verdict] = []
        for (measure, value) in [("anon", \MemorySample.anonymousBytes), ("rss", \MemorySample.residentBytes)] {
            guard let before = Self.median(early.compactMap { $0[keyPath: value] }),
                let after = Self.median(late.compactMap { $0[keyPath: value] })
            else { continue }
            let allowance = max(absoluteTolerance, Int(Double(before) * relativeTolerance))
            verdicts.append(Verdict(measure: measure, early: before, late: after, allowance: allowance))
        }
        return verdicts
    }

    static func median(_ values: [Int]) -> Int? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
