import Foundation
import SwitchboardSoak

/// Runs the built `switchboard` executable (it sits beside the test bundle) and collects its
/// output line by line.
final class CLIProcess: @unchecked Sendable {
    static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        #if os(macOS)
            // On macOS the test bundle path is …/PackageTests.xctest/Contents/MacOS/…; go up to
            // the products directory.
            let products = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL.deletingLastPathComponent() ?? bundle
            return products.appendingPathComponent("switchboard")
        #else
            return bundle.appendingPathComponent("switchboard")
        #endif
    }

    /// The child, started with `posix_spawn` (see `SpawnedChild` for why not Foundation's `Process`).
    private(set) var child: SpawnedChild!
    private let lock = NSLock()
    private var outLines: [String] = []
    private var errText = ""
    private var outBuffer = Data()
    private var lineWaiters: [(count: Int, continuation: CheckedContinuation<[String], Never>)] = []
    private var termination: SpawnedChild.Termination?
    private var exitWaiters: [CheckedContinuation<Void, Never>] = []

    init(_ arguments: [String], environment: [String: String] = [:]) async throws {
        var merged = ProcessInfo.processInfo.environment
        merged["SWITCHBOARD_TRANSPORT"] = nil
        for (key, value) in environment { merged[key] = value }
        // Exit is observed on the child's own thread, never waited for on a task's: on Linux,
        // Swift concurrency runs on libdispatch's worker threads, so a blocked wait starves every
        // other test. A process that exits before printing what a test waits for must not hang
        // the test. Everything it printed is handed on before its exit.
        child = try SpawnedChild(
            executable: Self.executable, arguments: arguments, environment: merged,
            output: { [weak self] in self?.receiveOut($0) }, error: { [weak self] in self?.receiveErr($0) },
            exited: { [weak self] in self?.processExited($0) })
    }

    /// Sends SIGINT (Ctrl-C), unless the process was reaped already.
    func interrupt() { child.send(signal: SIGINT) }

    /// Waits until stdout holds at least `count` lines, or the process ended.
    func lines(atLeast count: Int) async -> [String] {
        await withCheckedContinuation { continuation in
            lock.lock()
            if outLines.count >= count || termination != nil {
                let lines = outLines
                lock.unlock()
                continuation.resume(returning: lines)
            } else {
                lineWaiters.append((count, continuation))
                lock.unlock()
            }
        }
    }

    /// Waits for the process to exit (without blocking a thread) and returns its status with
    /// everything it printed.
    func finish() async -> (status: Int32, out: [String], err: String) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if termination != nil {
                lock.unlock()
                continuation.resume()
            } else {
                exitWaiters.append(continuation)
                lock.unlock()
            }
        }
        return lock.withLock { (termination?.status ?? -1, outLines, errText) }
    }

    private func receiveOut(_ data: Data) {
        guard !data.isEmpty else { return }
        lock.lock()
        outBuffer.append(data)
        while let newline = outBuffer.firstIndex(of: UInt8(ascii: "\n")) {
            outLines.append(String(decoding: outBuffer[outBuffer.startIndex..<newline], as: UTF8.self))
            outBuffer.removeSubrange(outBuffer.startIndex...newline)
        }
        var ready: [(CheckedContinuation<[String], Never>)] = []
        lineWaiters.removeAll { waiter in
            guard outLines.count >= waiter.count else { return false }
            ready.append(waiter.continuation)
            return true
        }
        let lines = outLines
        lock.unlock()
        for continuation in ready { continuation.resume(returning: lines) }
    }

    private func processExited(_ ended: SpawnedChild.Termination) {
        let (waiters, lines, exits) = lock.withLock {
            () -> ([CheckedContinuation<[String], Never>], [String], [CheckedContinuation<Void, Never>]) in
            termination = ended
            defer {
                lineWaiters.removeAll()
                exitWaiters.removeAll()
            }
            return (lineWaiters.map(\.continuation), outLines, exitWaiters)
        }
        for continuation in waiters { continuation.resume(returning: lines) }
        for continuation in exits { continuation.resume() }
    }

    private func receiveErr(_ data: Data) {
        guard !data.isEmpty else { return }
        lock.lock()
        errText += String(decoding: data, as: UTF8.self)
        lock.unlock()
    }
}
