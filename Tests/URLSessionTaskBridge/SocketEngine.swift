import SwitchboardCore
import SwitchboardNIO
import SwitchboardURLSession

/// The socket engine a test runs a transport on: each platform's, both testable here.
package enum SocketEngine: String, Sendable, CaseIterable, CustomStringConvertible {
    /// `NIOWebSocketConnector`, the Linux engine.
    case nio
    /// `URLSessionWebSocketConnector`'s logic, the Apple engine, its tasks bridged to the NIO
    /// engine (the system's WebSockets do not run on Linux).
    case urlSession

    package var description: String { rawValue }

    /// A connector of this engine whose sockets are the NIO engine's with `configuration`.
    /// - Parameter configuration: The NIO engine's settings (trust roots, for example).
    /// - Returns: The connector.
    package func connector(_ configuration: NIOWebSocketConnector.Configuration = .init()) -> any WebSocketConnector {
        switch self {
        case .nio: NIOWebSocketConnector(configuration: configuration)
        case .urlSession: URLSessionWebSocketConnector(makeTask: BridgedWebSocketTask.nio(configuration))
        }
    }
}
