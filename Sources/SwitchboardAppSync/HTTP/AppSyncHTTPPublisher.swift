import Foundation
import Logging
import SwitchboardCore

/// Publishes events to AppSync Events over HTTP (`POST /event`).
///
/// Everything is checked before anything is sent: the channel follows the naming rules and has
/// no `*`, every event is JSON text of at most 240 KB. More than five events are split into
/// batches of five (the service's limit), sent in order; the result lists every event by its
/// position in what you passed. A request is retried only when it got no HTTP answer or a `5xx`
/// or `429` one, after the configured delays on the configured clock; a `4xx` answer is final,
/// and so is a failure no retry can cure (with the NIO client: a server certificate that is not
/// trusted or does not name the host, or TLS spoken to a plain-HTTP port or the reverse).
public struct AppSyncHTTPPublisher: Sendable {
    /// Authorization for one request: the headers to add, given the exact body (so an IAM
    /// signer can sign it).
    public typealias Authorization = @Sendable (_ body: Data) async throws -> [(name: String, value: String)]

    /// The largest event the service accepts, in bytes of JSON text.
    public static let maximumEventSize = 240 * 1024
    /// The most events in one request.
    public static let maximumEventsPerRequest = 5

    private let url: URL
    private let authorization: Authorization
    private let client: any AppSyncHTTPClient
    private let retryDelays: [Duration]
    private let clock: any Clock<Duration>
    private let logger: Logger

    /// - Parameters:
    ///   - url: The HTTP endpoint, `https://<id>.appsync-api.<region>.amazonaws.com/event`.
    ///   - authorization: The headers for each request (`x-api-key`, `Authorization`, or a
    ///     SigV4 signature over the body).
    ///   - client: The HTTP client; URLSession by default.
    ///   - retryDelays: The waits before each retry; their count is the number of retries.
    ///   - clock: The clock the waits run on.
    ///   - logger: Where request outcomes go (debug); never headers or bodies.
    public init(
        url: URL, authorization: @escaping Authorization, client: any AppSyncHTTPClient = URLSessionHTTPClient(),
        retryDelays: [Duration] = [.milliseconds(200), .seconds(1), .seconds(5)],
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "switchboard.appsync.publish", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.url = url
        self.authorization = authorization
        self.client = client
        self.retryDelays = retryDelays
        self.clock = clock
        self.logger = logger
    }

    /// A publisher authorized like the transport: an API key, a token, or IAM (SigV4 over the
    /// real request body, with credentials fetched for every request).
    /// - Parameters:
    ///   - url: The HTTP endpoint, `https://<id>.appsync-api.<region>.amazonaws.com/event`.
    ///   - authorization: The mode; ``AppSyncAuthorization/sessionToken`` needs `tokens`.
    ///   - tokens: Where ``AppSyncAuthorization/sessionToken`` gets a token for each request.
    ///   - client: The HTTP client; URLSession by default.
    ///   - retryDelays: The waits before each retry; their count is the number of retries.
    ///   - clock: The clock the waits run on.
    ///   - logger: Where request outcomes go (debug); never headers or bodies.
    public init(
        url: URL, authorization: AppSyncAuthorization, tokens: TokenProvider? = nil, client: any AppSyncHTTPClient = URLSessionHTTPClient(),
        retryDelays: [Duration] = [.milliseconds(200), .seconds(1), .seconds(5)],
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "switchboard.appsync.publish", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        let host = url.port.map { "\(url.host ?? ""):\($0)" } ?? url.host ?? ""
        self.init(
            url: url,
            authorization: { body in
                let headers = try await authorization.headers(
                    for: .httpRequest(body: String(decoding: body, as: UTF8.self)), host: host, reason: .publish, sessionToken: tokens)
                return headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
            },
            client: client, retryDelays: retryDelays, clock: clock, logger: logger)
    }

    /// Publishes `events` (each one JSON text) to `channel`.
    /// - Returns: Which events were accepted and which refused, by position in `events`.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/invalidChannel`` for a bad
    ///   channel or one with `*`; ``/SwitchboardCore/SwitchboardError/Code/publishRejected`` for no events, an
    ///   event that is not JSON or is over 240 KB (nothing is sent), or a `4xx` answer;
    ///   ``/SwitchboardCore/SwitchboardError/Code/sessionExpired`` for `401`/`403`;
    ///   ``/SwitchboardCore/SwitchboardError/Code/network`` when the retries ran out or retrying cannot help
    ///   (`publishing failed, and retrying cannot help: …`). Batches before a failing
    ///   one were delivered.
    public func publish(_ events: [String], to channel: String) async throws -> AppSyncPublishResult {
        let path = try ChannelPath(channel, allowWildcard: false)
        try Self.validate(events)
        return try await AppSyncPublishResult.inBatches(of: Self.maximumEventsPerRequest, events) { batch in
            try await send(Self.body(channel: "/\(path)", events: batch))
        }
    }

    static func validate(_ events: [String]) throws {
        guard !events.isEmpty else {
            throw SwitchboardError(code: .publishRejected, message: "a publish needs at least one event")
        }
        for (index, event) in events.enumerated() {
            let size = event.utf8.count
            guard size <= maximumEventSize else {
                throw SwitchboardError(
                    code: .publishRejected,
                    message: "event \(index) is \(size) bytes; the limit is \(maximumEventSize) (240 KB)")
            }
            guard (try? JSONValue.parse(event)) != nil else {
                throw SwitchboardError(code: .publishRejected, message: "event \(index) is not JSON text")
            }
        }
    }

    /// The request body: `{"channel":"/ns/a","events":["…"]}`, compact, slashes unescaped (the
    /// form IAM signatures are computed over).
    static func body(channel: String, events: [String]) -> Data {
        Data(AppSyncSigV4.body(channel: channel, events: events).utf8)
    }

    private func send(_ body: Data) async throws -> AppSyncPublishResult {
        var attempt = 0
        while true {
            var headers = try await authorization(body)
            if !headers.contains(where: { $0.name.lowercased() == "content-type" }) { headers.append(("content-type", "application/json")) }
            let outcome: Result<(status: Int, body: Data), any Error>
            do {
                outcome = .success(try await client.post(url, headers: headers, body: body))
            } catch {
                outcome = .failure(error)
            }
            switch outcome {
            case .success(let response) where (200..<300).contains(response.status):
                logger.debug("published", metadata: ["appsync.status": "\(response.status)"])
                return try Self.parseResult(response.body)
            case .success(let response) where response.status < 500 && response.status != 429:
                throw Self.rejection(status: response.status, body: response.body)
            case .success(let response):
                logger.debug("publish failed; may retry", metadata: ["appsync.status": "\(response.status)"])
                guard attempt < retryDelays.count else {
                    throw SwitchboardError(
                        code: .network,
                        message: "publishing failed after \(attempt + 1) attempts; the last was answered with HTTP \(response.status)"
                            + Self.bodyExcerpt(response.body))
                }
            case .failure(let error as SwitchboardError) where error.isPermanent:
                // A certificate this client does not trust stays untrusted: no retry.
                throw SwitchboardError(
                    code: error.code, message: "publishing failed, and retrying cannot help: \(error.message)", cause: error)
            case .failure(let error):
                logger.debug("publish request failed; may retry", metadata: ["appsync.error": "\(error)"])
                guard attempt < retryDelays.count else {
                    let detail = (error as? SwitchboardError)?.message ?? "\(error)"
                    throw SwitchboardError(
                        code: .network, message: "publishing failed after \(attempt + 1) attempts; the last: \(detail)",
                        cause: error)
                }
            }
            try await clock.sleep(for: retryDelays[attempt])
            attempt += 1
        }
    }

    static func parseResult(_ data: Data) throws -> AppSyncPublishResult {
        guard let body = try? JSONValue.parse(data), case .object(let object) = body else {
            throw SwitchboardError(code: .protocolViolation, message: "the publish response is not a JSON object")
        }
        return AppSyncCodec.publishResult(object)
    }

    /// The start of an answer's body for a message, `: <text>`, or nothing when it is empty.
    static func bodyExcerpt(_ body: Data) -> String {
        let text = String(decoding: body.prefix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "" : ": \(text)\(body.count > 300 ? "…" : "")"
    }

    static func rejection(status: Int, body: Data) -> SwitchboardError {
        let first = (try? JSONValue.parse(body))?["errors"]?.array?.first
        let detail = [first?["errorType"]?.string, first?["message"]?.string].compactMap { $0 }.joined(separator: ": ")
        let message = "publish refused with HTTP \(status)" + (detail.isEmpty ? bodyExcerpt(body) : " (\(detail))")
        return SwitchboardError(code: status == 401 || status == 403 ? .sessionExpired : .publishRejected, message: message)
    }
}

/// Carries a non-Sendable error as a cause.
struct SendableErrorBox: Error, Sendable, CustomStringConvertible {
    let description: String
    init(_ error: any Error) { description = "\(error)" }
}
