import Foundation
import SwitchboardCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The HTTP seam of ``SyncClient``'s REST fallback: one GET, its status and body. The default is
/// ``URLSessionSyncHTTPClient``; another engine (AsyncHTTPClient, a scripted test double) can
/// take its place.
public protocol SyncHTTPClient: Sendable {
    /// Sends a GET to `url` with `headers` and returns the status and the response body.
    /// - Throws: Any error for a request that got no HTTP answer (network failure, timeout).
    func get(_ url: URL, headers: [(name: String, value: String)]) async throws -> (status: Int, body: Data)
}

/// ``SyncHTTPClient`` on `URLSession` (FoundationNetworking on Linux).
public struct URLSessionSyncHTTPClient: SyncHTTPClient {
    private let session: URLSession
    private let timeout: TimeInterval

    /// - Parameters:
    ///   - session: The session to send with.
    ///   - timeout: The request timeout in seconds.
    public init(session: URLSession = .shared, timeout: TimeInterval = 30) {
        self.session = session
        self.timeout = timeout
    }

    public func get(_ url: URL, headers: [(name: String, value: String)]) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.cancellableData(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return (http.statusCode, data)
    }
}
