import Foundation

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

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
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
        try process.run()
    }

    /// Waits until stdout holds at least `count` lines, or the process ended.
    func lines(atLeast count: Int) async -> [String] {
        await withCheckedContinuation { continuation in
            lock.lock()
            if outLines.count >= count || !process.isRunning {
                let lines = outLines
                lock.unlock()
                continuation.resume(returning: lines)
            } else {
                lineWaiters.append((count, continuation))
                lock.unlock()
            }
        }
    }

    /// Waits for the process to exit and returns its status with everything it printed.
    func finish() async -> (status: Int32, out: [String], err: String) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                self.process.waitUntilExit()
                continuation.resume()
            }
        }
        stdout.fileHandleForReading.readabilityHandler = nil
        stderr.fileHandleForReading.readabilityHandler = nil
        receiveOut(stdout.fileHandleForReading.readDataToEndOfFile())
        receiveErr(stderr.fileHandleForReading.readDataToEndOfFile())
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

    private func receiveErr(_ data: Data) {
        guard !data.isEmpty else { return }
        lock.lock()
        errText += String(decoding: data, as: UTF8.self)
        lock.unlock()
    }
}
