import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLSession {
    /// Sends `request` and returns its body and response, like `data(for:)`, without the
    /// deadlock swift-corelibs-foundation's `data(for:)` can run into when its task is cancelled
    /// just as the answer arrives: there, the cancellation handler cancels the `URLSessionTask`
    /// while the Swift task's status lock is held, and `URLSessionTask.cancel()` waits for the
    /// session's queue, which may at that moment be resuming the same Swift task and waiting for
    /// that lock. Here the `URLSessionTask` is cancelled from another queue, after the handler
    /// returned.
    /// - Parameter request: The request to send.
    /// - Returns: The response body and the response.
    /// - Throws: The session's error (`URLError`, `cancelled` after cancellation).
    package func cancellableData(for request: URLRequest) async throws -> (Data, URLResponse) {
        let pending = PendingDataTask()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let response {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                pending.started(task)
            }
        } onCancel: {
            DispatchQueue.global().async { pending.cancel() }
        }
    }
}

/// The one data task of a ``URLSession/cancellableData(for:)`` call: started unless it was
/// cancelled first, cancelled at most once.
private final class PendingDataTask: Sendable {
    private let state = LockedValue<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))

    func started(_ task: URLSessionDataTask) {
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.cancelled
        }
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state -> URLSessionDataTask? in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}
