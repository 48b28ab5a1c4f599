import Foundation
import NIOHTTP1
import SwitchboardCore
@testable import SwitchboardNIO
import Testing

@Suite("WebSocket URL and upgrade request", .timeLimit(.minutes(1)))
struct RequestTests {
    @Test("targets: default ports, Host header, request target and SNI", arguments: [
        ("ws://example.com/event/realtime", "example.com", 80, false, "example.com", "/event/realtime", "example.com"),
        ("wss://example.com", "example.com", 443, true, "example.com", "/", "example.com"),
        ("wss://example.com:8443/a?b=c", "example.com", 8443, true, "example.com:8443", "/a?b=c", "example.com"),
        ("wss://127.0.0.1:8443/x", "127.0.0.1", 8443, true, "127.0.0.1:8443", "/x", nil),
        ("ws://[::1]:8080/x", "::1", 8080, false, "[::1]:8080", "/x", nil),
    ] as [(String, String, Int, Bool, String, String, String?)])
    func targets(url: String, host: String, port: Int, secure: Bool, hostHeader: String, requestTarget: String, serverName: String?) throws {
        let target = try WebSocketTarget(url: URL(string: url)!)
        #expect(target.host == host)
        #expect(target.port == port)
        #expect(target.isSecure == secure)
        #expect(target.hostHeader == hostHeader)
        #expect(target.requestTarget == requestTarget)
        #expect(target.serverName == serverName)
    }

    @Test("subprotocol negotiation", arguments: [
        ([], [], true, nil),
        (["a", "b"], ["b"], true, "b"),
        (["a", "b"], [], false, nil),
        (["a"], ["c"], false, nil),
        ([], ["a"], false, nil),
        (["a", "b"], ["a, b"], false, nil),
    ] as [([String], [String], Bool, String?)])
    func negotiation(offered: [String], answered: [String], succeeds: Bool, chosen: String?) {
        var headers = HTTPHeaders()
        for value in answered { headers.add(name: "Sec-WebSocket-Protocol", value: value) }
        let response = HTTPResponseHead(version: .http1_1, status: .switchingProtocols, headers: headers)
        let result = Result { () throws(WebSocketHandshakeError) -> String? in
            try UpgradeRequest.negotiatedSubprotocol(offered: offered, response: response)
        }
        switch result {
        case .success(let value):
            #expect(succeeds)
            #expect(value == chosen)
        case .failure(let error):
            #expect(!succeeds)
            guard case .subprotocolNotNegotiated(let reportedOffer, _) = error.reason else {
                Issue.record("unexpected reason \(error.reason)")
                return
            }
            #expect(reportedOffer == offered)
        }
    }

    @Test("headers the engine owns are ignored, by name only")
    func reservedHeaders() throws {
        let request = WebSocketRequest(
            url: URL(string: "ws://example.com/")!, subprotocols: ["p"],
            headers: [("Sec-WebSocket-Key", "forged"), ("Host", "evil.example"), ("x-api-key", "k")])
        let (head, ignored) = try UpgradeRequest.head(for: request, target: WebSocketTarget(url: request.url))
        #expect(ignored == ["Sec-WebSocket-Key", "Host"])
        #expect(head.headers["Host"] == ["example.com"])
        #expect(head.headers["Sec-WebSocket-Key"].isEmpty)
        #expect(head.headers["x-api-key"] == ["k"])
        #expect(head.headers["Sec-WebSocket-Protocol"] == ["p"])
    }

    @Test("a subprotocol that is not a token is rejected without printing it")
    func invalidSubprotocol() {
        let request = WebSocketRequest(url: URL(string: "ws://example.com/")!, subprotocols: ["header-abc def"])
        #expect {
            _ = try UpgradeRequest.head(for: request, target: WebSocketTarget(url: request.url))
        } throws: { error in
            let error = error as? SwitchboardError
            return error?.code == .invalidConfiguration && error?.message.contains("abc") == false
        }
    }
}

@Suite("Plaintext ws only on loopback", .timeLimit(.minutes(1)))
struct TransportSecurityTests {
    @Test("loopback hosts may use ws; any other host needs wss", arguments: [
        ("ws://127.0.0.1:8080/x", true), ("ws://127.10.0.3/x", true), ("ws://localhost:1/x", true),
        ("ws://api.localhost/x", true), ("ws://[::1]:9/x", true),
        ("ws://example.com/x", false), ("ws://10.0.0.5/x", false), ("ws://128.0.0.1/x", false),
        ("ws://127.example.com/x", false), ("ws://localhost.example.com/x", false), ("ws://[::2]/x", false),
        ("wss://example.com/x", true),
    ])
    func policy(url: String, allowed: Bool) throws {
        let target = try WebSocketTarget(url: URL(string: url)!)
        let passes = (try? target.checkTransportSecurity(allowingPlaintext: false)) != nil
        #expect(passes == allowed, "\(url)")
        // The explicit opt-in allows every host.
        #expect(throws: Never.self) { try target.checkTransportSecurity(allowingPlaintext: true) }
    }

    @Test("the connector refuses ws to a remote host before opening a socket, with a clear error")
    func connectorRefuses() async throws {
        let connector = NIOWebSocketConnector()
        let error = await #expect(throws: SwitchboardError.self) {
            _ = try await connector.connect(WebSocketRequest(url: URL(string: "ws://events.example.com/event/realtime")!))
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("ws://events.example.com is not loopback: use wss") == true)
    }
}
