import Foundation
import SwitchboardCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The members of `URLSessionWebSocketTask` that ``URLSessionWebSocketConnector`` uses, and the
/// seam its tests drive: `URLSessionWebSocketTask` conforms (see
/// `URLSessionWebSocketTask+SessionTask.swift`), and a test implementation bridges to another
/// engine where the system's WebSockets do not run.
///
/// Its members behave as `URLSessionWebSocketTask`'s do: completion handlers run on any thread,
/// each at most once; after the task completed, every call fails or does nothing. What the
/// session's delegate hears (the upgrade, the peer's close frame, the end) goes to the
/// ``WebSocketTaskEvents`` the task was made with.
package protocol WebSocketSessionTask: AnyObject, Sendable {
    /// The largest message ``receiveMessage(completionHandler:)`` accepts, in bytes; a larger one
    /// fails the receive and closes the socket with 1009.
    var maximumMessageSize: Int { get set }
    /// Starts the connect and the upgrade.
    func resume()
    /// Sends a message.
    /// - Parameters:
    ///   - message: What to send.
    ///   - completionHandler: Called with nil once the message was handed to the socket, or with
    ///     why it was not.
    func sendMessage(_ message: WebSocketMessage, completionHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// Receives the next message.
    /// - Parameter completionHandler: Called with the message, or with why none will come (the
    ///   peer's close frame is then in ``receivedClose``).
    func receiveMessage(completionHandler: @escaping @Sendable (Result<WebSocketMessage, any Error>) -> Void)
    /// Sends a ping.
    /// - Parameter pongReceiveHandler: Called with nil when the pong arrives, or with why it will not.
    func sendPing(pongReceiveHandler: @escaping @Sendable ((any Error)?) -> Void)
    /// Sends a close frame and ends the task once the close handshake ends.
    /// - Parameters:
    ///   - closeCode: The close code.
    ///   - reason: The close reason, at most 123 bytes.
    func cancel(closeCode: WebSocketCloseCode, reason: Data?)
    /// Ends the task at once, without a close handshake.
    func cancel()
    /// The close frame the peer sent, nil while it sent none.
    var receivedClose: WebSocketClose? { get }
    /// The HTTP status of the answer to the upgrade request, nil before one arrived.
    var httpStatusCode: Int? { get }
}

/// Makes the task for one connection: `URLSession`'s, or a test's.
///
/// - Parameters:
///   - request: The upgrade request, its `Sec-WebSocket-Protocol` header carrying the offer.
///   - events: Where the task's delegate reports.
/// - Returns: A task that has not been resumed.
package typealias WebSocketSessionTaskFactory = @Sendable (
    _ request: URLRequest, _ events: WebSocketTaskEvents
) -> any WebSocketSessionTask
