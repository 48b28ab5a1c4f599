import Crypto
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import SwitchboardCore
@testable import SwitchboardEmulator

let silentLogger = Logger(label: "switchboard.emulator.tests", factory: { _ in SwiftLogNoOpLogHandler() })
let testAPIKey = "test-api-key"
let testSecret = Array("emulator-test-secret".utf8)

/// The emulator as the tests use it. The connection_init timeout is a minute, not the default
/// 3 s: it runs on the real clock in most tests, and a loaded CI machine must not trip it.
func testConfiguration(keepAlive: Duration = .seconds(60)) -> SwitchboardEmulator.Configuration {
    var configuration = SwitchboardEmulator.Configuration(
        auth: .init(apiKeys: [testAPIKey], jwtSecret: testSecret), keepAliveInterval: keepAlive, logger: silentLogger)
    configuration.graphQLConnectionInitTimeout = .seconds(60)
    return configuration
}

/// Signs an HS256 JWT for tests.
func makeJWT(sub: String, expiresIn: TimeInterval = 3600, secret: [UInt8] = testSecret) -> String {
    let header = Base64URL.encode(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
    let exp = Int(Date().timeIntervalSince1970 + expiresIn)
    let payload = Base64URL.encode(Data(#"{"sub":"\#(sub)","exp":\#(exp)}"#.utf8))
    let mac = HMAC<SHA256>.authenticationCode(for: Data("\(header).\(payload)".utf8), using: SymmetricKey(data: secret))
    return "\(header).\(payload).\(Base64URL.encode(Data(mac)))"
}

/// The `header-<base64url>` subprotocol for an auth object.
func headerSubprotocol(_ auth: [String: String]) -> String {
    let data = try! JSONSerialization.data(withJSONObject: auth, options: [.sortedKeys])
    return "header-" + Base64URL.encode(data)
}

/// A text frame a test socket received.
struct Frame: Sendable, CustomStringConvertible {
    var text: String
    var object: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]) ?? [:] }
    var type: String? { object.type }
    var id: String? { object["id"] as? String }
    var firstErrorType: String? { object.firstErrorType }
    var description: String { text }
}

/// One test-side WebSocket connection: send JSON objects, read the next text frame as JSON.
/// Every frame read is also kept in ``received`` so tests can assert after the connection ends.
final class TestSocket: Sendable {
    private let iterator: LockedValue<WebSocketInboundMessageStream.AsyncIterator?>
    let outbound: WebSocketOutboundWriter
    let received: LockedValue<[Frame]>

    init(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, received: LockedValue<[Frame]>) {
        self.iterator = LockedValue(inbound.messages(maxSize: 1 << 22).makeAsyncIterator())
        self.outbound = outbound
        self.received = received
    }

    func send(_ object: [String: Any]) async throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])
        try await outbound.write(.text(String(decoding: data, as: UTF8.self)))
    }

    func sendText(_ text: String) async throws { try await outbound.write(.text(text)) }

    /// The next text frame; nil when the socket closed. Only one reader at a time.
    func next() async throws -> Frame? {
        guard var current = iterator.withLock({ $0.take() }) else { return nil }
        defer { iterator.withLock { $0 = current } }
        while let message = try await current.next() {
            if case .text(let text) = message {
                let frame = Frame(text: text)
                received.withLock { $0.append(frame) }
                return frame
            }
        }
        return nil
    }

    /// Reads frames until one has the given type (skipping `ka`), or nil at close.
    func next(ofType type: String) async throws -> Frame? {
        while let frame = try await next() {
            if frame.type == type { return frame }
        }
        return nil
    }

    /// Sends `connection_init` and returns the answer.
    func initialize() async throws -> Frame? {
        try await send(["type": "connection_init"])
        return try await next()
    }
}

/// Connects to the AppSync endpoint offering `aws-appsync-event-ws` plus the auth subprotocol
/// (or header auth when `headerAuth` is set) and runs `body` on the connection.
/// What a test connection saw.
struct SocketResult: Sendable {
    var close: WebSocketCloseFrame?
    var frames: [Frame]
    func first(_ type: String) -> Frame? { frames.first { $0.type == type } }
    func all(_ type: String) -> [Frame] { frames.filter { $0.type == type } }
}

@discardableResult
func withAppSyncSocket(
    _ endpoints: SwitchboardEmulator.Endpoints,
    auth: [String: String]? = nil,
    headerAuth: [String: String] = [:],
    _ body: @escaping @Sendable (TestSocket) async throws -> Void
) async throws -> SocketResult {
    let received = LockedValue<[Frame]>([])
    var headers = HTTPFields()
    var protocols = ["aws-appsync-event-ws"]
    if let auth { protocols.append(headerSubprotocol(auth.merging(["host": endpoints.host]) { a, _ in a })) }
    headers[.secWebSocketProtocol] = protocols.joined(separator: ", ")
    for (name, value) in headerAuth { headers[HTTPField.Name(name)!] = value }
    let close = try await WebSocketClient.connect(
        url: endpoints.realtimeURL,
        configuration: .init(maxFrameSize: 1 << 22, additionalHeaders: headers),
        logger: silentLogger
    ) { inbound, outbound, _ in
        try await body(TestSocket(inbound: inbound, outbound: outbound, received: received))
    }
    return SocketResult(close: close, frames: received.withLock { $0 })
}

let apiKeyAuth = ["x-api-key": testAPIKey]

/// A connected, acknowledged, API-key socket.
@discardableResult
func withReadySocket(
    _ endpoints: SwitchboardEmulator.Endpoints,
    auth: [String: String] = apiKeyAuth,
    _ body: @escaping @Sendable (TestSocket) async throws -> Void
) async throws -> SocketResult {
    try await withAppSyncSocket(endpoints, auth: auth) { socket in
        let ack = try await socket.initialize()
        guard ack?.type == "connection_ack" else {
            throw SwitchboardError(code: .protocolViolation, message: "expected connection_ack, got \(String(describing: ack))")
        }
        try await body(socket)
    }
}

extension [String: Any] {
    var type: String? { self["type"] as? String }
    var firstErrorType: String? { (self["errors"] as? [[String: Any]])?.first?["errorType"] as? String }
}

/// Subscribes and waits for the answer.
extension TestSocket {
    @discardableResult
    func subscribe(_ id: String, _ channel: String, auth: [String: String] = apiKeyAuth) async throws -> Frame? {
        try await send(["type": "subscribe", "id": id, "channel": channel, "authorization": auth])
        return try await next()
    }

    @discardableResult
    func publish(_ id: String, _ channel: String, _ events: [Any], auth: [String: String] = apiKeyAuth) async throws -> Frame? {
        try await send(["type": "publish", "id": id, "channel": channel, "events": events, "authorization": auth])
        return try await next()
    }
}
