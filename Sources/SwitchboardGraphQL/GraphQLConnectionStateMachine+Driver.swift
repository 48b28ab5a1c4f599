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
}

/// One subscription result to deliver: its `data` object and the errors the server sent beside it
/// (a partial result), in the server's words.
struct GraphQLResult: Equatable, Sendable {
    var data: Data
    var errors: [String] = []
    /// The frame's parse of `data`, when the codec read the frame in one pass.
    var parsed = ParsedData()
}
