import Foundation
import SwitchboardCore

/// The GraphQL machine as the shared driver's ``/SwitchboardCore/ConnectionMachine``. Opening a
/// socket yields the token it was opened with, for `connection_init`.
extension GraphQLConnectionStateMachine: ConnectionMachine {
    typealias ServerMessage = GraphQLServerMessage
    typealias ClientMessage = GraphQLClientMessage
    typealias Delivery = GraphQLResult
    typealias Handshake = String?

    /// A frame that could not be decoded is reported; the connection and its deadlines stay as
    /// they are.
    mutating func receivedGarbage(_ error: SwitchboardError, on connection: ConnectionID, at now: Duration) -> [Action] {
        [.report(.error(error))]
    }

    /// The client held back reading `connection`: the server's keep-alive and the pong of a
    /// client ping may be waiting unread, so their deadlines count from `now` at the earliest. (A
    /// connection check keeps the timeout its caller asked for.)
    mutating func readsHeldBack(on connection: ConnectionID, at now: Duration) {
        guard case .connected(let current, var liveness) = phase, current == connection else { return }
        if let deadline = liveness.keepAliveDeadline, let window = liveness.keepAliveWindow {
            liveness.keepAliveDeadline = max(deadline, now + window)
        }
        if let deadline = liveness.pongDeadline { liveness.pongDeadline = max(deadline, now + settings.pongTimeout) }
        phase = .connected(connection: current, liveness)
    }
}

/// One subscription result to deliver: its `data` object and the errors the server sent beside it
/// (a partial result), in the server's words.
struct GraphQLResult: Equatable, Sendable {
    var data: ResultData
    var errors: [String] = []
}
