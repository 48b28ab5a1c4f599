import Foundation
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardNIO

/// An emulator in another process, driven over HTTP: events go through the emulator's batch
/// route `POST /events` (API key auth), faults through `POST /control/…`, and the subscription
/// count comes from `GET /control/status`.
///
/// A tick's events go in one request, on one connection kept open from tick to tick
/// (``KeepAliveHTTPConnection``), in the order given (so every stream's order holds), as
/// a JSON array of `{"channel", "event"}` that the emulator checks whole and publishes in that
/// order; more than the route's 1,000 go in several requests, one after the other.
/// Before the batch route the soak sent the service's `POST /event`, five events and one channel
/// a request: ten and more requests a tick, a new connection each, which in a debug build fell
/// behind 500 events a second. Publishing is never retried: a retried request whose first answer
/// was lost would publish twice.
struct RemoteSoakServer: SoakServer {
    let endpoints: SwitchboardEmulator.Endpoints
    let apiKey: String
    private let client: NIOHTTPClient
    /// The publisher's connection, kept open from tick to tick.
    private let publishing: KeepAliveHTTPConnection

    /// The most events one `POST /events` carries (the emulator's limit).
    static let maximumBatch = 1_000

    var publishTick: Duration { .milliseconds(20) }

    /// How many connections the publisher opened (one, unless the emulator closed it).
    var publishConnectionsOpened: Int { publishing.connectionsOpened }

    init(endpoints: SwitchboardEmulator.Endpoints, apiKey: String) {
        self.endpoints = endpoints
        self.apiKey = apiKey
        client = NIOHTTPClient(configuration: .init(requestTimeout: .seconds(10)))
        publishing = KeepAliveHTTPConnection(host: "127.0.0.1", port: endpoints.port)
    }

    /// The endpoints of an emulator at `baseURL` (`http://127.0.0.1:<port>`, a trailing path is ignored).
    static func endpoints(baseURL: URL) throws(SoakError) -> SwitchboardEmulator.Endpoints {
        guard baseURL.scheme == "http", let host = baseURL.host, ["127.0.0.1", "localhost"].contains(host), let port = baseURL.port
        else {
            throw SoakError("the emulator URL must be http://127.0.0.1:<port> (the emulator binds 127.0.0.1 only), not \(baseURL)")
        }
        return SwitchboardEmulator.Endpoints(port: port)
    }

    func subscriptionCount() async throws -> Int {
        let answer = try await control("status", [])
        guard let count = Self.object(answer)?["subscriptions"] as? Int else {
            throw SoakError("the emulator's /control/status has no subscription count (an older `switchboard serve`?)")
        }
        return count
    }

    func publish(_ events: [(channel: String, payload: String)]) async throws {
        var next = 0
        while next < events.count {
            let batch = events[next..<min(events.count, next + Self.maximumBatch)]
            let answer = try await publishing.post(
                "/events", headers: [(name: "x-api-key", value: apiKey), (name: "content-type", value: "application/json")],
                body: try Self.batchBody(batch))
            guard answer.status == 200, Self.object(answer.body)?["published"] as? Int == batch.count else {
                throw SoakError("the emulator refused a batch of \(batch.count) events: HTTP \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            }
            next = batch.endIndex
        }
    }

    /// `[{"channel": …, "event": …}, …]`, in order.
    static func batchBody(_ events: ArraySlice<(channel: String, payload: String)>) throws -> Data {
        try JSONEncoder().encode(events.map { BatchItem(channel: $0.channel, event: $0.payload) })
    }

    private struct BatchItem: Encodable {
        var channel: String
        var event: String
    }

    func send(_ command: SoakServerCommand) async throws {
        switch command {
        case .drop(let code, let reason): _ = try await control("drop", [("code", "\(code)"), ("reason", reason)])
        case .abort: _ = try await control("abort", [])
        case .stall(let duration): _ = try await control("stall", [("ms", "\(Self.milliseconds(duration))")])
        case .garbage: _ = try await control("garbage", [])
        case .rejectAuthentication(let next): _ = try await control("reject-auth", [("count", "\(next)")])
        case .latency(let latency): _ = try await control("latency", [("ms", "\(latency.map(Self.milliseconds) ?? 0)")])
        case .reset: _ = try await control("reset", [])
        }
    }

    /// Posts to `/control/<path>` and returns the answer's body; anything but 200 throws.
    private func control(_ path: String, _ query: [(String, String)]) async throws -> Data {
        var components = URLComponents(string: endpoints.controlURL + "/" + path)!
        components.queryItems = query.isEmpty ? nil : query.map { URLQueryItem(name: $0.0, value: $0.1) }
        let answer = try await client.post(components.url!, headers: [], body: Data())
        guard answer.status == 200 else {
            throw SoakError("the emulator refused /control/\(path): HTTP \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        }
        return answer.body
    }

    private static func object(_ data: Data) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    private static func milliseconds(_ duration: Duration) -> Int { Int((duration.seconds * 1000).rounded()) }
}
