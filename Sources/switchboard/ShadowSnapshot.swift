import Foundation
import SwitchboardCore

/// The figures of a dual run at one moment: what the terminal summary prints and the metrics
/// endpoint serves.
struct ShadowSnapshot: Sendable {
    /// One stream's row.
    struct Row: Sendable, Equatable {
        var stream: String
        var matched: Int
        var onlyLegacy: Int
        var onlyAppSync: Int
        var pendingLegacy: Int
        var pendingAppSync: Int
        /// AppSync Events arrival minus legacy arrival, over the recent matched events.
        var differenceP50: Duration?
        var differenceP99: Duration?

        /// Every judged event: matched pairs count once.
        var judged: Int { matched + onlyLegacy + onlyAppSync }
    }

    /// The time since the run started.
    var elapsed: Duration
    /// One row per stream, in the order of the run's streams, then any other that had events.
    var rows: [Row]
    /// The totals (their percentiles are over every stream's recent differences).
    var total: Row
    /// Each side's last connection state.
    var connection: [ShadowSide: ConnectionState]
    /// Each side's endpoint, for the header.
    var endpoints: [ShadowSide: String]

    init(
        elapsed: Duration, streams: [String], matcher: ShadowMatcher, connection: [ShadowSide: ConnectionState],
        endpoints: [ShadowSide: String]
    ) {
        self.elapsed = elapsed
        self.connection = connection
        self.endpoints = endpoints
        let names = streams + matcher.figures.keys.filter { !streams.contains($0) }.sorted()
        rows = names.map { name in
            let figures = matcher.figures[name] ?? ShadowMatcher.StreamFigures()
            return Row(
                stream: name, matched: figures.matched, onlyLegacy: figures.onlyLegacy, onlyAppSync: figures.onlyAppSync,
                pendingLegacy: matcher.pendingCount(.legacy, stream: name),
                pendingAppSync: matcher.pendingCount(.appsync, stream: name),
                differenceP50: figures.difference(percentile: 50), differenceP99: figures.difference(percentile: 99))
        }
        var all = ShadowMatcher.StreamFigures()
        for figures in matcher.figures.values { all.differences.append(contentsOf: figures.differences) }
        let sum = matcher.total
        total = Row(
            stream: "total", matched: sum.matched, onlyLegacy: sum.onlyLegacy, onlyAppSync: sum.onlyAppSync,
            pendingLegacy: matcher.pendingCount(.legacy), pendingAppSync: matcher.pendingCount(.appsync),
            differenceP50: all.difference(percentile: 50), differenceP99: all.difference(percentile: 99))
    }

    /// The share of judged events that found no twin (0…1), 0 when none was judged.
    var divergence: Double {
        total.judged == 0 ? 0 : Double(total.onlyLegacy + total.onlyAppSync) / Double(total.judged)
    }

    /// The summary as the terminal shows it.
    var text: String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var lines = [
            "shadow after \(Int(seconds.rounded())) s: legacy \(Self.state(connection[.legacy])) (\(endpoints[.legacy] ?? "?")), "
                + "appsync \(Self.state(connection[.appsync])) (\(endpoints[.appsync] ?? "?"))",
        ]
        let header = ["stream", "matched", "only legacy", "only appsync", "pending", "Δp50", "Δp99"]
        let width = max(15, rows.map(\.stream.count).max() ?? 0)
        func line(_ cells: [String]) -> String {
            cells[0].padding(toLength: width, withPad: " ", startingAt: 0)
                + cells.dropFirst().map { String(repeating: " ", count: max(0, 14 - $0.count)) + $0 }.joined()
        }
        lines.append(line(header))
        for row in rows + [total] {
            lines.append(line([
                row.stream, "\(row.matched)", "\(row.onlyLegacy)", "\(row.onlyAppSync)",
                "\(row.pendingLegacy + row.pendingAppSync)", Self.signed(row.differenceP50), Self.signed(row.differenceP99),
            ]))
        }
        lines.append(
            "divergence \(String(format: "%.1f", divergence * 100))% of \(total.judged) judged events "
                + "(Δ = AppSync Events arrival − legacy arrival)")
        return lines.joined(separator: "\n")
    }

    private static func state(_ state: ConnectionState?) -> String { state.map { "\($0)" } ?? "starting" }

    /// `+1.25 ms`, `-0.40 ms` or `-`.
    static func signed(_ duration: Duration?) -> String {
        guard let duration else { return "-" }
        return String(format: "%+.2f ms", duration.inMilliseconds)
    }
}
