import Foundation
import SwitchboardCore

extension SyncClient {
    /// Where the sync endpoints are and how a ``SyncClient`` paces itself.
    public struct Configuration: Sendable {
        /// The sync stream, such as `wss://api.example.com/v1/sync/stream`.
        public var streamURL: URL
        /// The REST fallback, such as `https://api.example.com/sync/pull`.
        public var pullURL: URL
        /// The `limit` of each REST request. Defaults to 100.
        public var pullLimit = 100
        /// The shortest time between two progress updates (the final one excepted). Defaults to
        /// 100 ms: at most 10 updates a second.
        public var progressInterval: Duration = .milliseconds(100)
        /// How long the stream may stay silent before the client gives up on it and falls back
        /// to REST. Defaults to 30 s.
        public var streamIdleTimeout: Duration = .seconds(30)
        /// The headers of every request (authorization, say), made fresh for each one. They are
        /// never logged.
        public var headers: @Sendable () async throws -> [(name: String, value: String)] = { [] }
        /// Whether the REST fallback may use plaintext `http` to a host other than this machine.
        /// Off by default: the headers (credentials) would cross the network readable, so such a
        /// ``pullURL`` is refused with ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration``. The
        /// stream's `ws` is ruled by its connector (`NIOWebSocketConnector.Configuration`).
        public var allowsPlaintextToRemoteHosts = false

        /// Creates a configuration with explicit endpoints.
        /// - Parameters:
        ///   - streamURL: The sync stream's `ws`/`wss` URL.
        ///   - pullURL: The REST fallback's `http`/`https` URL.
        public init(streamURL: URL, pullURL: URL) {
            self.streamURL = streamURL
            self.pullURL = pullURL
        }

        /// Creates a configuration for a server that serves `/v1/sync/stream` and `/sync/pull`
        /// under one base URL.
        /// - Parameter baseURL: The `http`/`https` base, such as `https://api.example.com`; the
        ///   stream uses `ws`/`wss` on the same host.
        public init(baseURL: URL) {
            let pull = baseURL.appendingPathComponent("sync").appendingPathComponent("pull")
            var stream = URLComponents(url: baseURL.appendingPathComponent("v1").appendingPathComponent("sync")
                .appendingPathComponent("stream"), resolvingAgainstBaseURL: false)
            stream?.scheme = baseURL.scheme == "https" ? "wss" : "ws"
            self.init(streamURL: stream?.url ?? baseURL, pullURL: pull)
        }
    }
}

extension SyncClient.Configuration {
    /// Refuses a REST fallback that would send credentials in plaintext to another machine.
    func checkTransportSecurity() throws(SwitchboardError) {
        guard pullURL.scheme?.lowercased() == "http", !allowsPlaintextToRemoteHosts else { return }
        let host = pullURL.host ?? ""
        guard !LoopbackHost.contains(host) else { return }
        throw SwitchboardError(
            code: .invalidConfiguration,
            message: "http://\(host) is not loopback: use https for the sync REST fallback, which carries the "
                + "credentials encrypted (or set SyncClient.Configuration.allowsPlaintextToRemoteHosts for a trusted network)")
    }
}
