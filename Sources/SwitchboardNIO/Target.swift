import Foundation
import NIOCore
import SwitchboardCore

/// Where a `ws`/`wss` URL points: host, port, request path, and how to name the host in the
/// `Host` header and in TLS (no SNI for IP literals).
struct Target: Sendable, CustomStringConvertible {
    var secure: Bool
    var host: String
    var port: Int
    var requestURI: String

    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/invalidConfiguration`` for a
    ///   URL that is not `ws://` or `wss://` with a host.
    init(_ url: URL) throws {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw SwitchboardError(code: .invalidConfiguration, message: "'\(url.absoluteString)' is not a valid URL")
        }
        switch components.scheme?.lowercased() {
        case "ws": secure = false
        case "wss": secure = true
        default:
            throw SwitchboardError(
                code: .invalidConfiguration,
                message: "a WebSocket URL must start with ws:// or wss://, not '\(components.scheme ?? "")://'")
        }
        guard var host = components.host, !host.isEmpty else {
            throw SwitchboardError(code: .invalidConfiguration, message: "the WebSocket URL has no host")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        port = components.port ?? (secure ? 443 : 80)
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        requestURI = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }

    var isIPAddress: Bool { (try? SocketAddress(ipAddress: host, port: 0)) != nil }

    /// The TLS server name: the host name, or nil for an IP literal (SNI must not carry one).
    var serverNameIndication: String? { isIPAddress ? nil : host }

    /// The `Host` header: brackets around IPv6 literals, the port unless it is the default.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
    }

    var description: String { "\(secure ? "wss" : "ws")://\(hostHeader)" }
}
