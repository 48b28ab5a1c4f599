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
/// - `waiting`: nothing tells the notifier; the AppSync Events transport notices only when the
///   keep-alive window it was given (`connectionTimeoutMs`, shortened here to 3 s; 300 s on the
///   real service) ends, then waits the reconnect delay (1 s here). This is the figure before
///   `suspend()`/`resume()` existed.
///
/// Both use a real clock and a reconnect delay of 1 s; the events are published every 5 ms
/// from the moment the stall begins.
func registerResume() {
    for (name, callsResume) in [("resume()", true), ("waiting for the keep-alive window", false)] {
        Benchmark(
            "Resume appsync after a stall, \(name)",
            configuration: .init(metrics: [ResumeMetric.time], warmupIterations: 0, maxDuration: .seconds(60),
                                 maxIterations: callsResume ? 10 : 3)
        ) { benchmark in
            let time = try await Resume.run(callsResume: callsResume)
            Report.record(benchmark, ResumeMetric.time, Int((time.seconds * 1e3).rounded()))
        }
    }
}

enum Resume {
    static let window = Duration.seconds(3)
    static let reconnectDelay = Duration.seconds(1)

    static func run(callsResume: Bool) async throws -> Duration {
        var configuration = Rig.emulatorConfiguration()
        configuration.connectionTimeoutMs = Int(window.seconds * 1_000)
        configuration.keepAliveInterval = .seconds(1)
        return try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            let notifier = Rig.notifier(.appsync, port: endpoints.port, reconnect: .fixedDelay(reconnectDelay))
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
                if callsResume {
                    await notifier.suspend()
                    await notifier.resume()
                }
                guard await roles.next() != nil else { throw BenchmarkFailure("the role stream ended") }
                return start.duration(to: clock.now)
            }
        }
    }
}
