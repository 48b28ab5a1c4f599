import Testing
@testable import SwitchboardServerSentEvents

@Suite("Reading text/event-stream")
struct ParserTests {
    static let stream = "event: ready\ndata: {\"a\":1}\n\n: keep-alive\n\nevent: data\r\ndata: line 1\rdata:line 2\r\n\r\ndata: unnamed\n\nid: 7\nretry: 10\n\n"
    static let expected = [
        ServerSentEvent(name: "ready", data: #"{"a":1}"#),
        ServerSentEvent(name: "data", data: "line 1\nline 2"),
        ServerSentEvent(name: "message", data: "unnamed"),
    ]

    @Test("LF, CR and CRLF end lines; comments and data-less blocks dispatch nothing; data lines join with LF")
    func wholeStream() {
        var parser = ServerSentEventsParser()
        #expect(parser.consume(Array(Self.stream.utf8)) == Self.expected)
    }

    @Test("the same events whatever the chunk size, a CRLF split across chunks included", arguments: [1, 2, 3, 5, 8, 13])
    func chunked(size: Int) {
        var parser = ServerSentEventsParser()
        let bytes = Array(Self.stream.utf8)
        var events: [ServerSentEvent] = []
        for start in stride(from: 0, to: bytes.count, by: size) {
            events += parser.consume(bytes[start..<min(start + size, bytes.count)])
        }
        #expect(events == Self.expected)
    }

    @Test("an event without its blank line is not dispatched yet")
    func incomplete() {
        var parser = ServerSentEventsParser()
        #expect(parser.consume(Array("event: data\ndata: x\n".utf8)).isEmpty)
        #expect(parser.consume(Array("\n".utf8)) == [ServerSentEvent(name: "data", data: "x")])
    }
}
