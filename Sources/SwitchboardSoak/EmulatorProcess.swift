import Foundation
import SwitchboardCore
import SwitchboardEmulator

/// A child `switchboard serve` on 127.0.0.1, port 0, for a soak whose memory figures must be the
/// client's alone.
///
/// The child is started with `--exit-when-stdin-closes` and a pipe as its standard input: when
/// the soak ends or fails it is sent SIGTERM (SIGKILL if it has not exited within five seconds),
/// and should the soak's process die first, the pipe closes and the child stops by itself. Its
/// port is read from the first line it prints (`Switchboard emulator on 127.0.0.1:<port>`); its
/// standard error is the soak's.
final class EmulatorProcess: Sendable {
    /// The child, once started.
    private let child = LockedValue<SpawnedChild?>(nil)
    private let executable: URL
    private let arguments: [String]
    private let state = LockedValue(State())

    private struct State {
        var buffer = Data()
        var port: Int?
        var portWaiter: CheckedContinuation<Int, any Error>?
        var exited = false
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Runs `body` while a child emulator serves, and stops the child when `body` returns or throws.
    /// - Parameters:
    ///   - executable: The `switchboard` executable.
    ///   - arguments: The `serve` options after `serve --port 0 --exit-when-stdin-closes`.
    ///   - body: Gets the child's endpoints and process id.
    static func withChild<Result: Sendable>(
        executable: URL, arguments: [String], _ body: (SwitchboardEmulator.Endpoints, Int32) async throws -> Result
    ) async throws -> Result {
        let child = EmulatorProcess(executable: executable, arguments: ["serve", "--port", "0", "--exit-when-stdin-closes"] + arguments)
        let outcome: Swift.Result<Result, any Error>
        do {
            try await child.launch()
            let port = try await child.port(within: .seconds(60))
            outcome = .success(try await body(SwitchboardEmulator.Endpoints(port: port), child.processIdentifier))
        } catch {
            outcome = .failure(error)
        }
        await child.stop()
        return try outcome.get()
    }

    private init(executable: URL, arguments: [String]) {
        self.executable = executable
        self.arguments = arguments
    }

    /// The child's process id (0 before it started).
    private var processIdentifier: Int32 { child.withLock { $0?.pid ?? 0 } }

    private func launch() async throws {
        let state = state
        do {
            // Its standard error is the soak's.
            let started = try SpawnedChild(
                executable: executable, arguments: arguments, pipeInput: true,
                output: { Self.received($0, state: state) }, exited: { _ in Self.exited(state: state) })
            child.withLock { $0 = started }
        } catch {
            throw SoakError("cannot start the emulator (\(executable.path) serve): \(error)")
        }
    }

    /// The port the child printed, or an error when it exited first or took longer than `limit`.
    private func port(within limit: Duration) async throws -> Int {
        try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                try await withTaskCancellationHandler {
                    try await withCheckedThrowingContinuation { continuation in
                        let ready = self.state.withLock { state -> Swift.Result<Int, any Error>? in
                            if let port = state.port { return .success(port) }
                            if state.exited { return .failure(Self.exitedEarly) }
                            if Task.isCancelled { return .failure(CancellationError()) }
                            state.portWaiter = continuation
                            return nil
                        }
                        if let ready { continuation.resume(with: ready) }
                    }
                } onCancel: {
                    let waiter = self.state.withLock { state in
                        defer { state.portWaiter = nil }
                        return state.portWaiter
                    }
                    waiter?.resume(throwing: CancellationError())
                }
            }
            group.addTask {
                try await Task.sleep(for: limit)
                throw SoakError("the emulator (switchboard serve) printed no port within \(Int(limit.seconds)) s")
            }
            defer { group.cancelAll() }
            guard let port = try await group.next() else { throw Self.exitedEarly }
            return port
        }
    }

    private static let exitedEarly = SoakError("the emulator (switchboard serve) exited before it printed its port; its error is above")

    /// Closes the child's input, sends SIGTERM, and waits for it to exit (SIGKILL after 5 s).
    private func stop() async {
        guard let child = child.withLock({ $0 }) else { return }
        child.closeInput()
        guard !state.withLock({ $0.exited }) else { return }
        child.send(signal: SIGTERM)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForExit() }
            group.addTask {
                // Not cancellable: the grace period must run even when the soak was cancelled.
                let deadline = ContinuousClock.now + .seconds(5)
                while ContinuousClock.now < deadline, !self.state.withLock({ $0.exited }) {
                    try? await Task.sleep(for: .milliseconds(50))
                }
                if !self.state.withLock({ $0.exited }) { child.send(signal: SIGKILL) }
            }
            await group.waitForAll()
        }
    }

    private func waitForExit() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.exited { return true }
                state.exitWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    private static func received(_ data: Data, state: LockedValue<State>) {
        guard !data.isEmpty else { return }
        let ready = state.withLock { state -> (CheckedContinuation<Int, any Error>, Int)? in
            guard state.port == nil else { return nil }  // later lines are drained and ignored
            state.buffer.append(data)
            while let newline = state.buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: state.buffer[state.buffer.startIndex..<newline], as: UTF8.self)
                state.buffer.removeSubrange(state.buffer.startIndex...newline)
                if let port = port(in: line) {
                    state.port = port
                    state.buffer = Data()
                    defer { state.portWaiter = nil }
                    return state.portWaiter.map { ($0, port) }
                }
            }
            return nil
        }
        if let (waiter, port) = ready { waiter.resume(returning: port) }
    }

    private static func exited(state: LockedValue<State>) {
        let (portWaiter, exitWaiters) = state.withLock { state in
            state.exited = true
            defer {
                state.portWaiter = nil
                state.exitWaiters = []
            }
            return (state.portWaiter, state.exitWaiters)
        }
        portWaiter?.resume(throwing: exitedEarly)
        for waiter in exitWaiters { waiter.resume() }
    }

    /// The port in `Switchboard emulator on 127.0.0.1:<port>`, the first line `serve` prints.
    static func port(in line: String) -> Int? {
        let prefix = "Switchboard emulator on 127.0.0.1:"
        guard line.hasPrefix(prefix) else { return nil }
        return Int(line.dropFirst(prefix.count).prefix { $0.isNumber })
    }
}
