import Logging
import SwitchboardCore
import SwitchboardURLSession

#if os(Linux)
import SwitchboardNIO
#endif

/// The WebSocket engine for the platform the app runs on, so an app needs no `#if` to choose.
///
/// | platform | connector | why |
/// |---|---|---|
/// | Apple (iOS, macOS, tvOS, visionOS) | `URLSessionWebSocketConnector` | the system's networking: it brings up the cellular radio, follows proxy and VPN settings, verifies TLS with the system's trust store, and puts no TLS library in the app |
/// | Linux | `NIOWebSocketConnector` | swift-corelibs-foundation's `URLSession` cannot open WebSockets there ("WebSockets not supported by libcurl") |
///
/// This module depends on SwitchboardNIO on Linux only, so an Apple app that takes its connector
/// from here links neither NIOPosix nor NIOSSL. An app that needs what only the NIO engine does
/// on Apple platforms (trusting a private CA, a custom event loop) uses `NIOWebSocketConnector`
/// directly, through the SwitchboardNIO product.
public enum WebSocketConnectors {
    /// The platform's connector (see ``WebSocketConnectors``), with production defaults.
    /// - Parameter logger: Where the connector's lifecycle lines (debug) go.
    /// - Returns: `URLSessionWebSocketConnector` on Apple platforms, `NIOWebSocketConnector` on Linux.
    public static func platformDefault(
        logger: Logger = Logger(label: "switchboard.websocket", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> any WebSocketConnector {
        #if os(Linux)
        nio(logger: logger)
        #else
        system(logger: logger)
        #endif
    }

    /// The system's connector, `URLSessionWebSocketConnector`: what ``platformDefault(logger:)``
    /// returns on Apple platforms. On Linux its connects fail at once with a
    /// `SwitchboardError` naming the platform limit.
    /// - Parameter logger: Where the connector's lifecycle lines (debug) go.
    /// - Returns: A connector with production defaults.
    public static func system(logger: Logger) -> URLSessionWebSocketConnector {
        URLSessionWebSocketConnector(configuration: .init(logger: logger))
    }

    #if os(Linux)
    /// The SwiftNIO connector: what ``platformDefault(logger:)`` returns on Linux.
    /// - Parameter logger: Where the connector's lifecycle (debug) and frame (trace) lines go.
    /// - Returns: A connector with production defaults.
    public static func nio(logger: Logger) -> NIOWebSocketConnector {
        NIOWebSocketConnector(configuration: .init(logger: logger))
    }
    #endif

    /// Which engine ``platformDefault(logger:)`` uses here, for logs and diagnostics:
    /// `"urlsession"` or `"nio"`.
    public static var platformEngine: String {
        #if os(Linux)
        "nio"
        #else
        "urlsession"
        #endif
    }
}
