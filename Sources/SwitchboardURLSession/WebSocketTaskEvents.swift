import Foundation
import SwitchboardCore

/// What a ``WebSocketSessionTask``'s delegate hears, kept for the connector and the connection
/// that wait on it: the upgrade's outcome, the peer's close frame and the task's end.
///
/// Each report is kept once (the first one wins); waiters are resumed outside the lock.
package final class WebSocketTaskEvents: Sendable {
    private struct State {
        /// The upgrade's outcome: the chosen subprotocol (nil when the server named none), or
        /// how the task ended before it.
        var opening: Result<String?, any Error>?
        var openWaiters: [UInt64: CheckedContinuation<String?, any Error>] = [:]
        var close: WebSocketClose?
        var completed = false
        var completionWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    private let state = LockedValue(State())

    package init() {}

    /// The upgrade succeeded; `subprotocol` is what the server chose.
    package func didOpen(subprotocol: String?) {
        settleOpening(.success(subprotocol))
    }

    /// The peer sent a close frame.
    package func didClose(code: WebSocketCloseCode, reason: Data?) {
        let close = WebSocketClose(code: code, reason: reason.map { String(decoding: $0, as: UTF8.self) } ?? "")
        state.withLock { state in
            if state.close == nil { state.close = close }
        }
    }

    /// The task ended, with `error` unless it ended normally. Before an upgrade this is its
    /// failure; a task that ends without error before the upgrade was closed during it.
    package func didComplete(error: (any Error)?) {
        settleOpening(.failure(error ?? WebSocketTaskEnded()))
        let waiters = state.withLock { state in
            state.completed = true
            defer { state.completionWaiters = [:] }
            return Array(state.completionWaiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The close frame the peer sent, if the delegate heard one.
    package var receivedClose: WebSocketClose? { state.withLock { $0.close } }

    /// Waits for the upgrade.
    /// - Returns: The subprotocol the server chose, nil when it named none.
    /// - Throws: How the task ended before the upgrade; `CancellationError`.
    package func opened() async throws -> String? {
        let id = waiterID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let settled: Result<String?, any Error>? = state.withLock { state in
                    if let opening = state.opening { return opening }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.openWaiters[id] = continuation
                    return nil
                }
                if let settled { continuation.resume(with: settled) }
            }
        } onCancel: {
            state.withLock { $0.openWaiters.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// Waits until the task has ended, or the calling task is cancelled.
    package func completion() async {
        let id = waiterID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state in
                    if state.completed || Task.isCancelled { return true }
                    state.completionWaiters[id] = continuation
                    return false
                }
                if done { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.completionWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    private func waiterID() -> UInt64 {
        state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
    }

    private func settleOpening(_ outcome: Result<String?, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<String?, any Error>] in
            guard state.opening == nil else { return [] }
            state.opening = outcome
            defer { state.openWaiters = [:] }
            return Array(state.openWaiters.values)
        }
        for waiter in waiters { waiter.resume(with: outcome) }
    }
}

/// A task that ended without an error before its upgrade answered.
struct WebSocketTaskEnded: Error, CustomStringConvertible {
    var description: String { "the task ended before the WebSocket upgrade answered" }
}
