import SwitchboardCore

/// The wire dialect a ``GraphQLSubscriber`` speaks. All three share one connection state machine;
/// only the codec and a few capabilities differ.
public enum GraphQLProtocol: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Apollo's legacy subscriptions-transport-ws (subprotocol `graphql-ws`). The default.
    case graphQLWS = "graphql-ws"
    /// The `graphql-transport-ws` protocol of the `graphql-ws` library.
    case graphQLTransportWS = "graphql-transport-ws"
    /// The AWS AppSync GraphQL real-time dialect (subprotocol `graphql-ws`, auth in the URL).
    case appSyncGraphQL = "appsync-graphql"

    /// Parses a configuration value.
    /// - Parameter value: `graphql-ws`, `graphql-transport-ws` or `appsync-graphql`.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` naming
    ///   the allowed values.
    public init(parsing value: String) throws {
        guard let parsed = GraphQLProtocol(rawValue: value) else {
            let allowed = GraphQLProtocol.allCases.map(\.rawValue).joined(separator: ", ")
            throw SwitchboardError(
                code: .invalidConfiguration,
                message: "unknown GraphQL protocol '\(value)'; allowed values: \(allowed)")
        }
        self = parsed
    }

    /// The `Sec-WebSocket-Protocol` value offered in the upgrade request.
    public var subprotocol: String {
        switch self {
        case .graphQLWS, .appSyncGraphQL: "graphql-ws"
        case .graphQLTransportWS: "graphql-transport-ws"
        }
    }

    public var description: String { rawValue }

    /// What the state machine needs to know about the dialect.
    var capabilities: Capabilities {
        switch self {
        case .graphQLWS:
            Capabilities(acknowledgesStart: false, serverKeepAlive: .afterFirstKeepAlive, clientPings: false,
                         authorizesEachStart: false)
        case .graphQLTransportWS:
            Capabilities(acknowledgesStart: false, serverKeepAlive: .none, clientPings: true, authorizesEachStart: false)
        case .appSyncGraphQL:
            Capabilities(acknowledgesStart: true, serverKeepAlive: .fromAcknowledgement, clientPings: false,
                         authorizesEachStart: true)
        }
    }

    /// Per-dialect behaviour (protocol doc §4.5 point 3).
    struct Capabilities: Sendable, Hashable {
        enum ServerKeepAlive: Sendable, Hashable {
            /// No server keep-alive messages.
            case none
            /// `ka` messages; the watchdog starts with the first one (legacy reference client).
            case afterFirstKeepAlive
            /// `ka` messages; the watchdog starts at the acknowledgement, with the window it names.
            case fromAcknowledgement
        }
        /// The server acknowledges each subscription (`start_ack`).
        var acknowledgesStart: Bool
        var serverKeepAlive: ServerKeepAlive
        /// The client sends `ping` on an interval and expects a `pong`.
        var clientPings: Bool
        /// Every `start` carries an authorization object (fresh token per start).
        var authorizesEachStart: Bool
    }
}
