import Foundation
import NIOHTTP1
import SwitchboardCore

/// Builds the HTTP upgrade request and checks the subprotocol the server chose.
enum UpgradeRequest {
    /// Headers the engine writes itself; the request's own copies are ignored.
    static let reservedHeaders: Set<String> = [
        "host", "connection", "upgrade", "sec-websocket-key", "sec-websocket-version",
        "sec-websocket-protocol", "sec-websocket-extensions", "content-length", "transfer-encoding",
    ]

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
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: target.hostHeader)
        if !request.subprotocols.isEmpty {
            for (index, subprotocol) in request.subprotocols.enumerated() where !isToken(subprotocol) {
                throw SwitchboardError(
                    code: .invalidConfiguration,
                    message: "subprotocol \(index + 1) of \(request.subprotocols.count) is not a valid HTTP token")
            }
            headers.add(name: "Sec-WebSocket-Protocol", value: request.subprotocols.joined(separator: ", "))
        }
        var ignored: [String] = []
        for header in request.headers {
            guard isToken(header.name) else {
                throw SwitchboardError(code: .invalidConfiguration, message: "a header name is not a valid HTTP token")
            }
            guard isFieldValue(header.value) else {
                throw SwitchboardError(
                    code: .invalidConfiguration, message: "the value of header '\(header.name)' contains a control character")
            }
            if reservedHeaders.contains(header.name.lowercased()) {
                ignored.append(header.name)
            } else {
                headers.add(name: header.name, value: header.value)
            }
        }
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
        switch values.count {
        case 0 where offered.isEmpty:
            return nil
        case 1 where offered.contains(values[0]):
            return values[0]
        default:
            throw WebSocketHandshakeError(
                reason: .subprotocolNotNegotiated(offered: offered, chosen: values.isEmpty ? nil : values.joined(separator: ", ")))
        }
    }

    /// RFC 9110 `token`: visible ASCII except separators.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// RFC 9110 field value: no control characters except horizontal tab.
    static func isFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }
}
