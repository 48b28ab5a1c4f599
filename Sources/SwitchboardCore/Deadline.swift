/// Runs `work` against a deadline on `clock` (the socket engines' connect, upgrade and close
/// deadlines).
///
/// If `duration` passes first, or `work` fails, or the calling task is cancelled, `onTimeout`
/// runs; it must make `work` end (for example by closing the channel `work` waits on), because
/// the call returns only once `work` has.
/// - Parameters:
///   - duration: How long `work` may take.
///   - clock: The clock the deadline is measured on.
///   - timeoutError: What to throw when the deadline passes.
///   - onTimeout: Ends `work` early.
///   - work: The operation.
/// - Returns: What `work` returned.
package func withDeadline<Value: Sendable>(
    _ duration: Duration,
    on clock: any Clock<Duration>,
    timeoutError: SwitchboardError,
    onTimeout: @escaping @Sendable () -> Void,
    _ work: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await work() }
        group.addTask {
            try await clock.sleep(for: duration)
            return nil
        }
        defer { group.cancelAll() }
        let first: Value??
        do {
            first = try await group.next()
        } catch {
            onTimeout()
            throw error
        }
        if case .some(.some(let value)) = first { return value }
        onTimeout()
        throw timeoutError
    }
}
