import Foundation
import SwitchboardCore
import Testing

@testable import SwitchboardSoak

/// What a ``SpawnedChild`` hands on, gathered until it exits.
private final class Gathered: Sendable {
    let output = LockedValue(Data())
    let error = LockedValue(Data())
    let ended = LockedValue<SpawnedChild.Termination?>(nil)

    func start(_ executable: String, _ arguments: [String], pipeInput: Bool = false) throws -> SpawnedChild {
        try SpawnedChild(
            executable: URL(fileURLWithPath: executable), arguments: arguments, pipeInput: pipeInput,
            output: { data in self.output.withLock { $0.append(data) } },
            error: { data in self.error.withLock { $0.append(data) } },
            exited: { termination in self.ended.withLock { $0 = termination } })
    }

    /// Waits (polling, at most 30 s) for the exit.
    func termination() async throws -> SpawnedChild.Termination {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let ended = ended.withLock({ $0 }) { return ended }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw SoakError("the child did not exit within 30 s")
    }
}

@Suite("A child started with posix_spawn")
struct SpawnedChildTests {
    @Test("everything it printed arrives before its exit status")
    func outputThenStatus() async throws {
        let gathered = Gathered()
        // More than a pipe holds (64 KiB), so it is read while the child runs.
        _ = try gathered.start("/bin/sh", ["-c", "head -c 200000 /dev/zero | tr '\\0' a; echo; echo oops >&2; exit 3"])
        let termination = try await gathered.termination()
        #expect(termination == SpawnedChild.Termination(status: 3, signaled: false))
        let output = gathered.output.withLock { $0 }
        #expect(output.count == 200_001 && output.dropLast().allSatisfy { $0 == UInt8(ascii: "a") })
        #expect(String(decoding: gathered.error.withLock { $0 }, as: UTF8.self) == "oops\n")
    }

    @Test("its input is a pipe: what is written reaches it, and closing it ends its input")
    func input() async throws {
        let gathered = Gathered()
        let child = try gathered.start("/bin/cat", [], pipeInput: true)
        try child.write(Data("hello\n".utf8))
        child.closeInput()
        child.closeInput()
        #expect(try await gathered.termination() == SpawnedChild.Termination(status: 0, signaled: false))
        #expect(String(decoding: gathered.output.withLock { $0 }, as: UTF8.self) == "hello\n")
        #expect(throws: SpawnedChild.Failure.self) { try child.write(Data("late".utf8)) }
    }

    @Test("writing to a child that is gone fails with an error, not SIGPIPE")
    func brokenPipe() async throws {
        let gathered = Gathered()
        let child = try gathered.start("/bin/true", [], pipeInput: true)
        _ = try await gathered.termination()
        #expect(throws: SpawnedChild.Failure.self) { try child.write(Data(repeating: 0x61, count: 1 << 20)) }
    }

    @Test("a signal ends it and is reported as such; after it was reaped, signals go nowhere")
    func signal() async throws {
        let gathered = Gathered()
        let child = try gathered.start("/bin/sleep", ["30"])
        child.send(signal: SIGTERM)
        #expect(try await gathered.termination() == SpawnedChild.Termination(status: SIGTERM, signaled: true))
        child.send(signal: SIGKILL)  // reaped: nothing is sent to whatever process has its id now
    }

    @Test("a missing executable fails to start with its path in the error")
    func missing() throws {
        let error = #expect(throws: SpawnedChild.Failure.self) { _ = try Gathered().start("/nonexistent/switchboard", []) }
        #expect(error?.description.contains("/nonexistent/switchboard") == true)
    }

    @Test("it holds no descriptor of this process but its three standard ones")
    func closesInheritedDescriptors() async throws {
        // A descriptor this process holds open without close-on-exec.
        let fd = open("/dev/null", O_RDONLY)
        defer { close(fd) }
        let gathered = Gathered()
        _ = try gathered.start("/bin/sh", ["-c", "ls /proc/self/fd"])
        _ = try await gathered.termination()
        let listed = String(decoding: gathered.output.withLock { $0 }, as: UTF8.self).split(separator: "\n").compactMap { Int($0) }
        // 0, 1, 2, and the one `ls` opened to list the directory.
        #expect(!listed.contains(Int(fd)) || fd <= 3, "fd \(fd) leaked into the child: \(listed)")
        #expect(listed.filter { $0 > 2 }.count <= 1, "\(listed)")
    }
}
