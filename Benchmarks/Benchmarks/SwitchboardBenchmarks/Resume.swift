import Benchmark
import Foundation
import Switchboard
import SwitchboardCore
import SwitchboardEmulator

enum ResumeMetric {
    static let time = BenchmarkMetric.custom("ms to the first event", polarity: .prefersSmaller, useScalingFactor: false)
}

/// The app comes back to a connection whose server went silent (the emulator stalls every open
/// connection for an hour): how long until a consumer receives a newly published event.
///
/// - `resume()`: the app calls `suspend()` then `resume()`; the notifier closes the stalled
///   connection and connects again at once.
/// - `path change`: the network path monitor reports another interface; the notifier checks
///   the connection with a ping that must be answered within `connectionCheckTimeout` (800 ms),
///   and the stalled server does not answer, so it connects again at once.
/// - `waiting`: nothing tells the notifier; the AppSync Events transport notices only when the
///   keep-alive window it was given (`connectionTimeoutMs`, shortened here to 3 s; 300 s on the
///   real service) ends, then waits the reconnect delay (1 s here). This is the figure before
///   `suspend()`/`resume()` existed.
///
/// Both use a real clock and a reconnect delay of 1 s; the events are published every 5 ms
/// from the moment the stall begins.
func registerResume() {
    for (name, trigger) in [
        ("resume()", Resume.Trigger.resume), ("path change", .pathChange), ("waiting for the keep-alive window", .none),
    ] {
        Benchmark(
            "Resume appsync after a stall, \(name)",
            configuration: .init(metrics: [ResumeMetric.time], warmupIterations: 0, maxDuration: .seconds(60),
                                 maxIterations: trigger == .none ? 3 : 10)
        ) { benchmark in
            let time = try await Resume.run(trigger)
            Report.record(benchmark, ResumeMetric.time, Int((time.seconds * 1e3).rounded()))
        }
    }
}

enum Resume {
    static let window = Duration.seconds(3)
    static let reconnectDelay = Duration.seconds(1)

    enum Trigger { case resume, pathChange, none }

    static func run(_ trigger: Trigger) async throws -> Duration {
        var configuration = Rig.emulatorConfiguration()
        configuration.connectionTimeoutMs = Int(window.seconds * 1_000)
        configuration.keepAliveInterval = .seconds(1)
        return try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            let paths = NetworkPathSource(.satisfied(.wifi))
            let notifier = Rig.notifier(
                .appsync, port: endpoints.port, reconnect: .fixedDelay(reconnectDelay),
                configuration: .init(networkPaths: paths))
            return try await Rig.running(notifier) {
                var roles = await notifier.roleValues().makeAsyncIterator()
                try await Rig.wait("the subscription") { emulator.subscriptionCount >= 1 }
                let clock = ContinuousClock()
                guard emulator.stallConnections(for: .seconds(3600)) == 1 else {
                    throw BenchmarkFailure("expected one connection to stall")
                }
                let start = clock.now
                let publisher = Task {
                    var sequence = 0
                    while !Task.isCancelled {
                        sequence += 1
                        _ = try? emulator.publish(
                            channel: "vortex-app/user/\(Rig.userId)/roleChanged",
                            event: #"{"eventType":"user/roleChanged","timestamp":"2026-11-22T10:00:00.000Z","reason":"r\#(sequence)"}"#)
                        try? await Task.sleep(for: .milliseconds(5))
                    }
                }
                defer { publisher.cancel() }
                switch trigger {
                case .resume:
                    await notifier.suspend()
                    await notifier.resume()
                case .pathChange:
                    paths.update(.satisfied(.cellular))
                case .none:
                    break
                }
                guard await roles.next() != nil else { throw BenchmarkFailure("the role stream ended") }
                return start.duration(to: clock.now)
            }
        }
    }
}
