import Foundation
import Switchboard
import SwitchboardGraphQL
import SwitchboardNIO

/// Builds the one transport a command runs, from the resolved options.
enum TransportFactory {
    /// Where the transport connects.
    struct Endpoint: Sendable {
        /// The WebSocket URL.
        var url: URL
        /// The AppSync HTTP endpoint, whose host authorizes the connection (derived from `url`
        /// when nil).
        var httpURL: URL?

        /// The `host` value AppSync authorization carries: the HTTP endpoint's host (and port).
        var httpHost: String? {
            let source = httpURL ?? url
            guard let host = source.host else { return nil }
            let derived =
                httpURL == nil ? host.replacingOccurrences(of: "appsync-realtime-api", with: "appsync-api") : host
            return source.port.map { "\(derived):\($0)" } ?? derived
        }
    }

    /// Everything a transport is made from, so a command can make it later over a wrapped
    /// connector (`check` watches the socket through a ``ConnectionProbe``).
    struct Setup: Sendable {
        var kind: TransportKind
        var endpoint: Endpoint
        var authorization: AuthSpec
        var wireProtocol: GraphQLProtocol
        var reconnectPolicy: ReconnectPolicy
        /// The real connector.
        var connector: NIOWebSocketConnector

        /// The transport over `connector` (the real one, or one wrapping it).
        func make(_ connector: any WebSocketConnector) throws -> any EventTransport {
            try TransportFactory.make(
                kind, endpoint: endpoint, authorization: authorization, wireProtocol: wireProtocol,
                reconnectPolicy: reconnectPolicy, over: connector)
        }
    }

    static func make(
        _ kind: TransportKind, endpoint: Endpoint, authorization: AuthSpec, wireProtocol: GraphQLProtocol,
        reconnectPolicy: ReconnectPolicy, connector: NIOWebSocketConnector = NIOWebSocketConnector()
    ) throws -> any EventTransport {
        try make(kind, endpoint: endpoint, authorization: authorization, wireProtocol: wireProtocol,
                 reconnectPolicy: reconnectPolicy, over: connector)
    }

    static func make(
        _ kind: TransportKind, endpoint: Endpoint, authorization: AuthSpec, wireProtocol: GraphQLProtocol,
        reconnectPolicy: ReconnectPolicy, over connector: any WebSocketConnector
    ) throws -> any EventTransport {
        switch kind {
        case .graphql:
            return GraphQLSubscriber(
                configuration: .init(
                    url: endpoint.url, wireProtocol: wireProtocol, reconnectPolicy: reconnectPolicy,
                    appSyncHost: endpoint.httpHost,
                    appSyncAuthorization: authorization == .apiKey(authorization.secret) ? .apiKey : .authorizationHeader),
                connector: connector)
        case .appsync:
            return try makeAppSync(endpoint: endpoint, authorization: authorization, reconnectPolicy: reconnectPolicy, connector: connector)
        default:
            throw SwitchboardError(
                code: .invalidConfiguration,
                message: "the CLI runs the built-in transports only (\(TransportKind.builtIn.map(\.rawValue).joined(separator: ", "))), not \(kind)")
        }
    }
}
