/// One event of a `text/event-stream`: its type (`message` when the stream names none) and its
/// data lines joined with `\n`.
struct ServerSentEvent: Equatable, Sendable {
    var name: String
    var data: String
}

/// Reads a `text/event-stream` as bytes arrive, in chunks of any size: lines end with LF, CR or
/// CRLF; `event:` names the event and `data:` lines make its data; a blank line ends it; lines
/// starting with `:` are comments (keep-alives); `id:` and `retry:` are read and ignored, since
/// this transport resumes with its own subscriptions instead of `Last-Event-ID`.
struct ServerSentEventsParser: Sendable {
    private var line: [UInt8] = []
    private var name = ""
    private var data: [String] = []
    private var hasData = false
    private var afterCarriageReturn = false

    /// Consumes a chunk; returns the events it completed, in order.
    mutating func consume(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var completed: [ServerSentEvent] = []
        for byte in bytes {
            if afterCarriageReturn {
                afterCarriageReturn = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                afterCarriageReturn = byte == UInt8(ascii: "\r")
                if let event = endLine() { completed.append(event) }
            default:
                line.append(byte)
            }
        }
        return completed
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else { return dispatch() }
        guard line.first != UInt8(ascii: ":") else { return nil }
        let text = String(decoding: line, as: UTF8.self)
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = text[...]
            value = ""
        }
        switch field {
        case "event": name = String(value)
        case "data":
            data.append(String(value))
            hasData = true
        default: break
        }
        return nil
    }

    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            name = ""
            data.removeAll()
            hasData = false
        }
        guard hasData else { return nil }
        return ServerSentEvent(name: name.isEmpty ? "message" : name, data: data.joined(separator: "\n"))
    }
}
