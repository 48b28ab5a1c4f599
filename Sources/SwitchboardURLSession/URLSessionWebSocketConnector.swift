import Foundation
import Logging
import SwitchboardCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Opens WebSocket connections (`ws` and `wss`) through the system's networking,
/// `URLSessionWebSocketTask`: SwitchboardCore's `WebSocketConnector` seam for the transports,
/// and the engine `WebSocketConnectors.platformDefault()` picks on Apple platforms.
///
/// Going through the system brings what a phone's own networking does: it brings up the
/// cellular radio when needed, follows the device's proxy and VPN settings, and verifies `wss`
/// servers against the system's trust store, with no TLS library in the app. A server whose
/// certificate comes from a private CA is reached with `NIOWebSocketConnector` and its trust
/// roots instead.
///
/// It offers every subprotocol of the request in one `Sec-WebSocket-Protocol` header, sends the
/// request's headers and checks the subprotocol the server chose. `connect` throws:
///
/// - `WebSocketHandshakeError` when the server answers with anything but `101` (with the status;
///   `URLSession` does not hand out the body), or accepts without choosing an offered subprotocol;
/// - ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/network``
///   when there is no network, the host cannot be resolved or reached, the system does not trust
///   the server's certificate or the TLS handshake fails, or the server closes during the
///   upgrade; and, its message starting `connect timeout:`, when ``Configuration/connectTimeout``
///   passes. The message names the cause; the `URLError` is the `cause`;
/// - ``/SwitchboardCore/SwitchboardError`` with
///   ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` for a URL that is not
///   `ws`/`wss`, an invalid header or subprotocol, plaintext to a remote host, or a platform
///   whose `URLSession` cannot open WebSockets: swift-corelibs-foundation on Linux answers
///   "WebSockets not supported by libcurl" at once, and the error says so;
/// - `CancellationError` when the calling task is cancelled (the task is cancelled too).
///
/// Header values and subprotocols (a `header-…` subprotocol carries credentials) never appear in
/// an error or a log line.
public struct URLSessionWebSocketConnector: WebSocketConnector {
    /// How connections are opened.
    public let configuration: Configuration
    private let makeTask: WebSocketSessionTaskFactory

    /// Creates a connector on the system's `URLSession`.
    /// - Parameter configuration: How connections are opened; the defaults suit production.
    public init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, makeTask: SystemWebSocketTasks.factory)
    }

    /// Creates a connector whose tasks come from `makeTask`: the seam the tests drive.
    /// - Parameters:
    ///   - configuration: How connections are opened.
    ///   - makeTask: Makes each connection's task.
    package init(configuration: Configuration = Configuration(), makeTask: @escaping WebSocketSessionTaskFactory) {
        self.configuration = configuration
        self.makeTask = makeTask
    }

    /// Opens and upgrades a connection (the seam's entry point). See ``open(_:)``.
    public func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
        try await open(request)
    }

    /// Opens and upgrades a connection, returning the concrete type.
    /// - Parameter request: What to open.
    /// - Returns: The open connection. Close it with ``URLSessionWebSocketConnection/close(code:reason:)``.
    /// - Throws: See ``URLSessionWebSocketConnector``.
    public func open(_ request: WebSocketRequest) async throws -> URLSessionWebSocketConnection {
        var logger = configuration.logger
        let endpoint: String
        let urlRequest: URLRequest
        do {
            endpoint = try Self.endpoint(of: request.url, allowingPlaintext: configuration.allowsPlaintextToRemoteHosts)
            logger[metadataKey: "switchboard.websocket.endpoint"] = "\(endpoint)"
            urlRequest = try Self.urlRequest(for: request, logger: logger)
        } catch {
            logger.debug("request refused", metadata: ["switchboard.error": "\(error.message)"])
            throw error
        }
        logger.debug("connecting", metadata: [
            "switchboard.websocket.engine": "urlsession",
            "switchboard.websocket.subprotocols.offered": "\(request.subprotocols.count)",
        ])

        let events = WebSocketTaskEvents()
        let task = makeTask(urlRequest, events)
        task.maximumMessageSize = max(configuration.maximumMessageSize, 125)
        task.resume()
        let chosen: String?
        do {
            chosen = try await withDeadline(
                configuration.connectTimeout, on: configuration.clock,
                timeoutError: .connectionTimeout(
                    .connect,
                    "opening the WebSocket to \(endpoint) took longer than \(configuration.connectTimeout.secondsDescription)"),
                onTimeout: { task.cancel() }
            ) {
                try await events.opened()
            }
        } catch {
            task.cancel()
            let mapped = URLSessionFailure.opening(error, status: task.httpStatusCode, endpoint: endpoint)
            logger.debug("connect failed", metadata: ["switchboard.error": "\(SwitchboardError.logDescription(mapped))"])
            throw mapped
        }

        let subprotocol: String?
        do {
            subprotocol = try WebSocketHandshakeError.negotiatedSubprotocol(
                offered: request.subprotocols, chosen: chosen.map { [$0] } ?? [])
        } catch {
            logger.debug("subprotocol not negotiated; closing")
            task.cancel(closeCode: .protocolError, reason: Data("subprotocol not negotiated".utf8))
            throw error
        }
        logger.debug("connected", metadata: [
            "switchboard.websocket.subprotocol": "\(subprotocol.map { $0.lowercased().hasPrefix("header-") ? "header-<redacted>" : $0 } ?? "none")",
        ])
        return URLSessionWebSocketConnection.start(
            task: task, events: events, subprotocol: subprotocol,
            settings: .init(
                maximumMessageSize: configuration.maximumMessageSize,
                maximumBufferedInboundBytes: configuration.maximumBufferedInboundBytes, closeTimeout: configuration.closeTimeout,
                clock: configuration.clock, logger: logger))
    }

    /// Checks the URL and returns `host:port` for messages (never the path or query).
    static func endpoint(of url: URL, allowingPlaintext: Bool) throws(SwitchboardError) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "ws" || scheme == "wss" else {
            throw SwitchboardError(code: .invalidConfiguration, message: "a WebSocket URL must use ws or wss, not '\(scheme)'")
        }
        guard let host = url.host, !host.isEmpty else {
            throw SwitchboardError(code: .invalidConfiguration, message: "the WebSocket URL has no host")
        }
        let port = url.port ?? (scheme == "wss" ? 443 : 80)
        let endpoint = "\(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host):\(port)"
        if scheme == "ws", !allowingPlaintext, !LoopbackHost.contains(host) {
            throw SwitchboardError(
                code: .invalidConfiguration,
                message: "ws://\(endpoint) is not loopback: use wss, which carries the credentials encrypted")
        }
        return endpoint
    }

    /// The upgrade request: the URL, the request's headers (less those the system writes) and the
    /// offer in one `Sec-WebSocket-Protocol` header.
    static func urlRequest(for request: WebSocketRequest, logger: Logger) throws(SwitchboardError) -> URLRequest {
        let (send, ignored) = try request.checkedHeaders()
        if !ignored.isEmpty {
            logger.debug("ignoring request headers the engine sets itself", metadata: [
                "switchboard.websocket.headers": "\(ignored.joined(separator: ", "))",
            ])
        }
        var urlRequest = URLRequest(url: request.url)
        for header in send { urlRequest.addValue(header.value, forHTTPHeaderField: header.name) }
        if !request.subprotocols.isEmpty {
            urlRequest.setValue(request.subprotocols.joined(separator: ", "), forHTTPHeaderField: "Sec-WebSocket-Protocol")
        }
        return urlRequest
    }
}
