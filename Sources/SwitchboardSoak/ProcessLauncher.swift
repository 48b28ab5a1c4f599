import Dispatch
import Foundation

/// Starts child processes one at a time, off Swift concurrency's threads.
///
/// Off those threads: on Linux `Process.run()` blocks while it forks, and a blocked cooperative
/// thread starves every other task. One at a time, for the whole process: a run of the test suite
/// crashed inside Foundation's `Process.run()` (a `memcpy` past a buffer's end) on one launch
/// queue while the suite's other launcher could be starting a child on another; Foundation on
/// Linux does not promise that two threads may start processes at once, so every launcher here
/// shares this one queue.
package enum ProcessLauncher {
    private static let queue = DispatchQueue(label: "switchboard.process-launcher")

    /// Runs `process`, resuming once it started (or failed to).
    package static func run(_ process: Process) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            queue.async {
                do {
                    try process.run()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
