import Foundation
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardNIO

/// An emulator in another process, driven over HTTP: events go through `POST /event` (the
/// service's own publish API, API key auth), faults through `POST /control/…`, and the
/// subscription count comes from `GET /control/status`.
///
/// A tick's events are grouped by channel (order kept within each channel, which is each
/// stream's order) and sent five to a request; the channels go side by side, each channel's
/// requests one at a time, so the publisher never reorders a stream. Publishing is
/// never retried: a retried request whose first answer was lost would publish twice.
struct RemoteSoakServer: SoakServer {
    let endpoints: SwitchboardEmulator.Endpoints
    let apiKey: String
    private let client: NIOHTTPClient
    private let publisher: AppSyncHTTPPublisher

    var publishTick: Duration { .milliseconds(100) }

    init(endpoints: SwitchboardEmulator.Endpoints, apiKey: String) {
        self.endpoints = endpoints
        self.apiKey = apiKey
        let client = NIOHTTPClient(configuration: .init(requestTimeout: .seconds(10)))
        self.client = client
        publisher = AppSyncHTTPPublisher(
            url: URL(string: endpoints.httpURL)!, authorization: { _ in [(name: "x-api-key", value: apiKey)] },
            client: Client(client: client), retryDelays: [])
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
        var channels: [String] = []
        var byChannel: [String: [String]] = [:]
        for event in events {
            if byChannel[event.channel] == nil { channels.append(event.channel) }
            byChannel[event.channel, default: []].append(event.payload)
        }
        // Channels side by side (each stream has its own), each channel's requests one at a time.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for channel in channels {
                let payloads = byChannel[channel]!
                group.addTask {
                    let result = try await publisher.publish(payloads, to: channel)
                    if let refused = result.refused.first {
                        throw SoakError("the emulator refused an event on \(channel): \(refused.code) \(refused.message)")
                    }
                }
            }
            try await group.waitForAll()
        }
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

    /// `NIOHTTPClient` as the publisher's client (it trusts loopback without URLSession).
    private struct Client: AppSyncHTTPClient {
        let client: NIOHTTPClient

        func post(_ url: URL, headers: [(name: String, value: String)], body: Data) async throws -> (status: Int, body: Data) {
            try await client.post(url, headers: headers, body: body)
        }
    }
}
