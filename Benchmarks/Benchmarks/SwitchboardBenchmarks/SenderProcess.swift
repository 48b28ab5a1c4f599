import Foundation
import NIOConcurrencyHelpers
import SwitchboardCore

/// The blast server in a child process: this benchmark binary started again with ``variable``
/// set to the transport (`appsync` or `graphql`), so that the measuring process holds only the
/// client and every CPU and allocation figure it takes is the client's.
///
/// The two talk by lines. The child writes `port <n>` once it listens. `await <id>` asks it to
/// wait for the subscription with that wire id, `await *` for the first one to the archive
/// channel that is none of the other readers' (`bare-1`, `raw-1`, `peer-1`); it answers
/// `subscribed`. `go <count>` makes it write `count` archive frames to that subscription, each
/// batch of 512 only when the socket takes it, and answer `sent` after the last. It exits at the
/// end of its input.
final class SenderProcess: @unchecked Sendable {  // Process and the pipes: set up in init, then only read
    static let variable = "SWITCHBOARD_BLAST_SENDER"
    /// The wire ids of the readers that are not the notifier.
    static let readerIDs = ["bare-1", "raw-1", "peer-1"]

    let port: Int
    private let process: Process
    private let input: FileHandle
    private let output: FileHandle
    /// Set by ``stop()``: the child's exit is expected from then on.
    private let stopping = NIOLockedValueBox(false)

    /// Starts the child and reads its port.
    init(kind: TransportKind) throws {
        let process = Process()
        guard let executable = Bundle.main.executableURL else { throw BenchmarkFailure("cannot find this executable to start the sender") }
        // A child that died must fail the benchmark, not kill it: writing to its closed pipe raises SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        process.executableURL = executable
        process.arguments = []
        var environment = ProcessInfo.processInfo.environment
        environment[Self.variable] = kind == .appsync ? "appsync" : "graphql"
        environment["SWITCHBOARD_BENCH_REPORT"] = nil
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        // A reader waits for frames with no deadline of its own: a sender that dies before it is
        // stopped ends the whole benchmark, loudly, rather than leaving the reader waiting.
        let stopping = self.stopping
        process.terminationHandler = { child in
            guard !stopping.withLockedValue({ $0 }) else { return }
            FileHandle.standardError.write(Data("sender process exited unexpectedly (status \(child.terminationStatus))\n".utf8))
            exit(1)
        }
        try process.run()
        self.process = process
        input = stdin.fileHandleForWriting
        output = stdout.fileHandleForReading
        guard let line = Lines.read(output), line.hasPrefix("port "), let port = Int(line.dropFirst(5)) else {
            process.terminate()
            throw BenchmarkFailure("the sender process did not start")
        }
        self.port = port
    }

    /// Waits until the child holds subscription `id` (`*`: the notifier's, see the type).
    func awaitSubscription(_ id: String = "*") async throws {
        try input.write(contentsOf: Data("await \(id)\n".utf8))
        // A `sent` from the previous blast may come first.
        while let line = await Lines.next(from: output) {
            if line == "subscribed" { return }
            guard line == "sent" else { break }
        }
        throw BenchmarkFailure("the sender process saw no subscription \(id)")
    }

    /// Starts writing `count` frames to the subscription last awaited; returns at once. (A child
    /// that is gone fails the reader's next wait instead.)
    func go(_ count: Int) { try? input.write(contentsOf: Data("go \(count)\n".utf8)) }

    /// A ``Throughput`` reader's `ready`: awaits the reader's subscription and returns its sender.
    func ready(events: Int) -> @Sendable (String) async throws -> @Sendable () -> Void {
        { id in
            try await self.awaitSubscription(id)
            return { self.go(events) }
        }
    }

    /// Ends the child: closes its input, and terminates it if it did not exit within 5 s.
    func stop() {
        stopping.withLockedValue { $0 = true }
        try? input.close()
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// When this process was started as the sender (``variable`` set): serves, and exits. Called
    /// before any benchmark is registered.
    static func runIfAsked() {
        guard let name = ProcessInfo.processInfo.environment[variable] else { return }
        guard ["appsync", "graphql"].contains(name) else {
            FileHandle.standardError.write(Data("sender process: bad \(variable) \(name)\n".utf8))
            exit(2)
        }
        let kind: TransportKind = name == "appsync" ? .appsync : .graphql
        Task.detached {
            do {
                try await serve(kind)
                exit(0)
            } catch {
                FileHandle.standardError.write(Data("sender process: \(error)\n".utf8))
                exit(1)
            }
        }
        while true { sleep(3600) }
    }

    private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data("\(line)\n".utf8))
    }

    private static func serve(_ kind: TransportKind) async throws {
        try await BlastServer.with { server in
            say("port \(server.port)")
            var subscription: BlastServer.Subscription?
            while let line = await Lines.next(from: .standardInput) {
                let words = line.split(separator: " ", maxSplits: 1).map(String.init)
                switch (words.first, words.count) {
                case ("await", 2):
                    let id = words[1]
                    subscription = try await server.waitForSubscription(seconds: 120) {
                        id == "*" ? !readerIDs.contains($0.id) && $0.request.contains(ArchivePayload.marker(kind)) : $0.id == id
                    }
                    say("subscribed")
                case ("go", 2):
                    guard let subscription, let count = Int(words[1]) else { throw BenchmarkFailure("go before await: \(line)") }
                    await server.blastLazily(count, to: subscription) { ArchivePayload.frame(kind, id: $0) }
                    say("sent")
                default:
                    throw BenchmarkFailure("unknown command: \(line)")
                }
            }
        }
    }
}

/// Reading lines from a pipe, a byte at a time (the pipes carry a few short lines).
enum Lines {
    /// The next line, read on a thread of its own (it blocks); nil at the end.
    static func next(from handle: FileHandle) async -> String? {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: read(handle)) }.start()
        }
    }

    /// The next line, read on this thread; nil at the end.
    static func read(_ handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while true {
            let data = handle.readData(ofLength: 1)
            guard let byte = data.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
