import Foundation
import Testing

@Suite("switchboard soak with its emulator in another process", .serialized, .timeLimit(.minutes(3)))
struct CLISoakTests {
    @Test("by default the soak starts a child `switchboard serve`, injects faults over HTTP, reports the client's memory alone and stops the child")
    func childEmulator() async throws {
        let cli = try await CLIProcess([
            "soak", "--duration", "4s", "--rate", "200", "--seed", "42", "--quiet", "--sample-interval", "0.5",
            "--quiesce-timeout", "30",
        ])
        let result = await cli.finish()
        let text = result.out.joined(separator: "\n")
        #expect(result.status == 0, "\(text)\nstderr: \(result.err)")
        #expect(result.out.last == "PASS", "\(text)")
        let memory = try #require(result.out.first { $0.hasPrefix("memory of ") }, "\(text)")
        #expect(memory.hasPrefix("memory of the client's process alone (emulator: child process "), "\(memory)")
        // Every event of the schedule went out through POST /events, then the last round of nine.
        #expect(result.out.contains { $0.hasPrefix("total ") && $0.split(separator: " ")[1] == "809" }, "\(text)")
        #expect(result.out.contains { $0.hasPrefix("publishing: 800 events at 200 events/s, at most ") }, "\(text)")
        let faults = try #require(result.out.first { $0.hasPrefix("faults: ") })
        #expect(faults != "faults: none" && faults.split(separator: ",").count >= 3, "faults went through /control: \(faults)")
        // The child is gone once the soak returned: its pid no longer names a process.
        let pid = try #require(
            memory.split(separator: " ").lastIndex(of: "process").flatMap { index in
                Int32(memory.split(separator: " ")[index + 1].trimmingCharacters(in: .punctuationCharacters))
            }, "\(memory)")
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the child emulator \(pid) still runs")
    }

    @Test("--emulator in-process says the memory is client and emulator together")
    func inProcessEmulator() async throws {
        let cli = try await CLIProcess([
            "soak", "--duration", "2s", "--rate", "100", "--seed", "7", "--quiet", "--faults", "drop,garbage",
            "--emulator", "in-process",
        ])
        let result = await cli.finish()
        #expect(result.status == 0, "\(result.out.joined(separator: "\n"))\nstderr: \(result.err)")
        #expect(result.out.contains { $0.hasPrefix("memory of the soak's process: client and in-process emulator together") })
    }

    @Test("an --emulator-url where nothing listens fails at once with the reason")
    func unreachableEmulator() async throws {
        let cli = try await CLIProcess(["soak", "--duration", "2s", "--quiet", "--emulator-url", "http://127.0.0.1:1"])
        let result = await cli.finish()
        #expect(result.status != 0)
        #expect(result.err.contains("127.0.0.1:1"), "stderr: \(result.err)")
    }
}
