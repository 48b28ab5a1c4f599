import Logging
import SwitchboardCore

extension GraphQLSubscriber: ConnectionVerifying {
    /// Checks the connection now with a WebSocket ping (in every dialect), instead of waiting
    /// out the keep-alive window. It only enqueues the check.
    ///
    /// Connected: a pong within `timeout` (on ``Configuration/clock``) keeps the connection. No
    /// pong in time, or a failed ping: ``/SwitchboardCore/TransportEvent/error(_:)`` with
    /// ``/SwitchboardCore/SwitchboardError/Code/network`` ("connection check: no pong within 2 s"), the socket is
    /// closed, and the transport connects again at once (``/SwitchboardCore/ConnectionState/connecting(attempt:)``
    /// with attempt 1, no reconnect delay) and starts every held subscription again. Waiting to
    /// reconnect: connects at once. Otherwise, or while a check is running, nothing happens. See
    /// ``/SwitchboardCore/ConnectionVerifying/verifyConnection(timeout:)``.
    /// - Parameter timeout: How long to wait for the pong; must be positive (otherwise the call
    ///   is logged with ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` and ignored).
    public func verifyConnection(timeout: Duration) {
        if let error = Self.invalidCheckTimeout(timeout) {
            logger.info("connection check refused", metadata: ["switchboard.error": "\(error)"])
            return
        }
        driver.yield(.verifyConnection(timeout: timeout))
    }
}
