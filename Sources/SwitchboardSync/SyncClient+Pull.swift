import Foundation
import Logging
import SwitchboardCore

extension SyncClient {
    /// Pages through `GET /sync/pull` from the checkpoint saved last until `hasMore` is false.
    /// - Returns: The number of requests made.
    func pull(run: inout CatchUpRun) async throws -> Int {
        var requests = 0
        while true {
            let since = run.saved
            let (page, sent) = try await fetchPage(since: since, clock: run.backendClock)
            requests += 1
            // The start turned out earlier than asked: ask again from it.
            if run.answered(serverTime: serverTime(page.serverTime, in: "GET /sync/pull"), sent: sent) { continue }
            let next = SyncCheckpoint(rawValue: page.nextCheckpoint)
            if page.hasMore, page.events.isEmpty, next == since {
                throw SwitchboardError(
                    code: .protocolViolation,
                    message: "/sync/pull made no progress: hasMore with no events and the same checkpoint '\(next)'")
            }
            try await run.deliver(page.events, then: next)
            if !page.hasMore { return requests }
        }
    }

    /// One page, and the moment of `clock`'s timeline its request left (after the headers were
    /// made, so a slow token provider does not count as round trip).
    private func fetchPage(since: SyncCheckpoint?, clock: BackendClock) async throws -> (SyncPullPage, sent: Duration) {
        let url = pullURL(since: since)
        let response: (status: Int, body: Data)
        let sent: Duration
        do {
            let headers = try await headers()
            sent = clock.now()
            response = try await http.get(url, headers: headers)
        } catch let error as SwitchboardError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw SwitchboardError(code: .network, message: "GET /sync/pull got no answer", cause: SendableDescription(error))
        }
        logger.trace("sync page", metadata: [
            "switchboard.sync.status": "\(response.status)", "switchboard.sync.bytes": "\(response.body.count)",
        ])
        guard response.status == 200 else {
            let body = try? JSONDecoder().decode(SyncErrorBody.self, from: response.body)
            let detail = body.map { "\($0.error) (\($0.code ?? "no code"))" } ?? String(decoding: response.body.prefix(200), as: UTF8.self)
            let expired = response.status == 410 || body?.code == SyncErrorBody.checkpointExpired
            throw SwitchboardError(
                code: expired ? .checkpointExpired : .syncRejected, message: "GET /sync/pull answered HTTP \(response.status): \(detail)")
        }
        do {
            return (try JSONDecoder().decode(SyncPullPage.self, from: response.body), sent)
        } catch {
            throw SwitchboardError(
                code: .protocolViolation,
                message: "malformed /sync/pull page after checkpoint '\(since?.rawValue ?? "")': \(SyncJSON.describe(error))")
        }
    }

    /// The pull URL with `since` (when known) and `limit`, percent-encoded so a `+` in a
    /// timestamp's offset survives.
    func pullURL(since: SyncCheckpoint?) -> URL {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "+&=")
        func item(_ name: String, _ value: String) -> String {
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
        }
        var query = [item("limit", String(configuration.pullLimit))]
        if let since { query.insert(item("since", since.rawValue), at: 0) }
        var components = URLComponents(url: configuration.pullURL, resolvingAgainstBaseURL: false)
        components?.percentEncodedQuery = query.joined(separator: "&")
        return components?.url ?? configuration.pullURL
    }
}
