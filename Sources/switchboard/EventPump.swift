import Foundation
import Switchboard

/// Runs a notifier and merges the chosen streams into one sequence of lines, reporting
/// connection states and errors to standard error as they happen.
struct EventPump {
    let notifier: BackendNotifier
    let streams: [StreamName]

    /// Calls `onLine` for every event (from one task, in arrival order per stream) until it
    /// returns false, the notifier fails for good, or the task is cancelled.
    /// - Throws: ``CLIError`` when the connection ends with an error that no retry will fix
    ///   (session expired, invalid configuration).
    func run(onLine: @escaping @Sendable (EventLine) async -> Bool) async throws {
        let (lines, sink) = AsyncStream<EventLine>.makeStream()
        let notifier = self.notifier
        let console = Console.shared
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await notifier.run() }
            for stream in streams {
                let values = await stream.lines(from: notifier)
                group.addTask {
                    for await line in values { sink.yield(line) }
                }
            }
            let fatal = LockedValue<SwitchboardError?>(nil)
            let states = await notifier.connectionStates()
            group.addTask {
                for await state in states {
                    console.err("connection: \(state)")
                    if case .disconnected(let error?) = state,
                        error.code == .sessionExpired || error.code == .invalidConfiguration
                    {
                        fatal.withLock { $0 = error }
                        sink.finish()
                    }
                }
            }
            let errors = await notifier.errors()
            group.addTask {
                for await error in errors { console.err("error: \(FailureText.describe(error))") }
            }
            for await line in lines {
                if await !onLine(line) { break }
            }
            await notifier.shutDown()
            group.cancelAll()
            if let error = fatal.withLock({ $0 }) {
                throw CLIError("the connection failed: \(FailureText.describe(error))")
            }
        }
    }
}
