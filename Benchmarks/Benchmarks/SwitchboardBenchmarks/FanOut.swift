import Benchmark
import Foundation
import NIOConcurrencyHelpers
import Switchboard

enum FanOutMetric {
    static let perDispatch = BenchmarkMetric.custom("ns per dispatch", polarity: .prefersSmaller, useScalingFactor: false)
    static let perDelivery = BenchmarkMetric.custom("ns per delivery", polarity: .prefersSmaller, useScalingFactor: false)
}

/// `EventBroker.publish` with 1 and 100 subscribers of the published type: handler subscribers
/// (called on the publishing thread) and stream subscribers (`events(of:)`, the path every
/// `BackendNotifier` consumer takes; a consumer task drains each stream).
func registerFanOut() {
    let metrics = [FanOutMetric.perDispatch, FanOutMetric.perDelivery, .wallClock]
    for subscribers in [1, 100] {
        Benchmark(
            "Fan-out handlers x\(subscribers)",
            configuration: .init(metrics: metrics, scalingFactor: .kilo, maxDuration: .seconds(3), maxIterations: 1_000)
        ) { benchmark, broker in
            let clock = ContinuousClock()
            let began = clock.now
            for _ in benchmark.scaledIterations {
                broker.publish(RoleChangeOutput(reason: "promoted"))
            }
            let elapsed = began.duration(to: clock.now)
            FanOut.record(benchmark, elapsed: elapsed, dispatches: benchmark.scaledIterations.count, subscribers: subscribers)
        } setup: {
            FanOut.handlerBroker(subscribers: subscribers)
        }

        Benchmark(
            "Fan-out streams x\(subscribers)",
            configuration: .init(metrics: metrics, scalingFactor: .kilo, maxDuration: .seconds(3), maxIterations: 200)
        ) { benchmark in
            let broker = EventBroker(configuration: .init(historyCapacity: 0))
            let dispatches = benchmark.scaledIterations.count
            let elapsed = try await withThrowingTaskGroup(of: Void.self) { group in
                var ready: [EventStream<EventRecord<RoleChangeOutput>>] = []
                for _ in 0..<subscribers { ready.append(broker.events(of: RoleChangeOutput.self)) }
                for stream in ready {
                    group.addTask {
                        var seen = 0
                        for await _ in stream {
                            seen += 1
                            if seen == dispatches { return }
                        }
                    }
                }
                benchmark.startMeasurement()
                let clock = ContinuousClock()
                let began = clock.now
                for _ in benchmark.scaledIterations {
                    broker.publish(RoleChangeOutput(reason: "promoted"))
                }
                let elapsed = began.duration(to: clock.now)
                benchmark.stopMeasurement()
                try await group.waitForAll()
                return elapsed
            }
            FanOut.record(benchmark, elapsed: elapsed, dispatches: dispatches, subscribers: subscribers)
        }
    }
}

enum FanOut {
    /// Keeps the subscription tokens alive as long as the broker.
    final class Handlers: Sendable {
        let broker: EventBroker
        let tokens: [EventSubscription]
        let delivered = NIOLockedValueBox(0)
        init(subscribers: Int) {
            broker = EventBroker(configuration: .init(historyCapacity: 0))
            var tokens: [EventSubscription] = []
            let delivered = self.delivered
            for _ in 0..<subscribers {
                tokens.append(broker.subscribe(RoleChangeOutput.self) { _ in delivered.withLockedValue { $0 += 1 } })
            }
            self.tokens = tokens
        }
        func publish(_ event: RoleChangeOutput) { broker.publish(event) }
    }

    static func handlerBroker(subscribers: Int) -> Handlers { Handlers(subscribers: subscribers) }

    static func record(_ benchmark: Benchmark, elapsed: Duration, dispatches: Int, subscribers: Int) {
        let nanoseconds = elapsed.seconds * 1e9
        Report.record(benchmark, FanOutMetric.perDispatch, Int((nanoseconds / Double(dispatches)).rounded()))
        Report.record(benchmark, FanOutMetric.perDelivery, Int((nanoseconds / Double(dispatches * subscribers)).rounded()))
    }
}
