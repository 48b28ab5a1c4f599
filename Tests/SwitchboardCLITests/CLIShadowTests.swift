import ArgumentParser
import DequeModule
import Foundation
import LegacyServerHarness
import Logging
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardTesting
import Testing

@testable import switchboard

@Suite("switchboard shadow", .timeLimit(.minutes(2)))
struct CLIShadowTests {
    static let configuration = SwitchboardEmulator.Configuration(
        port: 0, auth: .init(apiKeys: ["k"]), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))

    /// One event for each of the nine per-channel streams of user u1 in organization o1.
    static let events: [(channel: String, event: String)] = [
        ("device/presenceChanged", #"{"eventType":"device/presenceChanged","timestamp":"2026-11-22T10:00:00.000Z","siteId":"s1","thingName":"cam","online":true}"#),
        ("device/recordingStateChanged", #"{"eventType":"device/recordingStateChanged","timestamp":"2026-11-22T10:00:00.000Z","thingName":"cam","recording":true}"#),
        ("device/firmwareUpdated", #"{"eventType":"device/firmwareUpdated","timestamp":"2026-11-22T10:00:00.000Z","thingName":"cam","fwUpdateState":3}"#),
        ("archive/stateChanged", #"{"eventType":"archive/stateChanged","timestamp":"2026-11-22T10:00:00.000Z","archiveId":"a1","status":"Ready","videoSize":3000000000}"#),
        ("organization/licensePhaseChanged", #"{"eventType":"organization/licensePhaseChanged","timestamp":"2026-11-22T10:00:00.000Z","orgId":"o1","licensePhase":"Valid"}"#),
        ("organization/planChanged", #"{"eventType":"organization/planChanged","timestamp":"2026-11-22T10:00:00.000Z","orgId":"o1","isFreePlan":false}"#),
        ("organization/aiSettingsChanged", #"{"eventType":"organization/aiSettingsChanged","timestamp":"2026-11-22T10:00:00.000Z","orgId":"o1","aiControlSetting":{"uuid":"x","termsAgreement":true,"options":[{"key":"k","enabled":true}]}}"#),
        ("roleChanged", #"{"eventType":"user/roleChanged","timestamp":"2026-11-22T10:00:00.000Z","reason":"promoted"}"#),
        ("tokenRevoked", #"{"eventType":"user/tokenRevoked","timestamp":"2026-11-22T10:00:00.000Z","userId":"u1","revokedAt":"2026-11-22T10:00:00.000Z","reason":"PASSWORD_CHANGED"}"#),
    ]

    static func publishAll(_ emulator: SwitchboardEmulator) throws {
        for (channel, event) in events { try emulator.publish(channel: "vortex-app/user/u1/\(channel)", event: event) }
    }

    static func arguments(_ endpoints: SwitchboardEmulator.Endpoints) -> [String] {
        ["--graphql-url", endpoints.graphQLURL, "--appsync-url", endpoints.realtimeURL, "--auth", "api-key:k",
         "--user-id", "u1", "--org-id", "o1"]
    }

    /// Waits until both sides hold their subscriptions: five legacy root fields, five AppSync
    /// channels (two family wildcards and three exact channels).
    static func subscribed(_ emulator: SwitchboardEmulator) async throws {
        while emulator.subscriptionCount < 10 { try await Task.sleep(for: .milliseconds(10)) }
    }

    static func waitFor(_ run: ShadowRun, _ condition: (ShadowSnapshot) -> Bool) async throws -> ShadowSnapshot {
        while true {
            let snapshot = run.snapshot()
            if condition(snapshot) { return snapshot }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test("the matcher pairs by stream and content, copy by copy, and counts what waited past the window")
    func matcher() {
        var matcher = ShadowMatcher(window: .seconds(5), streams: ["role"])
        #expect(matcher.receive(.legacy, stream: "role", content: "a", at: .seconds(1)) == nil)
        #expect(matcher.receive(.legacy, stream: "role", content: "a", at: .seconds(2)) == nil)
        #expect(matcher.receive(.appsync, stream: "role", content: "a", at: .milliseconds(1500))
            == .matched(stream: "role", difference: .milliseconds(500)))
        #expect(matcher.receive(.appsync, stream: "plan", content: "a", at: .seconds(2)) == nil, "another stream never matches")
        #expect(matcher.receive(.appsync, stream: "role", content: "b", at: .seconds(3)) == nil, "other content never matches")
        #expect(matcher.expire(now: .seconds(7)).isEmpty, "nothing has waited more than 5 s")
        let expired = matcher.expire(now: .milliseconds(8001))
        #expect(expired.count == 3)
        #expect(matcher.figures["role"] == .init(matched: 1, onlyLegacy: 1, onlyAppSync: 1, differences: [.milliseconds(500)]))
        #expect(matcher.figures["plan"]?.onlyAppSync == 1)
        #expect(matcher.divergence == 0.75)
        #expect(matcher.receive(.appsync, stream: "role", content: "a", at: .seconds(9)) == nil, "an expired twin is gone")
    }

    @Test("one bus feeds both sides: a clean run matches every event on every stream")
    func cleanRun() async throws {
        try await withRunningEmulator(configuration: Self.configuration) { emulator, endpoints in
            let run = try ShadowCommand.parse(Self.arguments(endpoints)).makeRun(console: .shared, clock: ManualClock())
            let running = Task { try await run.run { _ in true } }
            try await Self.subscribed(emulator)
            try Self.publishAll(emulator)
            try Self.publishAll(emulator)
            let snapshot = try await Self.waitFor(run) { $0.total.matched == 18 }
            run.stop()
            _ = try await running.value
            #expect(snapshot.rows.map(\.stream) == StreamName.perChannel.map(\.rawValue))
            #expect(snapshot.rows.allSatisfy { $0.matched == 2 && $0.onlyLegacy == 0 && $0.onlyAppSync == 0 }, "\(snapshot.text)")
            #expect(snapshot.total.pendingLegacy == 0 && snapshot.total.pendingAppSync == 0)
            #expect(snapshot.divergence == 0)
            #expect(snapshot.total.differenceP50 != nil)
        }
    }

    @Test("a fault that drops one side's events shows up as divergence on exactly that side", arguments: TransportKind.builtIn)
    func faultedSide(dropped: TransportKind) async throws {
        try await withRunningEmulator(configuration: Self.configuration) { emulator, endpoints in
            let clock = ManualClock()
            let run = try ShadowCommand.parse(Self.arguments(endpoints) + ["--match-window", "5"]).makeRun(console: .shared, clock: clock)
            let running = Task { try await run.run { _ in true } }
            try await Self.subscribed(emulator)
            emulator.dropEvents(to: dropped)
            try Self.publishAll(emulator)
            let arrived: ShadowSide = dropped == .graphql ? .appsync : .legacy
            _ = try await Self.waitFor(run) { ($0.total.pendingAppSync + $0.total.pendingLegacy) == 9 }
            clock.advance(by: .seconds(6))
            let snapshot = run.snapshot()
            run.stop()
            _ = try await running.value
            for row in snapshot.rows {
                #expect(row.matched == 0, "\(snapshot.text)")
                #expect(arrived == .appsync ? (row.onlyAppSync == 1 && row.onlyLegacy == 0) : (row.onlyLegacy == 1 && row.onlyAppSync == 0),
                        "\(snapshot.text)")
            }
            #expect(snapshot.divergence == 1)
        }
    }

    @Test("shadow serves the figures for Prometheus, prints summaries, and stops cleanly on SIGINT")
    func metricsEndpoint() async throws {
        try await withRunningEmulator(configuration: Self.configuration) { emulator, endpoints in
            let cli = try await CLIProcess(["shadow"] + Self.arguments(endpoints) + ["--metrics-port", "0", "--interval", "0.5"])
            var metricsURL: URL?
            for count in 1...100 where metricsURL == nil {
                let lines = await cli.lines(atLeast: count)
                metricsURL = lines.first { $0.hasPrefix("metrics: ") }.flatMap { URL(string: String($0.dropFirst("metrics: ".count))) }
                if lines.count < count { break }
            }
            let url = try #require(metricsURL)
            #expect(url.host == "127.0.0.1")
            try await Self.subscribed(emulator)
            for reason in ["a", "b", "c"] {
                try emulator.publish(
                    channel: "vortex-app/user/u1/roleChanged", event: #"{"eventType":"user/roleChanged","reason":"\#(reason)"}"#)
            }
            var body = ""
            while !body.contains(#"switchboard_shadow_events_total{stream="role",result="matched"} 3"#) {
                try await Task.sleep(for: .milliseconds(20))
                body = try await LoopbackHTTP.request(url).text
            }
            #expect(body.contains(#"switchboard_shadow_events_total{stream="role",result="only_appsync"} 0"#))
            #expect(body.contains("switchboard_shadow_divergence_ratio 0"))
            #expect(body.contains(#"switchboard_shadow_connected{side="legacy"} 1"#))
            #expect(body.contains(#"switchboard_shadow_latency_difference_seconds{stream="role",quantile="0.99"}"#))
            cli.interrupt()
            let result = await cli.finish()
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(result.out.contains { $0.hasPrefix("final shadow after") })
        }
    }

    @Test("--max-divergence exits 1 once the unmatched share exceeds the bound")
    func maxDivergence() async throws {
        try await withRunningEmulator(configuration: Self.configuration) { emulator, endpoints in
            let cli = try await CLIProcess(["shadow"] + Self.arguments(endpoints) + [
                "--streams", "role", "--match-window", "0.3", "--interval", "0.3", "--max-divergence", "0.5", "--min-events", "3",
            ])
            while emulator.subscriptionCount < 2 { try await Task.sleep(for: .milliseconds(10)) }
            emulator.dropEvents(to: .graphql)
            for reason in ["a", "b", "c"] {
                try emulator.publish(
                    channel: "vortex-app/user/u1/roleChanged", event: #"{"eventType":"user/roleChanged","reason":"\#(reason)"}"#)
            }
            let result = await cli.finish()
            #expect(result.status == 1, "stdout: \(result.out) stderr: \(result.err)")
            let row = try #require(result.out.last { $0.hasPrefix("role ") }).split(separator: " ")
            #expect(row.prefix(4) == ["role", "0", "0", "3"], "matched 0, only legacy 0, only appsync 3")
            #expect(result.err.contains("exceeds --max-divergence 0.5"), "\(result.err)")
        }
    }
}
