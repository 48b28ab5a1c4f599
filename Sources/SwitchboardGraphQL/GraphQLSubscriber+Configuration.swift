import Foundation
import Logging
import CoreMetrics
import SwitchboardCore

extension GraphQLSubscriber {
    /// How AppSync GraphQL authorizes the connection and each `start`.
    public enum AppSyncAuthorization: Sendable, Hashable {
        /// `Authorization: <token>` (Cognito user pools, OIDC, Lambda authorizers).
        case authorizationHeader
        /// `x-api-key: <token>` (API key mode; the token provider returns the key).
        case apiKey
    }

    /// Everything a ``GraphQLSubscriber`` needs besides the socket engine.
    public struct Configuration: Sendable {
        /// The WebSocket endpoint (`ws` or `wss`). For AppSync GraphQL, the real-time endpoint
        /// (`wss://<id>.appsync-realtime-api.<region>.amazonaws.com/graphql`) without a query.
        public var url: URL
        /// The wire dialect; ``GraphQLProtocol/graphQLWS`` by default.
        public var wireProtocol: GraphQLProtocol
        /// When to reconnect after losing the connection; ``/SwitchboardCore/ReconnectPolicy/standard`` by default.
        public var reconnectPolicy: ReconnectPolicy
        /// How long to wait for `connection_ack` after the socket opened; 10 s by default.
        public var ackTimeout: Duration
        /// The keep-alive window: `graphql-ws` closes and reconnects when no `ka` arrives for
        /// this long (the watchdog starts with the first `ka`); AppSync uses it only when the
        /// ack has no `connectionTimeoutMs`. 30 s by default.
        public var keepAliveTimeout: Duration
        /// `graphql-transport-ws`: how often the client sends `ping`; nil turns pings off. 15 s by default.
        public var pingInterval: Duration?
        /// `graphql-transport-ws`: how long a `pong` may take before the connection counts as
        /// dead; 10 s by default.
        public var pongTimeout: Duration
        /// Extra headers for the upgrade request. Never logged.
        public var headers: [(name: String, value: String)]
        /// AppSync GraphQL: the GraphQL API host (`<id>.appsync-api.<region>.amazonaws.com`) that
        /// goes into every authorization object. Required for that dialect.
        public var appSyncHost: String?
        /// AppSync GraphQL: how the token is presented; ``AppSyncAuthorization/authorizationHeader`` by default.
        public var appSyncAuthorization: AppSyncAuthorization
        /// The clock for every timeout and delay.
        public var clock: any Clock<Duration>
        /// The source of reconnect jitter (and of the per-transport id prefix).
        public var random: any RandomNumberGenerator & Sendable
        /// Where to log: lifecycle at debug, frames at trace. Tokens are never logged.
        public var logger: Logger
        /// Where metrics go; the global `MetricsSystem` when nil.
        public var metricsFactory: (any MetricsFactory)?

        /// Creates a configuration.
        /// - Parameters:
        ///   - url: The WebSocket endpoint.
        ///   - wireProtocol: The dialect.
        ///   - reconnectPolicy: When to reconnect.
        ///   - ackTimeout: The `connection_ack` deadline.
        ///   - keepAliveTimeout: The server keep-alive window.
        ///   - pingInterval: The client ping interval (`graphql-transport-ws`), nil for none.
        ///   - pongTimeout: The pong deadline (`graphql-transport-ws`).
        ///   - headers: Extra upgrade headers.
        ///   - appSyncHost: The AppSync GraphQL API host.
        ///   - appSyncAuthorization: The AppSync authorization mode.
        ///   - clock: The clock.
        ///   - random: The jitter source.
        ///   - logger: The logger; silent by default.
        ///   - metricsFactory: The metrics factory.
        public init(
            url: URL,
            wireProtocol: GraphQLProtocol = .graphQLWS,
            reconnectPolicy: ReconnectPolicy = .standard,
            ackTimeout: Duration = .seconds(10),
            keepAliveTimeout: Duration = .seconds(30),
            pingInterval: Duration? = .seconds(15),
            pongTimeout: Duration = .seconds(10),
            headers: [(name: String, value: String)] = [],
            appSyncHost: String? = nil,
            appSyncAuthorization: AppSyncAuthorization = .authorizationHeader,
            clock: any Clock<Duration> = ContinuousClock(),
            random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
            logger: Logger = Logger(label: "switchboard.graphql", factory: { _ in SwiftLogNoOpLogHandler() }),
            metricsFactory: (any MetricsFactory)? = nil
        ) {
            self.url = url
            self.wireProtocol = wireProtocol
            self.reconnectPolicy = reconnectPolicy
            self.ackTimeout = ackTimeout
            self.keepAliveTimeout = keepAliveTimeout
            self.pingInterval = pingInterval
            self.pongTimeout = pongTimeout
            self.headers = headers
            self.appSyncHost = appSyncHost
            self.appSyncAuthorization = appSyncAuthorization
            self.clock = clock
            self.random = random
            self.logger = logger
            self.metricsFactory = metricsFactory
        }

        /// The AppSync authorization object for `token`.
        func appSyncAuthorizationObject(token: String) -> [String: String] {
            var object = ["host": appSyncHost ?? url.host ?? ""]
            switch appSyncAuthorization {
            case .authorizationHeader: object["Authorization"] = token
            case .apiKey: object["x-api-key"] = token
            }
            return object
        }

        /// The upgrade request for one connection with `token`.
        func request(token: String) throws -> WebSocketRequest {
            var url = url
            if wireProtocol == .appSyncGraphQL {
                let header = try JSONValue.object(appSyncAuthorizationObject(token: token).mapValues(JSONValue.string)).serialized()
                guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
                    throw SwitchboardError(code: .invalidConfiguration, message: "invalid GraphQL URL")
                }
                var items = components.queryItems ?? []
                items.append(URLQueryItem(name: "header", value: header.base64EncodedString()))
                items.append(URLQueryItem(name: "payload", value: Data("{}".utf8).base64EncodedString()))
                components.queryItems = items
                // `+`, `/` and `=` of base64 must survive the query string.
                components.percentEncodedQuery = components.percentEncodedQuery?
                    .replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "/", with: "%2F")
                guard let built = components.url else {
                    throw SwitchboardError(code: .invalidConfiguration, message: "invalid GraphQL URL")
                }
                url = built
            }
            return WebSocketRequest(url: url, subprotocols: [wireProtocol.subprotocol], headers: headers)
        }
    }
}
