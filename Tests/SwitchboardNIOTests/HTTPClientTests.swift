import Foundation
import SwitchboardCore
import SwitchboardNIO
import SwitchboardTesting
import Testing

@Suite("NIO HTTP client", .timeLimit(.minutes(1)))
struct HTTPClientTests {
    static func url(_ port: Int, secure: Bool = false, host: String = "127.0.0.1") -> URL {
        URL(string: "\(secure ? "https" : "http")://\(host):\(port)/event")!
    }

    @Test("returns the status and the whole body, whatever the status")
    func answer() async throws {
        let response = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 9\r\nConnection: close\r\n\r\ntry later"
        try await TestWebSocketServer.with(mode: .raw(response: response)) { server in
            let answer = try await NIOHTTPClient().post(Self.url(server.port), headers: [("x-api-key", "k")], body: Data("{}".utf8))
            #expect(answer.status == 503)
            #expect(String(decoding: answer.body, as: UTF8.self) == "try later")
        }
    }

    @Test("https trusts the roots it is given; otherwise it says the certificate is not trusted")
    func trust() async throws {
        let certificate = try TestCertificate.shared.get()
        let response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"
        try await TestWebSocketServer.with(tls: certificate, mode: .raw(response: response)) { server in
            let trusting = NIOHTTPClient(configuration: .init(tls: .init(trustRoots: .system(adding: try .pem(certificate.pem)))))
            #expect(try await trusting.post(Self.url(server.port, secure: true, host: "localhost"), headers: [], body: Data()).status == 200)

            let error = await #expect(throws: SwitchboardError.self) {
                _ = try await NIOHTTPClient().post(Self.url(server.port, secure: true), headers: [], body: Data())
            }
            #expect(error?.code == .network)
            #expect(error?.message.contains("the TLS handshake with 127.0.0.1:\(server.port) failed") == true, "\(String(describing: error))")
            #expect(error?.message.contains("certificate is not trusted") == true, "\(String(describing: error))")
            #expect(error?.isPermanent == true, "a retry cannot make the certificate trusted")
        }
    }

    @Test("an answer cut off mid-body is a dropped connection, which a retry may cure")
    func truncatedAnswer() async throws {
        let response = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{\"a\":"
        try await TestWebSocketServer.with(mode: .raw(response: response)) { server in
            let error = await #expect(throws: SwitchboardError.self) {
                _ = try await NIOHTTPClient().post(Self.url(server.port), headers: [], body: Data("{}".utf8))
            }
            #expect(error?.code == .network)
            #expect(error?.isPermanent == false, "\(String(describing: error))")
        }
    }

    @Test("plain http to a TLS port says to use https")
    func plaintextToTLS() async throws {
        try await TestWebSocketServer.with(tls: TestCertificate.shared.get(), mode: .silent) { server in
            let error = await #expect(throws: SwitchboardError.self) {
                _ = try await NIOHTTPClient().post(Self.url(server.port), headers: [], body: Data("{}".utf8))
            }
            #expect(error?.code == .network)
            #expect(error?.message.contains("https://") == true, "\(String(describing: error))")
        }
    }

    @Test("a refused connection is named")
    func refused() async throws {
        try await withRefusingPort { port in
            let error = await #expect(throws: SwitchboardError.self) {
                _ = try await NIOHTTPClient().post(Self.url(port), headers: [], body: Data())
            }
            #expect(error?.code == .network)
            #expect(error?.message == "cannot connect to 127.0.0.1:\(port): connection refused (nothing listens on that port)")
        }
    }

    @Test("no answer within the request timeout, on the injected clock, is a timeout")
    func timeout() async throws {
        try await TestWebSocketServer.with(mode: .silent) { server in
            let clock = ManualClock()
            let client = NIOHTTPClient(configuration: .init(requestTimeout: .seconds(5), clock: clock))
            let request = Task { try await client.post(Self.url(server.port), headers: [], body: Data()) }
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(5))
            let error = await #expect(throws: SwitchboardError.self) { _ = try await request.value }
            #expect(error?.code == .timeout)
            #expect(error?.message == "127.0.0.1:\(server.port) did not answer within 5 s")
        }
    }

    @Test("plaintext to another machine and other schemes are refused before connecting")
    func invalid() async {
        let remote = await #expect(throws: SwitchboardError.self) {
            _ = try await NIOHTTPClient().post(URL(string: "http://example.com/event")!, headers: [], body: Data())
        }
        #expect(remote?.code == .invalidConfiguration)
        let scheme = await #expect(throws: SwitchboardError.self) {
            _ = try await NIOHTTPClient().post(URL(string: "ftp://127.0.0.1/event")!, headers: [], body: Data())
        }
        #expect(scheme?.code == .invalidConfiguration)
    }
}
