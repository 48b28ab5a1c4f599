import Foundation
import HTTPTypes
import HummingbirdWSClient
import SwitchboardCore
@testable import SwitchboardEmulator

/// Connects to `/graphql` offering `subprotocol` (and, for the AppSync dialect, the `header` and
/// `payload` query parameters) and runs `body` on the connection.
@discardableResult
func withGraphQLSocket(
    _ endpoints: SwitchboardEmulator.Endpoints,
    subprotocol: String,
    appSyncHeader: [String: String]? = nil,
    _ body: @escaping @Sendable (TestSocket) async throws -> Void
) async throws -> SocketResult {
    let received = LockedValue<[Frame]>([])
    var headers = HTTPFields()
    headers[.secWebSocketProtocol] = subprotocol
    var url = endpoints.graphQLURL
    if let appSyncHeader {
        let data = try JSONSerialization.data(withJSONObject: appSyncHeader, options: [.sortedKeys])
        let header = data.base64EncodedString().addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        url += "?header=\(header)&payload=e30%3D"
    }
    let close = try await WebSocketClient.connect(
        url: url, configuration: .init(maxFrameSize: 1 << 22, additionalHeaders: headers), logger: silentLogger
    ) { inbound, outbound, _ in
        try await body(TestSocket(inbound: inbound, outbound: outbound, received: received))
    }
    return SocketResult(close: close, frames: received.withLock { $0 })
}

/// The `Sec-WebSocket-Protocol` value an AppSync client offers when it carries the connect-time
/// auth in a `header-<base64url>` subprotocol instead of the `header` query parameter.
func appSyncHeaderSubprotocol(_ auth: [String: String]) throws -> String {
    let data = try JSONSerialization.data(withJSONObject: auth, options: [.sortedKeys])
    let header = data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
    return "graphql-ws, header-\(header)"
}

extension TestSocket {
    /// Sends `connection_init` with `{"Authorization": token}` and returns the answer.
    func initialize(token: String) async throws -> Frame? {
        try await send(["type": "connection_init", "payload": ["Authorization": token]])
        return try await next()
    }
}

extension SwitchboardEmulator {
    /// Waits (yielding, not sleeping) until `count` subscriptions are live on the bus.
    /// Waits until the emulator holds `count` subscriptions, checking every 2 ms (a busy loop
    /// would starve the other tests on a small machine); gives up when the task is cancelled.
    func waitForSubscriptions(_ count: Int) async {
        while subscriptionCount < count, !Task.isCancelled { try? await Task.sleep(for: .milliseconds(2)) }
    }
}

extension Frame {
    /// `payload.data.<field>` of a `data`/`next` frame.
    func result(_ field: String) -> [String: Any]? {
        ((object["payload"] as? [String: Any])?["data"] as? [String: Any])?[field] as? [String: Any]
    }
}
