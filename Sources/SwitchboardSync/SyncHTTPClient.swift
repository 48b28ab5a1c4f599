import Foundation
import SwitchboardCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

#if os(Linux)
    import SwitchboardNIO
#endif

/// The HTTP seam of ``SyncClient``'s REST fallback: one GET, its status and body. The default is
/// ``SyncHTTPClients/platformDefault()``; another engine (AsyncHTTPClient, a scripted test
/// double) can take its place.
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

/// The HTTP engine for the platform the app runs on, the same choice as the WebSocket's
/// (`WebSocketConnectors.platformDefault()`).
///
/// | platform | client | why |
/// |---|---|---|
/// | Apple | ``URLSessionSyncHTTPClient`` on `URLSession.shared` | the system's networking: proxies, VPN, the cellular radio, the system's trust store |
/// | Linux | `NIOHTTPClient` (SwitchboardNIO) | FoundationNetworking's `URLSession` watches libcurl's sockets with dispatch sources whose teardown races their cancellation (swift-corelibs-foundation#4791); under load a process can crash in libdispatch |
///
/// On Linux the client takes answers up to 32 MiB (a page of ``SyncClient/Configuration/pullLimit``
/// large events); whether plaintext `http` may reach another machine is
/// ``SyncClient/Configuration/allowsPlaintextToRemoteHosts``'s decision, checked before anything
/// is sent, as on Apple platforms. Pass a `NIOHTTPClient` of your own for other limits or a
/// private CA. SwitchboardSync depends on SwitchboardNIO on Linux only: an Apple app links no
/// NIO module for it.
public enum SyncHTTPClients {
    /// The platform's client (see ``SyncHTTPClients``), with a 30-second request timeout.
    public static func platformDefault() -> any SyncHTTPClient {
        #if os(Linux)
            NIOHTTPClient(configuration: .init(maximumResponseSize: 32 << 20, allowsPlaintextToRemoteHosts: true))
        #else
            URLSessionSyncHTTPClient()
        #endif
    }
}

#if os(Linux)
    /// The NIO engine's GET is the sync fallback's seam as it is.
    extension NIOHTTPClient: SyncHTTPClient {}
#endif
