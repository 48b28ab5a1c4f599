import Foundation

/// The three GraphQL-over-WebSocket dialects the `/graphql` route speaks.
enum GraphQLDialect: Sendable, Equatable {
    /// Apollo's subscriptions-transport-ws (subprotocol `graphql-ws`).
    case graphqlWS
    /// enisdenjo/graphql-ws (subprotocol `graphql-transport-ws`).
    case transportWS
    /// The AppSync GraphQL real-time dialect (subprotocol `graphql-ws` with `header`/`payload`
    /// query parameters); the connection was authenticated at the upgrade.
    case appSync(EmulatorIdentity)
}

/// The protocol state of one `/graphql` connection, as a pure state machine: frames and the init
/// timeout go in, actions come out. No clock or I/O.
struct GraphQLSession {
    /// What the driver does.
    enum Action: Equatable {
        /// Write a text frame.
        case send(String)
        /// Register a subscription on the bus.
        case subscribe(id: String, LegacySubscription)
        /// Remove a subscription.
        case unsubscribe(id: String)
        /// Start sending `ka` frames (legacy and AppSync dialects).
        case startKeepAlive
        /// Close the socket with this code.
        case close(code: UInt16, reason: String)
    }

    let dialect: GraphQLDialect
    let authorizer: EmulatorAuthorizer
    let connectionTimeoutMs: Int
    let maximumSubscriptions: Int
    private(set) var identity: EmulatorIdentity?
    private var initReceived = false
    private var active: Set<String> = []

    init(dialect: GraphQLDialect, authorizer: EmulatorAuthorizer, connectionTimeoutMs: Int, maximumSubscriptions: Int) {
        self.dialect = dialect
        self.authorizer = authorizer
        self.connectionTimeoutMs = connectionTimeoutMs
        self.maximumSubscriptions = maximumSubscriptions
        if case .appSync(let identity) = dialect { self.identity = identity }
    }

    /// The transport-ws init deadline passed: close 4408 unless the init arrived.
    mutating func initTimedOut() -> [Action] {
        guard dialect == .transportWS, !initReceived else { return [] }
        return [.close(code: 4408, reason: "Connection initialisation timeout")]
    }

    /// Handles one inbound text frame.
    mutating func received(_ text: String, now: Date) -> [Action] {
        guard let frame = JSONText.decodeObject(text), let type = frame["type"] as? String else {
            switch dialect {
            case .transportWS: return [.close(code: 4400, reason: "Invalid message received")]
            case .graphqlWS: return [.send(JSONText.encode(["type": "connection_error", "payload": ["message": "Message must be JSON-parseable"]]))]
            case .appSync:
                return [.send(JSONText.encode(["type": "connection_error", "payload": ["errors": JSONText.errors("BadRequestException", "Invalid JSON", code: 400)]]))]
            }
        }
        let id = frame["id"] as? String
        switch (dialect, type) {
        case (_, "connection_init"):
            return connectionInit(frame["payload"] as? [String: Any], now: now)
        case (.transportWS, "ping"):
            var pong: [String: Any] = ["type": "pong"]
            if let payload = frame["payload"] { pong["payload"] = payload }
            return [.send(JSONText.encode(pong))]
        case (.transportWS, "pong"):
            return []
        case (.transportWS, "subscribe"):
            guard let id, let payload = frame["payload"] as? [String: Any] else {
                return [.close(code: 4400, reason: "Invalid message received")]
            }
            guard identity != nil else { return [.close(code: 4401, reason: "Unauthorized")] }
            guard !active.contains(id) else { return [.close(code: 4409, reason: "Subscriber for \(id) already exists")] }
            return start(
                id: id, query: payload["query"], variables: payload["variables"], operationName: payload["operationName"],
                identity: identity!)
        case (.transportWS, "complete"):
            guard let id else { return [.close(code: 4400, reason: "Invalid message received")] }
            return active.remove(id) == nil ? [] : [.unsubscribe(id: id)]
        case (.graphqlWS, "start"):
            guard let id, let payload = frame["payload"] as? [String: Any], let identity = self.identity else {
                return [.send(errorFrame(id: id, [["message": "Invalid start message"]]))]
            }
            var actions: [Action] = []
            if active.remove(id) != nil { actions.append(.unsubscribe(id: id)) }
            return actions + start(
                id: id, query: payload["query"], variables: payload["variables"], operationName: payload["operationName"],
                identity: identity)
        case (.graphqlWS, "stop"), (.appSync, "stop"):
            guard let id else { return [] }
            guard active.remove(id) != nil else { return [] }
            return [.unsubscribe(id: id), .send(JSONText.encode(["type": "complete", "id": id]))]
        case (.graphqlWS, "connection_terminate"):
            return [.close(code: 1000, reason: "")]
        case (.appSync, "start"):
            return appSyncStart(id: id, frame: frame, now: now)
        case (.transportWS, _):
            return [.close(code: 4400, reason: "Invalid message received")]
        default:
            return [.send(errorFrame(id: id, [["message": "Invalid message type!"]]))]
        }
    }

    private mutating func connectionInit(_ payload: [String: Any]?, now: Date) -> [Action] {
        switch dialect {
        case .appSync:
            return [.send(JSONText.encode(["type": "connection_ack", "payload": ["connectionTimeoutMs": connectionTimeoutMs]])),
                    .startKeepAlive]
        case .transportWS where initReceived:
            return [.close(code: 4429, reason: "Too many initialisation requests")]
        case .transportWS:
            initReceived = true
            guard case .success(let identity) = authorizer.authenticate(initCredentials(payload), now: now) else {
                return [.close(code: 4403, reason: "Forbidden")]
            }
            self.identity = identity
            return [.send(#"{"type":"connection_ack"}"#)]
        case .graphqlWS:
            initReceived = true
            guard case .success(let identity) = authorizer.authenticate(initCredentials(payload), now: now) else {
                // As strawberry-graphql (the legacy fixtures' server) refuses it: the error, then
                // 1011 with no reason.
                return [.send(JSONText.encode(["type": "connection_error", "payload": ["message": "Unauthorized"]])),
                        .close(code: 1011, reason: "")]
            }
            self.identity = identity
            return [.send(#"{"type":"connection_ack"}"#), .send(#"{"type":"ka"}"#), .startKeepAlive]
        }
    }

    private mutating func appSyncStart(id: String?, frame: [String: Any], now: Date) -> [Action] {
        guard let id, let payload = frame["payload"] as? [String: Any], let dataText = payload["data"] as? String,
            let request = JSONText.decodeObject(dataText)
        else {
            return [.send(appSyncError(id: id, "BadRequestException", "Invalid start message"))]
        }
        guard !active.contains(id) else { return [.send(appSyncError(id: id, "DuplicatedOperationError", "Duplicate subscription ID"))] }
        let authorization = ((payload["extensions"] as? [String: Any])?["authorization"] as? [String: Any]) ?? [:]
        guard case .success(let identity) = authorizer.authenticate(Self.strings(authorization), now: now) else {
            return [.send(appSyncError(id: id, "UnauthorizedException", "You are not authorized to make this call."))]
        }
        guard active.count < maximumSubscriptions else {
            return [.send(appSyncError(id: id, "MaxSubscriptionsReachedError", "Max number of subscriptions reached"))]
        }
        return start(
            id: id, query: request["query"], variables: request["variables"], operationName: request["operationName"],
            identity: identity)
    }

    /// Parses, validates and authorises one subscription; answers in the dialect's shape.
    private mutating func start(id: String, query: Any?, variables: Any?, operationName: Any?, identity: EmulatorIdentity) -> [Action] {
        guard let query = query as? String else { return [.send(errorFrame(id: id, [["message": "Must provide query string."]]))] }
        let read = SubscriptionDocument.read(
            query, variables: variables as? [String: Any] ?? [:], operationName: operationName as? String)
        switch read {
        case .failure(let failure):
            return refusal(id: id, failure)
        case .success(let subscription):
            if case .user(let userId) = identity, subscription.field != "subscribeOrganizationState", userId != subscription.argument {
                return [.send(errorFrame(id: id, [[
                    "message": "Not Authorized to access \(subscription.field) on type Subscription",
                    "errorType": "Unauthorized",
                ]]))]
            }
            // The AppSync dialect checked the limit before the document, as AppSync does. The
            // other dialects have no standard limit; the emulator's answers as strawberry-graphql's
            // `max_subscriptions_per_connection` does (the legacy fixtures' server).
            guard active.count < maximumSubscriptions else {
                return [.send(errorFrame(id: id, [["message": "Subscription limit reached"]]))]
            }
            active.insert(id)
            var actions: [Action] = [.subscribe(id: id, subscription)]
            if case .appSync = dialect { actions.append(.send(JSONText.encode(["type": "start_ack", "id": id]))) }
            return actions
        }
    }

    /// A refused document, as each dialect's reference server answers it:
    /// - graphql-transport-ws (graphql-ws): syntax and validation errors are an `error` frame
    ///   with the errors array and no `complete`; variable-coercion errors are the result of
    ///   `subscribe()`, so a `next` carrying `{errors}` followed by `complete`.
    /// - graphql-ws (subscriptions-transport-ws): a parse error is thrown, so an `error` frame
    ///   whose payload is `{message}`; validation and coercion errors are a `data` frame with
    ///   `{errors}` followed by `complete`.
    /// - AppSync: an `error` frame with `payload.errors`.
    private func refusal(id: String, _ failure: DocumentFailure) -> [Action] {
        let errors = failure.errors.map(\.json)
        let complete = JSONText.encode(["type": "complete", "id": id])
        switch (dialect, failure.stage) {
        case (.graphqlWS, .syntax):
            return [.send(errorFrame(id: id, [["message": failure.errors.first?.message ?? "Syntax Error"]]))]
        case (.graphqlWS, _):
            return [.send(JSONText.encode(["type": "data", "id": id, "payload": ["errors": errors]])), .send(complete)]
        case (.transportWS, .execution):
            return [.send(JSONText.encode(["type": "next", "id": id, "payload": ["errors": errors]])), .send(complete)]
        default:
            return [.send(errorFrame(id: id, errors))]
        }
    }

    /// The dialect's `error` frame: transport-ws carries the list, legacy one object, AppSync `{errors}`.
    private func errorFrame(id: String?, _ errors: [[String: Any]]) -> String {
        var frame: [String: Any] = ["type": "error"]
        if let id { frame["id"] = id }
        switch dialect {
        case .transportWS: frame["payload"] = errors
        case .graphqlWS: frame["payload"] = errors.first ?? [:]
        case .appSync: frame["payload"] = ["errors": errors]
        }
        return JSONText.encode(frame)
    }

    private func appSyncError(id: String?, _ errorType: String, _ message: String) -> String {
        var frame: [String: Any] = ["type": "error", "payload": ["errors": JSONText.errors(errorType, message)]]
        if let id { frame["id"] = id }
        return JSONText.encode(frame)
    }

    /// The `data`/`next` frame of one delivered result; `errors` only when there are some.
    static func resultFrame(dialect: GraphQLDialect, id: String, data: [String: Any], errors: [[String: Any]] = []) -> String {
        var payload: [String: Any] = ["data": data]
        if !errors.isEmpty { payload["errors"] = errors }
        return JSONText.encode(["type": dialect == .transportWS ? "next" : "data", "id": id, "payload": payload])
    }

    private static func strings(_ object: [String: Any]?) -> [String: String] {
        (object ?? [:]).compactMapValues { $0 as? String }
    }

    /// The `connection_init` payload as an auth object: `{"Authorization": token}`, where the
    /// token may be a JWT or one of the API keys.
    private func initCredentials(_ payload: [String: Any]?) -> [String: String] {
        var credentials = Self.strings(payload)
        if let key = credentials.first(where: { $0.key.lowercased() == "authorization" }),
            authorizer.auth.apiKeys.contains(key.value)
        {
            credentials = ["x-api-key": key.value]
        }
        return credentials
    }
}
