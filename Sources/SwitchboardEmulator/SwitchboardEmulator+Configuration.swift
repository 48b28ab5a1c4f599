import Logging

extension SwitchboardEmulator {
    /// How the emulator listens, authorizes and paces its connections.
    ///
    /// The emulator always binds `127.0.0.1`; ``port`` `0` (the default) lets the system pick a free
    /// port, which ``Endpoints`` then reports.
    public struct Configuration: Sendable {
        /// The TCP port to listen on; `0` picks a free one.
        public var port: Int
        /// Who may connect, subscribe and publish.
        public var auth: Auth
        /// The channel namespaces the API defines; anything else is rejected as the service does
        /// (`UnauthorizedException`). Defaults to `["vortex-app"]`.
        public var namespaces: Set<String>
        /// How often a `ka` frame is sent to each AppSync Events and `/graphql` (`graphql-ws`) connection. Defaults to 60 s.
        public var keepAliveInterval: Duration
        /// The `connectionTimeoutMs` advertised in `connection_ack`. Defaults to 300 000.
        public var connectionTimeoutMs: Int
        /// The most subscriptions one connection may hold, on every protocol and dialect
        /// (beyond it, `MaxSubscriptionsReachedError` on AppSync Events and the AppSync GraphQL
        /// dialect; `Subscription limit reached`, as strawberry-graphql words it, on `graphql-ws`
        /// and `graphql-transport-ws`).
        public var maximumSubscriptionsPerConnection: Int
        /// A JSON Lines file that records every frame in and out, or nil (the default) to record
        /// nothing. The file is created or truncated at start. See <doc:RecordingFormat>.
        public var recordingPath: String?
        /// How long a `graphql-transport-ws` client on `/graphql` has to send `connection_init`
        /// before the socket is closed with 4408. Defaults to 3 s.
        public var graphQLConnectionInitTimeout: Duration = .seconds(3)
        /// The logger; frames at trace, lifecycle at debug. Credentials are never logged.
        public var logger: Logger
        /// Serve `wss`/`https` with a self-signed certificate for `localhost` and `127.0.0.1`,
        /// made at start; ``Endpoints/certificatePEM`` is what clients trust. Defaults to false.
        public var tls = false
        /// The most events the event log behind the sync endpoints keeps; the oldest is dropped
        /// beyond it. Defaults to 100 000.
        public var eventLogCapacity = 100_000
        /// The most events in one `sync.stream.batch` frame. Defaults to 500.
        public var syncStreamBatchSize = 500
        /// How far the emulator's wall clock runs ahead of this machine's (negative: behind). It
        /// moves the backend's times: `publishedAt`, checkpoints made from times, and
        /// `serverTime`. Zero by default; the clock-skew tests use it to put the backend ahead of
        /// or behind a client on the same machine.
        public var clockOffset: Duration = .zero
        /// Whether the sync answers (`sync.stream.start`, each `GET /sync/pull` page) carry the
        /// server's time, `serverTime` (contract §6, "Clocks"). On by default; off, the emulator
        /// plays a backend that predates it.
        public var sendsServerTime = true

        /// Creates a configuration.
        /// - Parameters:
        ///   - port: The TCP port, `0` for any free port.
        ///   - auth: The accepted credentials.
        ///   - namespaces: The defined channel namespaces.
        ///   - keepAliveInterval: The interval between `ka` frames.
        ///   - connectionTimeoutMs: The value advertised in `connection_ack`.
        ///   - maximumSubscriptionsPerConnection: The subscription limit per connection.
        ///   - recordingPath: A JSON Lines file to record every frame to, or nil.
        ///   - logger: The logger to use.
        public init(
            port: Int = 0,
            auth: Auth,
            namespaces: Set<String> = ["vortex-app"],
            keepAliveInterval: Duration = .seconds(60),
            connectionTimeoutMs: Int = 300_000,
            maximumSubscriptionsPerConnection: Int = 200,
            recordingPath: String? = nil,
            logger: Logger
        ) {
            self.port = port
            self.auth = auth
            self.namespaces = namespaces
            self.keepAliveInterval = keepAliveInterval
            self.connectionTimeoutMs = connectionTimeoutMs
            self.maximumSubscriptionsPerConnection = maximumSubscriptionsPerConnection
            self.recordingPath = recordingPath
            self.logger = logger
        }
    }

    /// The credentials the emulator accepts, as the backend's authorizer would.
    ///
    /// An API key has full access to every channel of a defined namespace. A JWT (HS256, signed
    /// with ``jwtSecret``, `exp` checked) identifies the user by its `sub` claim and may only use
    /// channels under `<namespace>/user/<sub>/…`.
    public struct Auth: Sendable {
        /// The accepted API keys (`x-api-key`).
        public var apiKeys: Set<String>
        /// The HMAC-SHA256 secret that signs accepted JWTs (`Authorization`), or nil to refuse JWTs.
        public var jwtSecret: [UInt8]?

        /// Creates an auth configuration.
        /// - Parameters:
        ///   - apiKeys: The accepted API keys.
        ///   - jwtSecret: The HS256 secret for JWTs, or nil.
        public init(apiKeys: Set<String> = [], jwtSecret: [UInt8]? = nil) {
            self.apiKeys = apiKeys
            self.jwtSecret = jwtSecret
        }
    }

    /// Where a running emulator can be reached.
    public struct Endpoints: Sendable, Hashable {
        /// The bound port.
        public var port: Int
        /// With TLS, the self-signed certificate (PEM) the emulator presents; nil without TLS.
        public var certificatePEM: String?
        /// The AppSync Events WebSocket URL, `ws://127.0.0.1:<port>/event/realtime` (`wss://` with TLS).
        public var realtimeURL: String { "\(webSocketScheme)://127.0.0.1:\(port)/event/realtime" }
        /// The AppSync Events HTTP publish URL, `http://127.0.0.1:<port>/event` (`https://` with TLS).
        public var httpURL: String { "\(httpScheme)://127.0.0.1:\(port)/event" }
        /// The emulator's batch publish URL, `http://127.0.0.1:<port>/events` (`https://` with TLS):
        /// a JSON array of `{"channel", "event"}` published in order in one request; the service
        /// has no such route.
        public var batchPublishURL: String { "\(httpScheme)://127.0.0.1:\(port)/events" }
        /// The legacy GraphQL WebSocket URL, `ws://127.0.0.1:<port>/graphql` (`graphql-ws`, `graphql-transport-ws` and the AppSync GraphQL dialect).
        public var graphQLURL: String { "\(webSocketScheme)://127.0.0.1:\(port)/graphql" }
        /// The sync stream's WebSocket URL, `ws://127.0.0.1:<port>/v1/sync/stream` (`wss://` with TLS).
        public var syncStreamURL: String { "\(webSocketScheme)://127.0.0.1:\(port)/v1/sync/stream" }
        /// The REST fallback's base URL, `http://127.0.0.1:<port>` (`GET /sync/pull` below it).
        public var syncBaseURL: String { "\(httpScheme)://127.0.0.1:\(port)" }
        /// The server-sent events stream, `http://127.0.0.1:<port>/sse/v1/events` (`https://` with
        /// TLS); subscriptions are added below it (see ``SwitchboardEmulator``).
        public var serverSentEventsURL: String { "\(httpScheme)://127.0.0.1:\(port)\(ServerSentEventsRoutes.streamPath)" }
        /// The base of the control endpoints, `http://127.0.0.1:<port>/control`.
        public var controlURL: String { "\(httpScheme)://127.0.0.1:\(port)/control" }

        /// Creates endpoints.
        /// - Parameters:
        ///   - port: The bound port.
        ///   - certificatePEM: The certificate served with TLS, or nil for plain `ws`/`http`.
        public init(port: Int, certificatePEM: String? = nil) {
            self.port = port
            self.certificatePEM = certificatePEM
        }

        private var webSocketScheme: String { certificatePEM == nil ? "ws" : "wss" }
        private var httpScheme: String { certificatePEM == nil ? "http" : "https" }
        /// The `host` value clients put in their auth header object.
        public var host: String { "127.0.0.1:\(port)" }
    }
}
