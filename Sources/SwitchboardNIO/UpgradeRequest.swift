import Foundation
import NIOHTTP1
import SwitchboardCore

/// Builds the HTTP upgrade request and checks the subprotocol the server chose.
enum UpgradeRequest {
    /// The request head, without the `Upgrade`, `Connection` and `Sec-WebSocket-Key`/`-Version`
    /// headers, which the upgrader adds.
    /// - Parameters:
    ///   - request: What to open.
    ///   - target: The parsed URL.
    /// - Returns: The head and the names of the request's headers that were ignored because the
    ///   engine owns them.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/invalidConfiguration`` if a
    ///   header name is not an HTTP token or a value contains a control character. The message
    ///   names the header, never its value.
    static func head(
        for request: WebSocketRequest, target: WebSocketTarget
    ) throws(SwitchboardError) -> (head: HTTPRequestHead, ignored: [String]) {
        let (send, ignored) = try request.checkedHeaders()
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: target.hostHeader)
        if !request.subprotocols.isEmpty {
            headers.add(name: "Sec-WebSocket-Protocol", value: request.subprotocols.joined(separator: ", "))
        }
        for header in send { headers.add(name: header.name, value: header.value) }
        return (HTTPRequestHead(version: .http1_1, method: .GET, uri: target.requestTarget, headers: headers), ignored)
    }

    /// Checks the server's `Sec-WebSocket-Protocol` answer against what was offered.
    /// - Parameters:
    ///   - offered: The subprotocols offered.
    ///   - response: The `101` response head.
    /// - Returns: The chosen subprotocol, `nil` if none was offered and none chosen.
    /// - Throws: ``WebSocketHandshakeError`` with
    ///   ``WebSocketHandshakeError/Reason/subprotocolNotNegotiated(offered:chosen:)`` if subprotocols
    ///   were offered and the server chose none, or the server chose one that was not offered.
    static func negotiatedSubprotocol(
        offered: [String], response: HTTPResponseHead
    ) throws(WebSocketHandshakeError) -> String? {
        let values = response.headers["Sec-WebSocket-Protocol"]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return try WebSocketHandshakeError.negotiatedSubprotocol(offered: offered, chosen: values)
    }
}
