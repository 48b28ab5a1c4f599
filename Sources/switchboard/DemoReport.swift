import Foundation

/// What the demo saw: events per stream and publish-to-consumer latency.
///
/// Events on one stream arrive in the order they were published (one socket, ordered frames),
/// so the k-th event received on a stream is matched with the k-th published on it; no
/// correlation field is needed in the payloads.
struct DemoReport: Sendable {
    private var published: [StreamName: [ContinuousClock.Instant]] = [:]
    private var received: [StreamName: Int] = [:]
    private(set) var latencies: [Duration] = []
    /// Events that arrived on a stream nothing was published to (should stay 0).
    private(set) var unexpected = 0

    /// Records that an event for `stream` was published at `instant`.
    mutating func published(_ stream: StreamName, at instant: ContinuousClock.Instant) {
        published[stream, default: []].append(instant)
    }

    /// Records that an event arrived on `stream` at `instant`.
    mutating func received(_ stream: StreamName, at instant: ContinuousClock.Instant) {
        let index = received[stream, default: 0]
        guard let sent = published[stream], index < sent.count else {
            unexpected += 1
            return
        }
        received[stream] = index + 1
        latencies.append(sent[index].duration(to: instant))
    }

    var publishedCount: Int { published.values.reduce(0) { $0 + $1.count } }
    var receivedCount: Int { received.values.reduce(0, +) }
    var isComplete: Bool { receivedCount == publishedCount }

    /// The summary table, one line per stream, then totals and latency percentiles.
    func summary() -> [String] {
        var lines = ["stream            published  received"]
        for stream in StreamName.perChannel where published[stream] != nil {
            let name = stream.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)
            let sent = String(published[stream]?.count ?? 0)
            let got = String(received[stream] ?? 0)
            lines.append("\(name)  \(String(repeating: " ", count: max(0, 9 - sent.count)))\(sent)  \(String(repeating: " ", count: max(0, 8 - got.count)))\(got)")
        }
        lines.append("total: \(receivedCount) of \(publishedCount) events received")
        if let latency = LatencySummary(latencies) {
            lines.append(
                "latency publish → consumer: p50 \(LatencySummary.milliseconds(latency.p50)), p99 \(LatencySummary.milliseconds(latency.p99)), max \(LatencySummary.milliseconds(latency.max))")
        }
        return lines
    }
}
