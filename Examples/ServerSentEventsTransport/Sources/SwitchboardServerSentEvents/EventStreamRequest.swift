import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What one streaming GET reports, in order: the response's status, then body chunks, then the end.
enum EventStreamChunk: Sendable {
    case response(status: Int)
    case bytes(Data)
    /// The body ended: nil when the server ended it, otherwise what failed.
    case ended(failure: String?)
}

/// One streaming HTTP request on a URLSession of its own: the body arrives chunk by chunk through
/// the data delegate (what FoundationNetworking offers on Linux, where `URLSession.bytes(for:)` does
/// not exist), and ``cancel()`` ends it. One-shot: reconnecting makes a new one.
final class EventStreamRequest: Sendable {
    let chunks: AsyncStream<EventStreamChunk>
    private let task: URLSessionDataTask
    private let session: URLSession

    init(_ request: URLRequest, idleTimeout: Duration) {
        let (chunks, continuation) = AsyncStream.makeStream(of: EventStreamChunk.self)
        let configuration = URLSessionConfiguration.ephemeral
        let seconds = Double(idleTimeout.components.seconds) + Double(idleTimeout.components.attoseconds) / 1e18
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = .infinity
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: Delegate(continuation), delegateQueue: nil)
        task = session.dataTask(with: request)
        self.chunks = chunks
    }

    func start() { task.resume() }

    /// Ends the request; the chunks end soon after with a cancellation error. The task is
    /// cancelled from another queue: this is called from Swift task cancellation handlers, and
    /// on Linux `URLSessionTask.cancel()` waits for the session's queue, which may be yielding
    /// a chunk to the very task being cancelled (both would wait for each other for good).
    func cancel() {
        let (task, session) = (self.task, self.session)
        DispatchQueue.global().async {
            task.cancel()
            session.invalidateAndCancel()
        }
    }

    private final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        let continuation: AsyncStream<EventStreamChunk>.Continuation

        init(_ continuation: AsyncStream<EventStreamChunk>.Continuation) { self.continuation = continuation }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            continuation.yield(.response(status: (response as? HTTPURLResponse)?.statusCode ?? 0))
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            continuation.yield(.bytes(data))
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            continuation.yield(.ended(failure: error.map { $0.localizedDescription }))
            continuation.finish()
        }
    }
}
