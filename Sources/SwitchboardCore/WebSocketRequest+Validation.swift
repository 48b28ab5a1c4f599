extension WebSocketRequest {
    /// Headers every engine writes itself; the request's own copies are ignored.
    package static let engineHeaders: Set<String> = [
        "host", "connection", "upgrade", "sec-websocket-key", "sec-websocket-version",
        "sec-websocket-protocol", "sec-websocket-extensions", "content-length", "transfer-encoding",
    ]

    /// The request's subprotocols and headers, checked the same way by every engine.
    /// - Returns: The headers to send (the request's own, less ``engineHeaders``) and the names
    ///   of the ones left out because the engine owns them.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/invalidConfiguration`` if a
    ///   subprotocol or a header name is not an HTTP token or a value contains a control
    ///   character. The message names the header, never its value, and no subprotocol.
    package func checkedHeaders() throws(SwitchboardError) -> (send: [(name: String, value: String)], ignored: [String]) {
        for (index, subprotocol) in subprotocols.enumerated() where !Self.isToken(subprotocol) {
            throw SwitchboardError(
                code: .invalidConfiguration,
                message: "subprotocol \(index + 1) of \(subprotocols.count) is not a valid HTTP token")
        }
        var send: [(name: String, value: String)] = []
        var ignored: [String] = []
        for header in headers {
            guard Self.isToken(header.name) else {
                throw SwitchboardError(code: .invalidConfiguration, message: "a header name is not a valid HTTP token")
            }
            guard Self.isFieldValue(header.value) else {
                throw SwitchboardError(
                    code: .invalidConfiguration, message: "the value of header '\(header.name)' contains a control character")
            }
            if Self.engineHeaders.contains(header.name.lowercased()) {
                ignored.append(header.name)
            } else {
                send.append(header)
            }
        }
        return (send, ignored)
    }

    /// RFC 9110 `token`: visible ASCII except separators.
    package static func isToken(_ text: String) -> Bool {
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
    package static func isFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }
    }
}
