import Benchmark
import SwitchboardCore

/// Every benchmark of issues 7 and 8. Each iteration of the socket benchmarks is a complete run
/// (server, clients, measurement, shutdown); their figures are custom metrics, recorded once per
/// iteration, so the percentiles the tool prints are across iterations.
let benchmarks: @Sendable () -> Void = {
    // Started again as a sender (the throughput's and the flood's), this process sends and exits here.
    SenderProcess.runIfAsked()
    Benchmark.defaultConfiguration = .init(
        metrics: [], timeUnits: .microseconds, warmupIterations: 0, maxDuration: .seconds(30), maxIterations: 3)
    registerThroughput()
    registerFanOut()
    registerLatency()
    registerRecovery()
    registerMemory()
    registerCatchUp()
    registerResume()
    registerFlood()
}
