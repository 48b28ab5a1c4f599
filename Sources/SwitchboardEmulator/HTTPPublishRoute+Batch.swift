import Foundation
import Hummingbird
import HTTPTypes
import SwitchboardCore

/// `POST /events`: the emulator's batch publish, which the service does not have.
///
/// The body is a JSON array of `{"channel": "<channel>", "event": "<JSON text>"}` objects, up to
/// ``HTTPPublishRoute/maximumBatchEvents`` of them, on any channels; the auth and the per-event
/// rules are those of `POST /event`. The whole batch is checked first and then published in array
/// order, so a refused batch publishes nothing, and events on one channel leave in the order the
/// array gives them. A driver in another process (`switchboard soak`) sends what fell due in one
/// request instead of one request per channel and five events. The answer is `{"published": n}`;
/// a refusal is `{"errors": [{"errorType", "message"}]}` with 400 (the message names the first
/// offending item, `events[3]: event is not valid JSON`), 401 or 403.
extension HTTPPublishRoute {
    /// The most events one batch may carry.
    static let maximumBatchEvents = 1_000
    /// The largest batch body accepted, in bytes (4 MiB); a larger one is answered 413.
    static let maximumBatchBytes = 1 << 22

    func respondToBatch(headers: HTTPFields, body: Data) -> Response {
        let authorizer = EmulatorAuthorizer(auth: configuration.auth)
        guard let identity = identity(headers, authorizer) else {
            return Self.errorResponse(.unauthorized, "UnauthorizedException", "You are not authorized to make this call.")
        }
        switch Self.batch(body, identity: identity, authorizer: authorizer, namespaces: configuration.namespaces) {
        case .failure(let refusal):
            return Self.errorResponse(refusal.status, refusal.errorType, refusal.message)
        case .success(let events):
            for event in events { bus.publish(channel: event.channel, event: event.text) }
            return Self.json(.ok, ["published": events.count])
        }
    }

    /// Why a batch is refused.
    struct BatchRefusal: Error, Equatable {
        var status: HTTPResponse.Status
        var errorType: String
        var message: String

        static func badRequest(_ message: String, type: String = "BadRequestException") -> Self {
            Self(status: .badRequest, errorType: type, message: message)
        }
    }

    /// Reads and checks a batch body; pure.
    /// - Returns: The events in array order, or the first reason to refuse the whole batch.
    static func batch(
        _ body: Data, identity: EmulatorIdentity, authorizer: EmulatorAuthorizer, namespaces: Set<String>
    ) -> Result<[(channel: ChannelPath, text: String)], BatchRefusal> {
        let shape = #"the body must be a JSON array of {"channel": "<channel>", "event": "<JSON text>"} objects"#
        guard let items = (try? JSONSerialization.jsonObject(with: body)) as? [Any] else {
            return .failure(.badRequest(shape))
        }
        guard !items.isEmpty else { return .failure(.badRequest("the batch has no events", type: "InvalidInputError")) }
        guard items.count <= maximumBatchEvents else {
            return .failure(.badRequest(
                "the batch has \(items.count) events; at most \(maximumBatchEvents) are accepted", type: "InvalidInputError"))
        }
        var events: [(channel: ChannelPath, text: String)] = []
        events.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard let object = item as? [String: Any], let raw = object["channel"] as? String, let event = object["event"] else {
                return .failure(.badRequest("events[\(index)]: \(shape)"))
            }
            let channel: ChannelPath
            do {
                channel = try ChannelPath(raw, allowWildcard: false)
            } catch {
                return .failure(.badRequest("events[\(index)]: \((error as? SwitchboardError)?.message ?? "invalid channel")"))
            }
            guard namespaces.contains(channel.namespace) else {
                return .failure(BatchRefusal(
                    status: .unauthorized, errorType: "UnauthorizedException",
                    message: "events[\(index)]: no namespace \(channel.namespace) is defined"))
            }
            guard authorizer.mayAccess(identity, channel: channel) else {
                return .failure(BatchRefusal(
                    status: .forbidden, errorType: "UnauthorizedException",
                    message: "events[\(index)]: Not authorized to access channel \(channel)"))
            }
            switch PublishValidator.check(event: event) {
            case .failure(let rejection): return .failure(.badRequest("events[\(index)]: \(rejection.message)", type: rejection.errorType))
            case .success(let text): events.append((channel, text))
            }
        }
        return .success(events)
    }
}
