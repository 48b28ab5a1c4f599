import Foundation
import Logging
import SwitchboardEmulator
import Testing

@Suite("switchboard sync", .timeLimit(.minutes(1)))
struct CLISyncTests {
    static let configuration = SwitchboardEmulator.Configuration(
        port: 0, auth: .init(apiKeys: ["cli-key"]), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))

    func publish(_ count: Int, on emulator: SwitchboardEmulator, from first: Int = 0) throws {
        for index in first..<(first + count) {
            try emulator.publish(channel: "vortex-app/user/u1/roleChanged",
                                 event: #"{"eventType":"user/roleChanged","timestamp":"2026-11-22T10:00:00.000Z","reason":"r\#(index)"}"#)
        }
    }

    /// The `progress P/T` lines of a piped run, as (processed, total, final).
    func progress(_ stderr: String) -> [(Int, String, Bool)] {
        stderr.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.first == "progress", parts.count >= 2 else { return nil }
            let fraction = parts[1].split(separator: "/")
            guard let processed = Int(fraction[0]) else { return nil }
            return (processed, String(fraction[1]), line.hasSuffix("(final)"))
        }
    }

    @Test("fetches everything once, prints events and plain progress lines when piped, resumes from the checkpoint file")
    func streamAndResume() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let checkpoint = directory.appendingPathComponent("sync.checkpoint").path
        try await withRunningEmulator(configuration: Self.configuration) { emulator, endpoints in
            try publish(300, on: emulator)
            let first = await (try await CLIProcess([
                "sync", "--url", endpoints.syncBaseURL, "--checkpoint", checkpoint, "--print-events",
            ])).finish()
            #expect(first.status == 0, "stderr: \(first.err)")
            let events = first.out.dropLast()
            #expect(events.count == 300)
            #expect(events.first?.contains(#"\"reason\":\"r0\""#) == true && events.last?.contains(#"\"reason\":\"r299\""#) == true)
            #expect(first.out.last?.hasPrefix("synced 300 events over the sync stream; checkpoint ") == true, "\(first.out.last ?? "")")
            let lines = progress(first.err)
            #expect(lines.map(\.0) == lines.map(\.0).sorted(), "progress never goes back")
            #expect(lines.last.map { "\($0.0)/\($0.1) \($0.2)" } == "300/300 true", "\(first.err)")

            // The checkpoint file holds where it stopped: a second run fetches only what is new.
            try publish(20, on: emulator, from: 300)
            let second = await (try await CLIProcess(["sync", "--url", endpoints.syncBaseURL, "--checkpoint", checkpoint, "--print-events"])).finish()
            #expect(second.status == 0, "stderr: \(second.err)")
            #expect(second.out.count == 21)
            #expect(second.out.first?.contains(#"\"reason\":\"r300\""#) == true)
            #expect(second.out.last?.hasPrefix("synced 20 events over the sync stream") == true)
        }
    }

    @Test("falls back to REST pages when the stream endpoint is missing")
    func restFallback() async throws {
        try await withRunningEmulator(configuration: Self.configuration) { emulator, endpoints in
            try publish(120, on: emulator)
            emulator.setSyncStreamFault(.disabled)
            let result = await (try await CLIProcess(["sync", "--url", endpoints.syncBaseURL, "--page-size", "50"])).finish()
            #expect(result.status == 0, "stderr: \(result.err)")
            #expect(result.out.last?.hasPrefix("synced 120 events over the REST fallback after the stream failed (") == true, "\(result.out)")
            #expect(result.out.last?.contains("), 3 page(s); checkpoint ") == true, "\(result.out)")
        }
    }

    @Test("bad arguments and unreachable servers exit non-zero with a message")
    func failures() async throws {
        let badURL = await (try await CLIProcess(["sync", "--url", "ftp://example.com"])).finish()
        #expect(badURL.status != 0)
        #expect(badURL.err.contains("is not an http or https URL with a host"))
        let badHeader = await (try await CLIProcess(["sync", "--url", "http://127.0.0.1:1", "--header", "no-colon"])).finish()
        #expect(badHeader.status != 0)
        #expect(badHeader.err.contains("is not 'Name: value'"))
        let unreachable = await (try await CLIProcess(["sync", "--url", "http://127.0.0.1:1"])).finish()
        #expect(unreachable.status == 1)
        #expect(unreachable.err.contains("Error: "), "\(unreachable.err)")
    }
}
