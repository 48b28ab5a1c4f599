import CoreMetrics
import SwitchboardCore

/// The counters the notifier reports during a soak, kept so the report can say what the
/// client's bounds dropped (catch-up evictions, consumer drops). Other metrics go nowhere.
final class SoakMetrics: MetricsFactory, Sendable {
    private let counts = LockedValue<[String: Int64]>([:])

    /// The total of every counter whose label is `label`, by the value of its `dimension`.
    func totals(of label: String, by dimension: String) -> [String: Int64] {
        counts.withLock { counts in
            var totals: [String: Int64] = [:]
            for (key, value) in counts where value > 0 {
                let parts = key.split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
                guard parts.first == label else { continue }
                let name = parts.dropFirst().first { $0.hasPrefix(dimension + "=") }.map { String($0.dropFirst(dimension.count + 1)) }
                totals[name ?? "", default: 0] += value
            }
            return totals
        }
    }

    private final class Count: CounterHandler, Sendable {
        let key: String
        let counts: LockedValue<[String: Int64]>
        init(key: String, counts: LockedValue<[String: Int64]>) {
            self.key = key
            self.counts = counts
        }
        func increment(by amount: Int64) { counts.withLock { $0[key, default: 0] += amount } }
        func reset() { counts.withLock { $0[key] = 0 } }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        let key = ([label] + dimensions.map { "\($0.0)=\($0.1)" }).joined(separator: "\u{1}")
        return Count(key: key, counts: counts)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        NOOPMetricsHandler.instance
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { NOOPMetricsHandler.instance }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
}
