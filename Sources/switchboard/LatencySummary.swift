import Foundation

/// Percentiles of a set of latencies, for the demo's summary.
struct LatencySummary: Sendable, Equatable {
    var count: Int
    var p50: Duration
    var p99: Duration
    var max: Duration

    /// Nearest-rank percentiles of `samples`; nil when there are none.
    init?(_ samples: [Duration]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func rank(_ percentile: Double) -> Duration {
            // Nearest rank: the smallest value with at least `percentile` of samples at or below it.
            let index = Int((percentile / 100 * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
        }
        count = sorted.count
        p50 = rank(50)
        p99 = rank(99)
        max = sorted[sorted.count - 1]
    }

    /// A duration in milliseconds with two decimals, as the summary prints it.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let ms = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return String(format: "%.2f ms", ms)
    }
}
