import ArgumentParser
import Foundation
import Switchboard
import Testing

@testable import switchboard

@Suite("CLI parsing and output", .timeLimit(.minutes(1)))
struct CLIParsingTests {
    @Test("stream lists parse in order and reject unknown or repeated names")
    func streamLists() throws {
        #expect(try StreamName.parseList("role,devicePresence") == [.role, .devicePresence])
        #expect(throws: ValidationError.self) { try StreamName.parseList("role,presence") }
        #expect(throws: ValidationError.self) { try StreamName.parseList("role,role") }
        #expect(throws: ValidationError.self) { try StreamName.parseList("") }
        #expect(StreamName.perChannel.count == 9)
        #expect(!StreamName.perChannel.contains(.device))
    }

    @Test("an event line carries the stream name and the event in the new contract's field names")
    func eventLine() throws {
        let event = DeviceStateOutput(orgId: "o1", siteId: "s/1", thingName: "cam", online: true)
        let text = try EventLine(stream: .device, event: event).json()
        #expect(!text.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["stream"] as? String == "device")
        let fields = try #require(object["event"] as? [String: Any])
        #expect(fields["siteId"] as? String == "s/1")
        #expect(fields["deviceGroupID"] == nil)
        #expect(fields["online"] as? Bool == true)
        #expect(text.contains(#""s/1""#), "slashes are not escaped: \(text)")
    }

    @Test("auth specs parse by mode and never print the secret")
    func authSpecs() throws {
        #expect(try AuthSpec(parsing: "api-key:da2-abc") == .apiKey("da2-abc"))
        #expect(try AuthSpec(parsing: "jwt:a.b:c") == .jwt("a.b:c"))
        #expect(try AuthSpec(parsing: "lambda:tok") == .lambda("tok"))
        #expect("\(try AuthSpec(parsing: "jwt:secret-token"))" == "jwt")
        for bad in ["jwt", "jwt:", "basic:x"] {
            #expect(throws: ValidationError.self) { try AuthSpec(parsing: bad) }
        }
        do {
            _ = try AuthSpec(parsing: "bogus:very-secret")
            Issue.record("expected an error")
        } catch {
            #expect(!"\(error)".contains("very-secret"))
        }
    }

    @Test("a config file is read; a missing file or a wrongly typed key is a clear error")
    func configFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sb-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good.json")
        try Data(#"{"transport":"graphql","url":"ws://127.0.0.1:1/graphql","reconnectDelay":0.5,"other":1}"#.utf8).write(to: good)
        #expect(try ConfigFile.load(good.path) == ConfigFile(transport: "graphql", url: "ws://127.0.0.1:1/graphql", reconnectDelay: 0.5))
        #expect(try ConfigFile.load(nil) == ConfigFile())

        let badType = directory.appendingPathComponent("bad.json")
        try Data(#"{"reconnectDelay":"soon"}"#.utf8).write(to: badType)
        do {
            _ = try ConfigFile.load(badType.path)
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("reconnectDelay"))
        }
        #expect(throws: ValidationError.self) { try ConfigFile.load(directory.appendingPathComponent("none.json").path) }
    }

    @Test("latency percentiles use the nearest rank")
    func latency() throws {
        let samples = (1...100).map { Duration.milliseconds($0) }.shuffled()
        let summary = try #require(LatencySummary(samples))
        #expect(summary.count == 100)
        #expect(summary.p50 == .milliseconds(50))
        #expect(summary.p99 == .milliseconds(99))
        #expect(summary.max == .milliseconds(100))
        #expect(LatencySummary([]) == nil)
        #expect(LatencySummary([.milliseconds(7)])?.p99 == .milliseconds(7))
        #expect(LatencySummary.milliseconds(.microseconds(1500)) == "1.50 ms")
    }
}

@Suite("Demo scenario", .timeLimit(.minutes(1)))
struct DemoScenarioTests {
    @Test("nine consecutive events cover the nine streams, each decoding into its typed model")
    func coversEveryType() throws {
        let scenario = DemoScenario(namespace: "vortex-app", userId: "demo-user", orgId: "demo-org")
        let date = Date(timeIntervalSince1970: 1_790_000_000)
        let events = (0..<9).map { scenario.event($0, at: date) }
        #expect(Set(events.map(\.stream)) == Set(StreamName.perChannel))
        for event in events {
            #expect(event.channel.hasPrefix("vortex-app/user/demo-user/"))
            _ = try ChannelPath(event.channel, allowWildcard: false)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(event.payload.utf8)) as? [String: Any])
            #expect(object["timestamp"] as? String == "2026-09-21T14:13:20.000Z")
            #expect((object["eventType"] as? String).map { event.channel.hasSuffix($0) || $0.hasPrefix("user/") } == true)
        }
        let archive = try JSONDecoder().decode(ArchiveStateOutput.self, from: Data(events[3].payload.utf8))
        #expect(archive.videoSize == 3_000_000_000)
        let revoke = try JSONDecoder().decode(UserTokenRevokeOutput.self, from: Data(events[8].payload.utf8))
        #expect(revoke.userId == "demo-user")
        #expect(scenario.event(9, at: date).stream == .devicePresence)
        #expect(scenario.event(9, at: date).payload != events[0].payload)
    }
}

@Suite("Demo report", .timeLimit(.minutes(1)))
struct DemoReportTests {
    @Test("events are matched per stream in order; latency and completeness follow")
    func matching() {
        var report = DemoReport()
        let start = ContinuousClock.now
        report.published(.role, at: start)
        report.published(.role, at: start + .milliseconds(10))
        report.published(.plan, at: start + .milliseconds(20))
        #expect(!report.isComplete)
        report.received(.plan, at: start + .milliseconds(23))
        report.received(.role, at: start + .milliseconds(1))
        report.received(.role, at: start + .milliseconds(15))
        report.received(.license, at: start + .milliseconds(30))
        #expect(report.isComplete)
        #expect(report.unexpected == 1)
        #expect(report.latencies == [.milliseconds(3), .milliseconds(1), .milliseconds(5)])
        let summary = report.summary()
        #expect(summary.contains { $0.hasPrefix("plan") && $0.hasSuffix("1") })
        #expect(summary.contains("total: 3 of 3 events received"))
        #expect(summary.last?.contains("p50 3.00 ms") == true)
    }

    @Test("soak durations take ms, s, m, h or plain seconds, and refuse anything else")
    func soakDurations() throws {
        #expect(try SoakCommand.parseDuration("90s") == .seconds(90))
        #expect(try SoakCommand.parseDuration("5m") == .seconds(300))
        #expect(try SoakCommand.parseDuration("1h") == .seconds(3600))
        #expect(try SoakCommand.parseDuration("250ms") == .milliseconds(250))
        #expect(try SoakCommand.parseDuration("2.5") == .milliseconds(2500))
        for bad in ["", "m", "-5s", "5 minutes", "0"] {
            #expect(throws: ValidationError.self) { try SoakCommand.parseDuration(bad) }
        }
        #expect(throws: (any Error).self) { try SoakCommand.parse(["--transport", "mqtt"]).validate() }
        #expect(throws: (any Error).self) { try SoakCommand.parse(["--emulator", "elsewhere"]).validate() }
        #expect(throws: (any Error).self) { try SoakCommand.parse(["--emulator-url", "http://127.0.0.1"]).validate() }
        #expect(throws: (any Error).self) { try SoakCommand.parse(["--max-memory-slope", "0"]).validate() }
        #expect(throws: Never.self) { try SoakCommand.parse(["--emulator", "in-process", "--max-memory-slope", "5"]).validate() }
    }
}
