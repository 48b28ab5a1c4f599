import Dispatch
import Foundation

/// Runs `body` until it returns or SIGINT/SIGTERM arrives, which cancels it (a graceful stop).
/// - Parameters:
///   - endOfInput: Whether the end of standard input stops `body` too: a parent process that
///     holds the other end of the pipe then stops its child by closing it, or by dying.
///   - body: The work to run.
func withSignalCancellation(orEndOfInput endOfInput: Bool = false, _ body: @escaping @Sendable () async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await body() }
        group.addTask {
            await waitForTerminationSignal()
            throw CancellationError()
        }
        if endOfInput {
            group.addTask {
                await waitForEndOfInput()
                throw CancellationError()
            }
        }
        defer { group.cancelAll() }
        do {
            try await group.next()
        } catch is CancellationError {
            return
        }
    }
}

private func waitForTerminationSignal() async {
    let waiter = SignalWaiter()
    let sources = [SIGINT, SIGTERM].map { signalNumber -> any DispatchSourceSignal in
        signal(signalNumber, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
        source.setEventHandler { waiter.resume() }
        source.resume()
        return source
    }
    await withTaskCancellationHandler {
        await withCheckedContinuation { waiter.install($0) }
    } onCancel: {
        waiter.resume()
    }
    for source in sources { source.cancel() }
}

/// Returns when standard input reaches its end (or on cancellation). A thread of its own reads
/// and discards the input: a blocking read never holds one of the concurrency pool's threads.
private func waitForEndOfInput() async {
    let waiter = SignalWaiter()
    Thread.detachNewThread {
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
            if count > 0 || (count < 0 && errno == EINTR) { continue }
            break
        }
        waiter.resume()
    }
    await withTaskCancellationHandler {
        await withCheckedContinuation { waiter.install($0) }
    } onCancel: {
        waiter.resume()
    }
}

/// Resumes its continuation exactly once: on a signal or on cancellation, whichever is first,
/// even when that comes before the continuation is installed.
private final class SignalWaiter: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    private var fired = false

    func install(_ continuation: CheckedContinuation<Void, Never>) {
        lock.lock()
        if fired {
            lock.unlock()
            continuation.resume()
            return
        }
        self.continuation = continuation
        lock.unlock()
    }

    func resume() {
        lock.lock()
        fired = true
        let continuation = self.continuation
        self.continuation = nil
        lock.unlock()
        continuation?.resume()
    }
}
