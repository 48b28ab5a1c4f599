/// The state of a transport's connection, as its owner sees it.
public enum ConnectionState: Equatable, Sendable, CustomStringConvertible {
    /// Not connected and not trying to: nobody is signed in, or the transport was told to disconnect.
    case idle
    /// Opening a socket and waiting for the server's acknowledgement. `attempt` starts at 1 and
    /// counts consecutive attempts since the last successful connection.
    case connecting(attempt: Int)
    /// Connected and acknowledged; subscriptions may be sent.
    case connected
    /// The connection was lost; the next attempt starts after `delay`.
    case waitingToReconnect(attempt: Int, delay: Duration)
    /// The connection ended and will not be retried (policy, or a fatal error such as an expired
    /// session). `error` is nil when the close was requested.
    case disconnected(SwitchboardError?)
    /// The transport has shut down for good.
    case shutDown

    public var description: String {
        switch self {
        case .idle: "idle"
        case .connecting(let attempt): "connecting(attempt: \(attempt))"
        case .connected: "connected"
        case .waitingToReconnect(let attempt, let delay): "waitingToReconnect(attempt: \(attempt), delay: \(delay))"
        case .disconnected(let error): "disconnected(\(error.map { "\($0.code)" } ?? "requested"))"
        case .shutDown: "shutDown"
        }
    }
}
