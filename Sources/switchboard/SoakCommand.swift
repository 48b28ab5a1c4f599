import ArgumentParser
import Foundation
import SwitchboardSoak

/// `switchboard soak`: the chaos soak (issue 8).
struct SoakCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Publish through the emulator under random faults and check that every event arrives once.",
        discussion: """
            Runs the emulator as a child `switchboard serve` on 127.0.0.1 (stopped when the soak \
            ends), so the memory it reports is the client's alone; --emulator in-process keeps it in \
            this process (memory then mixes both), --emulator-url uses one already running. Against \
            it runs a BackendNotifier with catch-up on the chosen transport, with one consumer per stream (the nine of them), while publishing at \
            --rate and injecting faults drawn from --seed: drops, aborts, stalls, garbage frames, \
            auth rejections and frame latency. When the duration is up the faults stop, one more \
            round is published, and the soak waits for delivery to finish. It prints events \
            published, delivered, missing, duplicated and reordered per stream, reconnects, errors \
            by code and memory over time, and exits non-zero on any missing, duplicated, reordered \
            or unrecognised event, or memory growth after the warm-up: a jump of the median, or a \
            least-squares slope sustained above --max-memory-slope (judged on runs of 5 minutes or \
            more after the warm-up; the rule is in the output) of malloc's bytes in use or of \
            anonymous memory. Before each sample malloc gives its free pages back to the kernel \
            (glibc's malloc_trim), so anonymous memory counts what the client uses, not what glibc \
            keeps for later; --keep-free-pages reads it as it comes. Faults reach \
            an emulator in another process through its POST /control endpoints, and events through \
            its batch route POST /events (every 20 ms what fell due, in order, on one kept-alive \
            connection). Exactly --rate × --duration events are published, then one more round; the \
            report says how far the publisher ever fell behind its schedule.

            Examples:
              switchboard soak --duration 5m --rate 500 --transport appsync --seed 7
              switchboard soak --duration 90s --transport graphql-transport-ws --faults drop,stall
              switchboard soak --duration 30s --no-catch-up     # shows what gaps lose
              switchboard serve --port 8080 --api-key soak-api-key --ka-interval 1 &
              switchboard soak --emulator-url http://127.0.0.1:8080
            """)

    @Option(help: "How long to publish under faults: 90s, 5m, 1h or plain seconds.")
    var duration = "60s"

    @Option(help: "Events published per second, over the nine streams in turn.")
    var rate = 500

    @Option(help: "appsync, graphql-ws (or graphql), graphql-transport-ws or appsync-graphql.")
    var transport = "appsync"

    @Option(help: "Seeds the fault plan (default: random, printed).")
    var seed: UInt64?

    @Option(help: "Faults to inject: all, none, or a list of drop, abort, stall, garbage, auth, latency.")
    var faults = "all"

    @Flag(name: .customLong("no-catch-up"), help: "Run the notifier without catch-up (gaps then lose events).")
    var noCatchUp = false

    @Option(help: "Seconds between memory samples and progress lines.")
    var sampleInterval: Double = 5

    @Option(help: "Seconds before memory is judged (default: a quarter of the duration, at least 30).")
    var warmUp: Double?

    @Option(help: "Seconds delivery may take to finish after publishing stopped.")
    var quiesceTimeout: Double = 60

    @Option(help: "Where the emulator runs: child (a child `switchboard serve`, the default) or in-process.")
    var emulator = "child"

    @Option(name: .customLong("emulator-url"), help: "Use an emulator already running at http://127.0.0.1:<port> (serve it with --api-key soak-api-key --ka-interval 1).")
    var emulatorURL: String?

    @Option(name: .customLong("max-memory-slope"), help: "The steepest sustained growth of malloc's bytes in use and of anonymous memory allowed after the warm-up, in MiB per hour.")
    var maxMemorySlope: Double = 2

    @Flag(name: .customLong("keep-free-pages"), help: "Read memory without asking malloc to give its free pages back first.")
    var keepFreePages = false

    @Option(name: .customLong("clock-offset"), help: "Run the client's wall clock this far from this machine's: +5s, 500ms, or --clock-offset=-300s (a negative value needs the '='); the emulator's stays.")
    var clockOffset: String?

    @Option(name: .customLong("clock-jump"), help: "Jump the client's wall clock during the run: <by>@<at>, such as --clock-jump=-5m@30s (back five minutes, 30 s in) or +1h@2m.")
    var clockJump: String?

    @Option(name: .customLong("emulator-clock-offset"), help: "Run the emulator's wall clock this far from this machine's (an emulator the soak starts; --emulator-clock-offset=-5s for a negative value): a client behind the backend.")
    var emulatorClockOffset: String?

    @Flag(help: "Print only the report, not the progress lines.")
    var quiet = false

    func validate() throws {
        _ = try Self.parseDuration(duration)
        guard rate >= 1 else { throw ValidationError("--rate must be at least 1") }
        guard sampleInterval > 0, quiesceTimeout > 0 else {
            throw ValidationError("--sample-interval and --quiesce-timeout must be positive")
        }
        guard ["child", "in-process"].contains(emulator) else { throw ValidationError("--emulator must be child or in-process") }
        if let emulatorURL, URL(string: emulatorURL)?.port == nil {
            throw ValidationError("--emulator-url must be http://127.0.0.1:<port>, as `switchboard serve` prints it")
        }
        guard maxMemorySlope > 0 else { throw ValidationError("--max-memory-slope must be positive") }
        _ = try clocks()
        do {
            _ = try SoakTransport(parsing: transport)
            _ = try ChaosPlan.kinds(parsing: faults)
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run() async throws {
        let console = Console.shared
        var configuration = SoakConfiguration(
            duration: try Self.parseDuration(duration), rate: rate, transport: try SoakTransport(parsing: transport),
            seed: seed ?? UInt64.random(in: 1...999_999))
        configuration.catchUp = !noCatchUp
        configuration.faults = try ChaosPlan.kinds(parsing: faults)
        configuration.sampleInterval = .milliseconds(Int64(sampleInterval * 1000))
        configuration.quiesceTimeout = .milliseconds(Int64(quiesceTimeout * 1000))
        if let warmUp { configuration.memoryTrend?.warmUp = warmUp }
        configuration.memoryTrend?.maximumSlope = maxMemorySlope
        configuration.releaseFreePagesBeforeSampling = !keepFreePages
        configuration.emulator = try emulatorPlacement()
        (configuration.clockOffset, configuration.clockJump, configuration.backendClockOffset) = try clocks()
        if !quiet { configuration.progress = { console.err("soak: \($0)") } }
        console.err(
            "soak: \(configuration.transport), seed \(configuration.seed), \(duration) at \(rate) events/s, faults \(faults), emulator \(emulatorURL ?? emulator)")
        let report = try await SoakRun.run(configuration)
        for line in report.lines() { console.out(line) }
        guard report.passed else { throw ExitCode(1) }
    }

    /// The clock options: the client's offset, its jump, the emulator's offset.
    func clocks() throws -> (Duration, SoakClockJump?, Duration) {
        func signed(_ text: String, _ option: String) throws -> Duration {
            let negative = text.hasPrefix("-")
            let magnitude = negative || text.hasPrefix("+") ? String(text.dropFirst()) : text
            guard let duration = try? Self.parseDuration(magnitude) else {
                throw ValidationError("\(option) takes a signed duration such as +5s, -300s, 500ms or -24h, not '\(text)'")
            }
            return negative ? .zero - duration : duration
        }
        let offset = try clockOffset.map { try signed($0, "--clock-offset") } ?? .zero
        let emulatorOffset = try emulatorClockOffset.map { try signed($0, "--emulator-clock-offset") } ?? .zero
        var jump: SoakClockJump?
        if let clockJump {
            let parts = clockJump.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, let at = try? Self.parseDuration(String(parts[1])) else {
                throw ValidationError("--clock-jump is <by>@<at>, such as -5m@30s, not '\(clockJump)'")
            }
            jump = SoakClockJump(by: try signed(String(parts[0]), "--clock-jump"), at: at)
        }
        if emulatorOffset != .zero, emulatorURL != nil {
            throw ValidationError("--emulator-clock-offset moves an emulator the soak starts; an --emulator-url one keeps its own clock (serve it with --clock-offset)")
        }
        return (offset, jump, emulatorOffset)
    }

    /// Where the emulator runs, from --emulator and --emulator-url.
    func emulatorPlacement() throws -> SoakEmulator {
        if let emulatorURL, let url = URL(string: emulatorURL) { return .external(baseURL: url) }
        guard emulator == "child" else { return .inProcess }
        guard let executable = Bundle.main.executableURL else {
            throw CLIError("cannot find this executable to start `switchboard serve`; use --emulator in-process")
        }
        return .child(executable: executable)
    }

    /// Parses `90s`, `5m`, `1h`, `250ms` or plain seconds.
    static func parseDuration(_ text: String) throws -> Duration {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(text)
        var scale = 1.0
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            number = text.dropLast(suffix.count)
            scale = factor
            break
        }
        guard let value = Double(number), value > 0, value.isFinite else {
            throw ValidationError("--duration must be a positive time such as 90s, 5m or 1h, not '\(text)'")
        }
        return .milliseconds(Int64(value * scale * 1000))
    }
}
