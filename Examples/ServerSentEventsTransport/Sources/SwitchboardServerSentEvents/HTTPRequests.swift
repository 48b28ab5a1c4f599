import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SwitchboardCore

/// The transport's HTTP side: opening the event stream, and the subscribe and unsubscribe
/// requests of one connection.
struct HTTPRequests: Sendable {
    let configuration: ServerSentEventsTransport.Configuration
    private let session: URLSession

    init(configuration: ServerSentEventsTransport.Configuration) {
        self.configuration = configuration
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = 30
        session = URLSession(configuration: sessionConfiguration)
    }

    /// A GET of the event stream with `token`; not started yet.
    func openStream(token: String) -> EventStreamRequest {
        var request = URLRequest(url: configuration.streamURL)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue(token, forHTTPHeaderField: "Authorization")
        return EventStreamRequest(request, idleTimeout: configuration.idleTimeout)
    }

    /// Asks the server to add subscription `wireId` to `channel` on connection `connectionId`.
    /// - Returns: The HTTP status.
    func subscribe(connectionId: String, wireId: String, channel: String, token: String) async throws -> Int {
        var request = URLRequest(url: subscriptionsURL(connectionId))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(token, forHTTPHeaderField: "Authorization")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["id": wireId, "channel": channel])
        return try await status(of: request)
    }

    /// Asks the server to remove subscription `wireId` of connection `connectionId`.
    /// - Returns: The HTTP status.
    func unsubscribe(connectionId: String, wireId: String, token: String) async throws -> Int {
        var request = URLRequest(url: subscriptionsURL(connectionId).appendingPathComponent(wireId))
        request.httpMethod = "DELETE"
        request.setValue(token, forHTTPHeaderField: "Authorization")
        return try await status(of: request)
    }

    func close() { session.finishTasksAndInvalidate() }

    private func subscriptionsURL(_ connectionId: String) -> URL {
        configuration.streamURL.appendingPathComponent(connectionId).appendingPathComponent("subscriptions")
    }

    private func status(of request: URLRequest) async throws -> Int {
        let (_, response) = try await session.cancellableData(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}
