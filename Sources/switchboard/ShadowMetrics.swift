import Foundation
import Hummingbird
import Logging
import NIOCore
import Prometheus
import SwitchboardCore

/// The figures of a dual run in the Prometheus text format, for a long-running canary
/// (`switchboard shadow --metrics-port P`). Each scrape takes a fresh ``ShadowSnapshot``.
///
/// | metric | labels | meaning |
/// |---|---|---|
/// | `switchboard_shadow_events_total` (counter) | `stream`, `result` = `matched`, `only_legacy`, `only_appsync` | judged events; a matched pair counts once |
/// | `switchboard_shadow_pending_events` (gauge) | `stream`, `side` | events still waiting for their twin |
/// | `switchboard_shadow_latency_difference_seconds` (gauge) | `stream`, `quantile` = `0.5`, `0.99` | AppSync Events arrival minus legacy arrival over the recent matched events |
/// | `switchboard_shadow_divergence_ratio` (gauge) | | the share of judged events without a twin |
/// | `switchboard_shadow_connected` (gauge) | `side` | 1 while that side is connected |
final class ShadowMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    /// The counters' values already exported, by metric key: counters only go up by the change.
    private let exported = LockedValue<[String: Int]>([:])

    /// Brings every metric up to `snapshot` and returns the exposition text.
    func exposition(of snapshot: ShadowSnapshot) -> String {
        update(from: snapshot)
        return registry.emitToString()
    }

    /// Brings every metric up to `snapshot`.
    func update(from snapshot: ShadowSnapshot) {
        for row in snapshot.rows {
            for (result, value) in [("matched", row.matched), ("only_legacy", row.onlyLegacy), ("only_appsync", row.onlyAppSync)] {
                let counter = registry.makeCounter(
                    descriptor: Self.events, labels: [("stream", row.stream), ("result", result)])
                let delta = exported.withLock { exported -> Int in
                    let key = "\(row.stream)/\(result)"
                    defer { exported[key] = value }
                    return value - (exported[key] ?? 0)
                }
                if delta > 0 { counter.increment(by: Int64(delta)) }
            }
            for (side, value) in [("legacy", row.pendingLegacy), ("appsync", row.pendingAppSync)] {
                registry.makeGauge(descriptor: Self.pending, labels: [("stream", row.stream), ("side", side)]).set(to: Double(value))
            }
            for (quantile, value) in [("0.5", row.differenceP50), ("0.99", row.differenceP99)] {
                guard let value else { continue }
                registry.makeGauge(descriptor: Self.difference, labels: [("stream", row.stream), ("quantile", quantile)])
                    .set(to: value.inMilliseconds / 1000)
            }
        }
        registry.makeGauge(descriptor: Self.divergence).set(to: snapshot.divergence)
        for side in ShadowSide.allCases {
            let connected = snapshot.connection[side] == .connected
            registry.makeGauge(descriptor: Self.connected, labels: [("side", side.rawValue)]).set(to: connected ? 1.0 : 0.0)
        }
    }

    private static var events: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "switchboard", subsystem: "shadow", metricName: "events", unitName: "total",
            helpText: "Events judged by the dual run: matched pairs (counted once) and events only on one side.")
    }
    private static var pending: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "switchboard", subsystem: "shadow", metricName: "pending", unitName: "events",
            helpText: "Events still waiting for their twin from the other side.")
    }
    private static var difference: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "switchboard", subsystem: "shadow", metricName: "latency_difference", unitName: "seconds",
            helpText: "AppSync Events arrival minus legacy arrival over recent matched events.")
    }
    private static var divergence: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "switchboard", subsystem: "shadow", metricName: "divergence", unitName: "ratio",
            helpText: "The share of judged events that found no twin.")
    }
    private static var connected: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "switchboard", subsystem: "shadow", metricName: "connected", unitName: "",
            helpText: "1 while the side is connected.")
    }
}

/// Serves `GET /metrics` on 127.0.0.1 until the calling task is cancelled.
enum MetricsEndpoint {
    /// - Parameters:
    ///   - port: The port on 127.0.0.1; 0 picks a free one.
    ///   - text: The exposition text for one scrape.
    ///   - onStart: Called with the bound port once it listens.
    /// - Throws: If the port cannot be bound.
    static func serve(
        port: Int, text: @escaping @Sendable () -> String, onStart: @escaping @Sendable (Int) async -> Void
    ) async throws {
        let router = Router()
        router.get("metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: text())))
        }
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "switchboard-shadow"),
            onServerRunning: { channel in await onStart(channel.localAddress?.port ?? port) },
            logger: Logger(label: "switchboard.shadow.metrics", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await app.run()
    }
}
