import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import SwitchboardCore

/// Plain-language reasons for the socket and TLS failures SwiftNIO reports, for messages an
/// operator can act on ("connection refused", "the server's certificate is not trusted").
package enum NIOFailureReason {
    /// The reason `error` (or the first error of its ``SwitchboardError/cause`` chain that SwiftNIO
    /// raised) stands for; nil when it is not a failure this module knows.
    package static func reason(for error: any Error) -> String? {
        var current: (any Error)? = error
        while let error = current {
            if let reason = direct(error) { return reason }
            current = (error as? SwitchboardError)?.cause
        }
        return nil
    }

    /// Whether `error` is one a retry of the same request cannot cure: the server's certificate
    /// is not trusted or does not name the host, or the server does not speak TLS (or speaks it
    /// where plain HTTP was asked for). A connection dropped or reset mid-answer is not.
    package static func isPermanent(_ error: any Error) -> Bool {
        switch error {
        case let error as NIOSSLError:
            if case .handshakeFailed(let underlying) = error { return isPermanent(underlying) }
            return false
        case let error as NIOSSLExtraError:
            return error == .failedToValidateHostname
        case let error as BoringSSLError:
            let text = "\(error)"
            return text.contains("CERTIFICATE_VERIFY_FAILED") || notTLS(text)
        case let error as HTTPParserError:
            // An answer that is not HTTP (TLS spoken to a plain-HTTP port). A connection closed
            // in the middle of an answer (`invalidEOFState`) is a dropped connection: retried.
            if case .invalidEOFState = error { return false }
            return true
        default:
            return false
        }
    }

    private static func direct(_ error: any Error) -> String? {
        switch error {
        case let error as NIOConnectionError:
            // Happy Eyeballs tried each address; the last failure is the telling one.
            if let last = error.connectionErrors.last { return direct(last.error) ?? "\(last.error)" }
            return error.dnsAAAAError.map { "DNS lookup failed (\($0))" } ?? error.dnsAError.map { "DNS lookup failed (\($0))" }
        case let error as IOError:
            return errnoReason(error.errnoCode)
        case let error as ChannelError:
            switch error {
            case .connectTimeout: return "the TCP connect timed out"
            case .eof, .ioOnClosedChannel, .alreadyClosed, .outputClosed: return "the server closed the connection"
            default: return nil
            }
        case let error as NIOSSLError:
            switch error {
            case .handshakeFailed(let underlying): return tlsReason(underlying)
            case .uncleanShutdown: return "the server ended the TLS session without closing it (is the endpoint TLS?)"
            default: return "TLS failed (\(error))"
            }
        case let error as NIOSSLExtraError:
            if error == .failedToValidateHostname {
                return "TLS: the server's certificate does not name this host"
            }
            return "TLS failed (\(error))"
        case let error as BoringSSLError:
            return tlsReason(error)
        case is HTTPParserError:
            return "the answer is not HTTP (if the server serves TLS, use an https:// or wss:// URL)"
        default:
            return nil
        }
    }

    /// Whether BoringSSL's error text says the other side did not speak TLS.
    private static func notTLS(_ text: String) -> Bool {
        ["WRONG_VERSION_NUMBER", "PACKET_LENGTH_TOO_LONG", "HTTP_REQUEST"].contains { text.contains($0) }
    }

    private static func tlsReason(_ error: BoringSSLError) -> String {
        let text = "\(error)"
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "TLS: the server's certificate is not trusted (CERTIFICATE_VERIFY_FAILED; trust its CA, for example with --ca-file)"
        }
        if notTLS(text) {
            return "TLS: the server did not answer in TLS (if it serves plain HTTP, use an http:// or ws:// URL)"
        }
        return "the TLS handshake failed (\(text))"
    }

    private static func errnoReason(_ code: CInt) -> String {
        switch code {
        case ECONNREFUSED: "connection refused (nothing listens on that port)"
        case ECONNRESET: "the connection was reset by the server"
        case ETIMEDOUT: "the connection timed out"
        case EHOSTUNREACH, ENETUNREACH: "the host cannot be reached"
        default: String(cString: strerror(code))
        }
    }
}

/// Where an `http` or `https` URL points, for ``NIOHTTPClient``.
struct HTTPTarget: Sendable {
    var host: String
    var port: Int
    var isSecure: Bool
    var requestTarget: String
    var isIPLiteral: Bool

    /// Headers the client sets itself.
    static let managedHeaders: Set<String> = ["host", "content-length", "connection", "transfer-encoding"]

    init(url: URL) throws(SwitchboardError) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw SwitchboardError(code: .invalidConfiguration, message: "the HTTP URL cannot be parsed")
        }
        switch components.scheme?.lowercased() {
        case "http": isSecure = false
        case "https": isSecure = true
        default:
            throw SwitchboardError(
                code: .invalidConfiguration, message: "an HTTP URL must use http or https, not '\(components.scheme ?? "")'")
        }
        var host = components.host ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw SwitchboardError(code: .invalidConfiguration, message: "the HTTP URL has no host") }
        let port = components.port ?? (isSecure ? 443 : 80)
        guard (1...65_535).contains(port) else {
            throw SwitchboardError(code: .invalidConfiguration, message: "the HTTP URL's port \(port) is out of range")
        }
        self.host = host
        self.port = port
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        requestTarget = components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
        isIPLiteral = (try? SocketAddress(ipAddress: host, port: 0)) != nil
    }

    /// Refuses plaintext `http` to another machine: credentials travel in the headers.
    func checkTransportSecurity(allowingPlaintext: Bool) throws(SwitchboardError) {
        guard !isSecure, !LoopbackHost.contains(host), !allowingPlaintext else { return }
        throw SwitchboardError(
            code: .invalidConfiguration,
            message: "http://\(hostHeader) is not loopback: use https, which carries the credentials encrypted")
    }

    /// The TLS server name; nil for an IP literal (checked against the certificate's addresses).
    var serverName: String? { isIPLiteral ? nil : host }

    /// The `Host` header.
    var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isSecure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// `host:port` for messages (never the path or query).
    var endpoint: String { "\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Maps a failed TCP connect.
    static func connectError(_ error: any Error, target: HTTPTarget, timeout: Duration) -> any Error {
        if error is CancellationError || error is SwitchboardError { return error }
        if case .connectTimeout? = error as? ChannelError {
            return SwitchboardError.connectionTimeout(
                .connect, "connecting to \(target.endpoint) took longer than \(timeout.secondsDescription)", cause: error)
        }
        let reason = NIOFailureReason.reason(for: error) ?? "\(error)"
        return SwitchboardError(code: .network, message: "cannot connect to \(target.endpoint): \(reason)", cause: error)
    }

    /// The server closed the connection without an HTTP answer; on plain `http` the likely cause
    /// is a TLS port.
    static func closedBeforeAnswer(_ target: HTTPTarget, cause: (any Error)? = nil) -> SwitchboardError {
        SwitchboardError(
            code: .network,
            message: "\(target.endpoint) closed the connection before answering"
                + (target.isSecure ? "" : " (if it serves TLS, use an https:// URL)"),
            cause: cause)
    }

    /// Maps a failure after the connect (TLS, the request, the answer).
    static func requestError(_ error: any Error, target: HTTPTarget) -> any Error {
        if error is CancellationError || error is SwitchboardError { return error }
        if let error = error as? ChannelError, [.ioOnClosedChannel, .eof, .alreadyClosed, .outputClosed].contains(error) {
            return closedBeforeAnswer(target, cause: error)
        }
        let reason = NIOFailureReason.reason(for: error) ?? "\(error)"
        let stage = error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError ? "the TLS handshake with" : "the request to"
        // A TLS server that reads plain HTTP answers with an alert and closes, which arrives as
        // a reset when the close overtakes the alert.
        let hint = !target.isSecure && (error as? IOError)?.errnoCode == ECONNRESET ? " (if it serves TLS, use an https:// URL)" : ""
        var failure = SwitchboardError(code: .network, message: "\(stage) \(target.endpoint) failed: \(reason)\(hint)", cause: error)
        failure.isPermanent = NIOFailureReason.isPermanent(error)
        return failure
    }
}
