import Foundation
import SwitchboardCore

/// The server side of one AppSync Events connection, as a pure state machine: it turns each
/// inbound text frame into actions and never reads the clock or makes ids itself.
struct AppSyncSession {
    enum Action: Equatable {
        /// Send this JSON text frame.
        case send(String)
        /// Register subscription `id` on the bus.
        case subscribe(id: String, channel: ChannelPath)
        /// Remove subscription `id` from the bus.
        case unsubscribe(id: String)
        /// Publish an event to the bus.
        case publish(channel: ChannelPath, event: String)
    }

    private let authorizer: EmulatorAuthorizer
    private let namespaces: Set<String>
    private let connectionTimeoutMs: Int
    private let maximumSubscriptions: Int
    private(set) var subscriptions: [String: ChannelPath] = [:]

    init(authorizer: EmulatorAuthorizer, namespaces: Set<String>, connectionTimeoutMs: Int, maximumSubscriptions: Int) {
        self.authorizer = authorizer
        self.namespaces = namespaces
        self.connectionTimeoutMs = connectionTimeoutMs
        self.maximumSubscriptions = maximumSubscriptions
    }

    /// Handles one inbound text frame.
    /// - Parameters:
    ///   - text: The frame.
    ///   - now: The wall-clock time, for token expiry.
    ///   - identifiers: Fresh identifiers for published events (at least five).
    mutating func received(_ text: String, now: Date, identifiers: [String]) -> [Action] {
        guard let message = JSONText.decodeObject(text), let type = message["type"] as? String else {
            return [.send(JSONText.encode([
                "type": "error",
                "errors": JSONText.errors("UnsupportedOperation", "Frame is not a JSON object with a type"),
            ]))]
        }
        let id = message["id"] as? String
        switch type {
        case "connection_init":
            return [.send(JSONText.encode(["type": "connection_ack", "connectionTimeoutMs": connectionTimeoutMs]))]
        case "subscribe":
            return subscribe(message, id: id, now: now)
        case "unsubscribe":
            return unsubscribe(id: id)
        case "publish":
            return publish(message, id: id, now: now, identifiers: identifiers)
        default:
            var frame: [String: Any] = [
                "type": "error",
                "errors": JSONText.errors("UnsupportedOperation", "Operation not supported through the realtime channel"),
            ]
            if let id { frame["id"] = id }
            return [.send(JSONText.encode(frame))]
        }
    }

    private func failure(_ type: String, id: String?, _ errorType: String, _ message: String) -> [Action] {
        var frame: [String: Any] = ["type": type, "errors": JSONText.errors(errorType, message)]
        if let id { frame["id"] = id }
        return [.send(JSONText.encode(frame))]
    }

    /// Validates id, channel, namespace and authorization; returns the channel or the error.
    private func check(
        _ message: [String: Any], id: String?, allowWildcard: Bool, now: Date
    ) -> Result<ChannelPath, PublishValidator.Rejection> {
        guard let id, (try? OperationID.validate(id)) != nil else {
            return .failure(.init(errorType: "BadRequestException", message: "Invalid operation id"))
        }
        guard let raw = message["channel"] as? String else {
            return .failure(.init(errorType: "BadRequestException", message: "Missing channel"))
        }
        let channel: ChannelPath
        do {
            channel = try ChannelPath(raw, allowWildcard: allowWildcard)
        } catch let error as SwitchboardError {
            return .failure(.init(errorType: "BadRequestException", message: error.message))
        } catch {
            return .failure(.init(errorType: "BadRequestException", message: "Invalid channel"))
        }
        guard namespaces.contains(channel.namespace) else {
            return .failure(.init(errorType: "UnauthorizedException", message: "You are not authorized to make this call."))
        }
        let headers = (message["authorization"] as? [String: Any])?.compactMapValues { $0 as? String } ?? [:]
        switch authorizer.authenticate(headers, now: now) {
        case .failure:
            return .failure(.init(errorType: "UnauthorizedException", message: "You are not authorized to make this call."))
        case .success(let identity):
            guard authorizer.mayAccess(identity, channel: channel) else {
                return .failure(.init(errorType: "Unauthorized", message: "Not authorized to access channel \(channel)"))
            }
        }
        return .success(channel)
    }

    private mutating func subscribe(_ message: [String: Any], id: String?, now: Date) -> [Action] {
        switch check(message, id: id, allowWildcard: true, now: now) {
        case .failure(let rejection):
            return failure("subscribe_error", id: id, rejection.errorType, rejection.message)
        case .success(let channel):
            guard let id else { return [] }
            if subscriptions[id] != nil {
                return failure("subscribe_error", id: id, "BadRequestException", "Subscription id \(id) is duplicated")
            }
            if subscriptions.count >= maximumSubscriptions {
                return failure("subscribe_error", id: id, "MaxSubscriptionsReachedError",
                               "Maximum number of subscriptions (\(maximumSubscriptions)) reached")
            }
            subscriptions[id] = channel
            return [.subscribe(id: id, channel: channel),
                    .send(JSONText.encode(["type": "subscribe_success", "id": id]))]
        }
    }

    private mutating func unsubscribe(id: String?) -> [Action] {
        guard let id, subscriptions.removeValue(forKey: id) != nil else {
            return failure("unsubscribe_error", id: id, "UnknownOperationError", "Unknown operation id \(id ?? "")")
        }
        return [.unsubscribe(id: id), .send(JSONText.encode(["type": "unsubscribe_success", "id": id]))]
    }

    private func publish(_ message: [String: Any], id: String?, now: Date, identifiers: [String]) -> [Action] {
        let channel: ChannelPath
        switch check(message, id: id, allowWildcard: false, now: now) {
        case .failure(let rejection):
            return failure("publish_error", id: id, rejection.errorType, rejection.message)
        case .success(let checked):
            channel = checked
        }
        guard let events = message["events"] as? [Any] else {
            return failure("publish_error", id: id, "BadRequestException", "Missing events")
        }
        switch PublishValidator.validate(events: events, identifiers: identifiers) {
        case .failure(let rejection):
            return failure("publish_error", id: id, rejection.errorType, rejection.message)
        case .success(let outcomes):
            var frame = PublishValidator.responseBody(outcomes)
            frame["type"] = "publish_success"
            frame["id"] = id
            var actions: [Action] = [.send(JSONText.encode(frame))]
            for case .accepted(_, _, let event) in outcomes { actions.append(.publish(channel: channel, event: event)) }
            return actions
        }
    }
}
