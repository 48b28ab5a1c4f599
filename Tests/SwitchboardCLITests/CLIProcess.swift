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

    let process = Process()
    private let stdout = Pipe()
    private let stderr = Pipe()
    private let lock = NSLock()
    private var outLines: [String] = []
    private var errText = ""
    private var outBuffer = Data()
    private var lineWaiters: [(count: Int, continuation: CheckedContinuation<[String], Never>)] = []
    private var exited = false
    private var exitWaiters: [CheckedContinuation<Void, Never>] = []

    /// Launches run on this queue, one at a time, off the tasks' threads.

    init(_ arguments: [String], environment: [String: String] = [:]) async throws {
        process.executableURL = Self.executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged["SWITCHBOARD_TRANSPORT"] = nil
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
        process.standardOutput = stdout
        process.standardError = stderr
        stdout.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.receiveOut(handle.availableData) }
        stderr.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.receiveErr(handle.availableData) }
        // Exit is observed, never waited for on a thread: on Linux, Swift concurrency runs on
        // libdispatch's worker threads, so a blocked `waitUntilExit()` starves every other test.
        // A process that exits before printing what a test waits for must not hang the test.
        process.terminationHandler = { [weak self] _ in self?.processExited() }
        // Started on the one queue every child of this process is started on (ProcessLauncher).
        try await ProcessLauncher.run(process)
    }

    /// Waits until stdout holds at least `count` lines, or the process ended.
    func lines(atLeast count: Int) async -> [String] {
        await withCheckedContinuation { continuation in
            lock.lock()
            if outLines.count >= count || exited {
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
            if exited {
                lock.unlock()
                continuation.resume()
            } else {
                exitWaiters.append(continuation)
                lock.unlock()
            }
        }
        // What the process wrote is in the pipes; read it without waiting for end of file, which
        // a child spawned meanwhile by another test may delay by inheriting the write end.
        stdout.fileHandleForReading.readabilityHandler = nil
        stderr.fileHandleForReading.readabilityHandler = nil
        receiveOut(Self.drain(stdout.fileHandleForReading))
        receiveErr(Self.drain(stderr.fileHandleForReading))
        let (waiters, lines, err) = lock.withLock { () -> ([(count: Int, continuation: CheckedContinuation<[String], Never>)], [String], String) in
            defer { lineWaiters.removeAll() }
            return (lineWaiters, outLines, errText)
        }
        for waiter in waiters { waiter.continuation.resume(returning: lines) }
        return (process.terminationStatus, lines, err)
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

    private func processExited() {
        let (waiters, lines) = lock.withLock { () -> ([CheckedContinuation<[String], Never>], [String]) in
            exited = true
            defer { lineWaiters.removeAll() }
            return (lineWaiters.map(\.continuation), outLines)
        }
        for continuation in waiters { continuation.resume(returning: lines) }
        let exits = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            defer { exitWaiters.removeAll() }
            return exitWaiters
        }
        for continuation in exits { continuation.resume() }
    }

    /// Everything readable now, without blocking.
    private static func drain(_ handle: FileHandle) -> Data {
        let fd = handle.fileDescriptor
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }  // 0: end of file; -1: nothing more now (EAGAIN)
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    private func receiveErr(_ data: Data) {
        guard !data.isEmpty else { return }
        lock.lock()
        errText += String(decoding: data, as: UTF8.self)
        lock.unlock()
    }
}
