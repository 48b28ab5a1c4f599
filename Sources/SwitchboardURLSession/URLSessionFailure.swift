import Foundation
import SwitchboardCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The errors ``URLSessionWebSocketConnector`` throws for what `URLSession` reports, in the
/// terms the transports already act on: a refused upgrade is a `WebSocketHandshakeError`
/// (401/403 make them refresh the token), everything else a ``SwitchboardError`` whose message
/// names the cause.
enum URLSessionFailure {
    /// What swift-corelibs-foundation's FoundationNetworking answers to every WebSocket task
    /// when libcurl was built without WebSocket support (the distributions' libcurl 7.x and 8.x).
    static let libcurlLimit = "WebSockets not supported by libcurl"

    /// Maps how a task ended before or during its upgrade.
    /// - Parameters:
    ///   - error: What the delegate or the deadline reported.
    ///   - status: The HTTP status of the upgrade's answer, if one arrived.
    ///   - endpoint: `host:port`, for the message.
    /// - Returns: The error `connect` throws.
    static func opening(_ error: any Error, status: Int?, endpoint: String) -> any Error {
        switch error {
        case is CancellationError, is SwitchboardError, is WebSocketHandshakeError:
            return error
        case is WebSocketTaskEnded:
            return SwitchboardError(code: .network, message: "\(endpoint) closed the connection during the WebSocket upgrade")
        default:
            break
        }
        if let status, status != 101 {
            return WebSocketHandshakeError(reason: .unexpectedStatus(status))
        }
        guard let urlError = error as? URLError else {
            return SwitchboardError(
                code: .network, message: "cannot open a WebSocket to \(endpoint): \(error.localizedDescription)",
                cause: error)
        }
        if isLibcurlLimit(urlError) {
            var failure = SwitchboardError(
                code: .invalidConfiguration,
                message: "URLSession cannot open WebSockets on this platform (\(libcurlLimit)): "
                    + "use NIOWebSocketConnector here, which WebSocketConnectors.platformDefault() picks outside Apple platforms",
                cause: urlError)
            failure.isPermanent = true
            return failure
        }
        var failure = SwitchboardError(code: .network, message: "\(reason(urlError.code)) (\(endpoint))", cause: urlError)
        if urlError.code == .timedOut {
            failure = .connectionTimeout(.connect, "the system gave up opening the WebSocket to \(endpoint)", cause: urlError)
        }
        failure.isPermanent = isCertificateFailure(urlError.code)
        return failure
    }

    /// The plain-language reason for a `URLError` code.
    static func reason(_ code: URLError.Code) -> String {
        switch code {
        case .notConnectedToInternet: "no network: the device is offline"
        case .dataNotAllowed: "no network: cellular data is not allowed for this app"
        case .internationalRoamingOff: "no network: data roaming is off"
        case .networkConnectionLost: "the network connection was lost"
        case .cannotFindHost, .dnsLookupFailed: "the host name cannot be resolved"
        case .cannotConnectToHost: "cannot connect to the host (refused or unreachable)"
        case .badServerResponse: "the server sent an invalid answer to the WebSocket upgrade"
        case .secureConnectionFailed: "the TLS handshake failed"
        case .clientCertificateRejected, .clientCertificateRequired: "TLS: the server asked for a client certificate"
        default:
            if isCertificateFailure(code) {
                "TLS: the server's certificate is not trusted by the system (a private CA needs NIOWebSocketConnector with its trust roots)"
            } else {
                "URLSession failed (URLError \(code.rawValue))"
            }
        }
    }

    /// Whether the system refused the server's certificate: a retry cannot cure it.
    static func isCertificateFailure(_ code: URLError.Code) -> Bool {
        [.serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
         .serverCertificateHasUnknownRoot].contains(code)
    }

    static func isLibcurlLimit(_ error: URLError) -> Bool {
        error.code == .unsupportedURL && "\(error.userInfo[NSLocalizedDescriptionKey] ?? "")".contains(libcurlLimit)
    }

    /// Maps a failed receive that came with no close frame: the socket failed, or a message was
    /// over the limit (``SwitchboardError/Code/protocolViolation``, as the NIO engine reports it).
    static func receiving(_ error: any Error, maximumMessageSize: Int) -> SwitchboardError {
        if let error = error as? SwitchboardError { return error }
        if (error as? POSIXError)?.code == .EMSGSIZE {
            return SwitchboardError(
                code: .protocolViolation, message: "a message was larger than the limit of \(maximumMessageSize) bytes", cause: error)
        }
        if let urlError = error as? URLError {
            return SwitchboardError(code: .network, message: "the WebSocket failed: \(reason(urlError.code))", cause: urlError)
        }
        return SwitchboardError(code: .network, message: "the WebSocket failed: \(error.localizedDescription)", cause: error)
    }
}
