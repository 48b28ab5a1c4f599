import Foundation
import Hummingbird
import HummingbirdWebSocket
import HTTPTypes
import NIOCore
import SwitchboardCore

/// `POST /event`: HTTP publishing with the same auth, rules and response shape as the service;
/// and `POST /events`, the emulator's own batch publish (`HTTPPublishRoute+Batch.swift`).
struct HTTPPublishRoute {
    let configuration: SwitchboardEmulator.Configuration
    let bus: EventBus
    let now: @Sendable () -> Date

    func register(on router: Router<EmulatorRequestContext>) {
        router.post("/event") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 22)
            return self.respond(headers: request.headers, body: Data(body.readableBytesView))
        }
        router.post("/events") { request, _ -> Response in
            let body = try await request.body.collect(upTo: Self.maximumBatchBytes)
            return self.respondToBatch(headers: request.headers, body: Data(body.readableBytesView))
        }
    }

    /// The caller the request's `x-api-key` or `Authorization` header names, if accepted.
    func identity(_ headers: HTTPFields, _ authorizer: EmulatorAuthorizer) -> EmulatorIdentity? {
        var auth: [String: String] = [:]
        for field in headers { auth[field.name.canonicalName] = field.value }
        guard case .success(let identity) = authorizer.authenticate(auth, now: now()) else { return nil }
        return identity
    }

    func respond(headers: HTTPFields, body: Data) -> Response {
        let authorizer = EmulatorAuthorizer(auth: configuration.auth)
        guard let identity = identity(headers, authorizer) else {
            return Self.errorResponse(.unauthorized, "UnauthorizedException", "You are not authorized to make this call.")
        }
        guard let object = JSONText.decodeObject(body), let raw = object["channel"] as? String,
            let events = object["events"] as? [Any]
        else {
            return Self.errorResponse(.badRequest, "BadRequestException", "Body must be {\"channel\", \"events\"}")
        }
        let channel: ChannelPath
        do {
            channel = try ChannelPath(raw, allowWildcard: false)
        } catch {
            let message = (error as? SwitchboardError)?.message ?? "Invalid channel"
            return Self.errorResponse(.badRequest, "BadRequestException", message)
        }
        guard configuration.namespaces.contains(channel.namespace) else {
            return Self.errorResponse(.unauthorized, "UnauthorizedException", "You are not authorized to make this call.")
        }
        guard authorizer.mayAccess(identity, channel: channel) else {
            return Self.errorResponse(.forbidden, "UnauthorizedException", "Not authorized to access channel \(channel)")
        }
        let identifiers = (0..<PublishValidator.maximumEvents).map { _ in UUID().uuidString.lowercased() }
        switch PublishValidator.validate(events: events, identifiers: identifiers) {
        case .failure(let rejection):
            return Self.errorResponse(.badRequest, rejection.errorType, rejection.message)
        case .success(let outcomes):
            for case .accepted(_, _, let event) in outcomes { bus.publish(channel: channel, event: event) }
            return Self.json(.ok, PublishValidator.responseBody(outcomes))
        }
    }

    static func errorResponse(_ status: HTTPResponse.Status, _ errorType: String, _ message: String) -> Response {
        json(status, ["errors": JSONText.errors(errorType, message)])
    }

    static func json(_ status: HTTPResponse.Status, _ object: [String: Any]) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: JSONText.encode(object))))
    }
}
