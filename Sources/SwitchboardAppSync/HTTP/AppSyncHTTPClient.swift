import Foundation
import SwitchboardCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The HTTP seam of ``AppSyncHTTPPublisher``: one POST, its status and body. The default is
/// ``URLSessionHTTPClient``; tests script their own.
public protocol AppSyncHTTPClient: Sendable {
    /// Sends `body` to `url` with `headers` and returns the status and the response body.
    /// - Throws: Any error for a request that got no HTTP answer (network failure, timeout).
    func post(_ url: URL, headers: [(name: String, value: String)], body: Data) async throws -> (status: Int, body: Data)
}

/// ``AppSyncHTTPClient`` on `URLSession` (FoundationNetworking on Linux).
public struct URLSessionHTTPClient: AppSyncHTTPClient {
    private let session: URLSession
    private let timeout: TimeInterval

    /// - Parameters:
    ///   - session: The session to send with.
    ///   - timeout: The request timeout in seconds.
    public init(session: URLSession = .shared, timeout: TimeInterval = 30) {
        self.session = session
        self.timeout = timeout
    }

    public func post(_ url: URL, headers: [(name: String, value: String)], body: Data) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.cancellableData(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw URLError(.badServerResponse)
        }
        return (http.statusCode, data)
    }
}
