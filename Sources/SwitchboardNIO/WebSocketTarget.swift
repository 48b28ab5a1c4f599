import Foundation
import NIOCore
import SwitchboardCore

/// Where a `ws` or `wss` URL points: the socket address, whether TLS is used, the request target
/// and the `Host` header.
struct WebSocketTarget: Hashable, Sendable {
    /// The host name or IP literal, without the brackets of an IPv6 literal.
    var host: String
    /// The TCP port: the URL's, or 80 for `ws` and 443 for `wss`.
    var port: Int
    /// `true` for `wss`.
    var isSecure: Bool
    /// The path and query sent in the request line, `/` at least.
    var requestTarget: String
    /// Whether ``host`` is an IPv4 or IPv6 literal.
    var isIPLiteral: Bool

    /// Parses a WebSocket URL.
    /// - Parameter url: A `ws` or `wss` URL with a host.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/invalidConfiguration`` for any
    ///   other scheme, a missing host or a port out of range.
    init(url: URL) throws(SwitchboardError) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw SwitchboardError(code: .invalidConfiguration, message: "the WebSocket URL cannot be parsed")
        }
        switch components.scheme?.lowercased() {
        case "ws": isSecure = false
        case "wss": isSecure = true
        default:
            throw SwitchboardError(
                code: .invalidConfiguration,
                message: "a WebSocket URL must use ws or wss, not '\(components.scheme ?? "")'")
        }
        var host = components.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else {
            throw SwitchboardError(code: .invalidConfiguration, message: "the WebSocket URL has no host")
        }
        let port = components.port ?? (isSecure ? 443 : 80)
        guard (1...65_535).contains(port) else {
            throw SwitchboardError(code: .invalidConfiguration, message: "the WebSocket URL's port \(port) is out of range")
        }
        self.host = host
        self.port = port
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        requestTarget = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
        isIPLiteral = (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }

    /// Whether the host is this machine: `localhost` (or a name under `.localhost`), an IPv4
    /// address in 127.0.0.0/8, or `::1`.
    var isLoopback: Bool { LoopbackHost.contains(host) }

    /// Refuses plaintext `ws` to another machine: credentials (API keys, tokens, signatures)
    /// travel in the upgrade request and the first frames.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/invalidConfiguration``.
    func checkTransportSecurity(allowingPlaintext: Bool) throws(SwitchboardError) {
        guard !isSecure, !isLoopback, !allowingPlaintext else { return }
        throw SwitchboardError(
            code: .invalidConfiguration,
            message: "ws://\(hostHeader) is not loopback: use wss, which carries the credentials encrypted "
                + "(or set NIOWebSocketConnector.Configuration.allowsPlaintextToRemoteHosts for a trusted network)")
    }

    /// The name sent in TLS SNI and checked against the certificate; `nil` for an IP literal,
    /// which is never sent as SNI and is checked against the certificate's IP addresses instead.
    var serverName: String? { isIPLiteral ? nil : host }

    /// The `Host` header: the host (bracketed if it is an IPv6 literal), with the port unless it
    /// is the scheme's default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// `host:port` for logs and error messages (no path: it may carry query credentials).
    var endpoint: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}
