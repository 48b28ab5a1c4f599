import Foundation
import SwitchboardCore
import SwitchboardNIO
import Testing

@Suite("NIO WebSocket TLS", .timeLimit(.minutes(1)))
struct TLSTests {
    @Test("wss to an IP literal sends no SNI and verifies the certificate's IP address")
    func ipLiteralWithoutSNI() async throws {
        try await TestWebSocketServer.with(tls: TestCertificate.shared.get(), mode: .webSocket(
            handshake: acceptFirstOffered,
            session: { session in
                try await session.send(text: try await session.nextText() ?? "")
                _ = try await session.nextClose()
            }
        )) { server in
            let connection = try await makeConnector().open(WebSocketRequest(url: server.url(host: "127.0.0.1", secure: true)))
            var names = server.serverNames.makeAsyncIterator()
            #expect(await names.next() == .some(nil), "no SNI for 127.0.0.1")
            try await connection.send(.text("echo"))
            var events = connection.inbound.makeAsyncIterator()
            #expect(try await events.next() == .message(.text("echo")))
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("wss to a host name sends it as SNI; the trust root can be given as PEM")
    func hostNameWithSNI() async throws {
        let certificate = try TestCertificate.shared.get()
        try await TestWebSocketServer.with(tls: certificate, mode: .webSocket(
            handshake: acceptFirstOffered, session: { session in _ = try await session.nextClose() }
        )) { server in
            let connector = NIOWebSocketConnector(configuration: NIOWebSocketConnector.Configuration(
                tls: NIOWebSocketConnector.TLS(trustRoots: .system(adding: try .pem(certificate.pem)))))
            let connection = try await connector.open(WebSocketRequest(url: server.url(host: "localhost", secure: true)))
            var names = server.serverNames.makeAsyncIterator()
            #expect(await names.next() == .some("localhost"))
            await connection.close(code: .normalClosure, reason: "")
        }
    }

    @Test("an untrusted certificate fails the connect with .network and the TLS error as cause")
    func untrusted() async throws {
        try await TestWebSocketServer.with(tls: TestCertificate.shared.get(), mode: .webSocket(
            handshake: acceptFirstOffered, session: { _ in }
        )) { server in
            let error = await #expect(throws: SwitchboardError.self) {
                _ = try await NIOWebSocketConnector().connect(WebSocketRequest(url: server.url(secure: true)))
            }
            #expect(error?.code == .network)
            #expect(error?.message.contains("TLS") == true)
            #expect(error?.cause != nil)
        }
    }

    @Test("trust roots that are not certificates are invalid configuration")
    func invalidTrustRoots() {
        #expect(throws: SwitchboardError.self) { _ = try NIOWebSocketConnector.Certificates.pem("not a certificate") }
        #expect(throws: SwitchboardError.self) { _ = try NIOWebSocketConnector.Certificates.der(Data([1, 2, 3])) }
        #expect(throws: SwitchboardError.self) { _ = try NIOWebSocketConnector.Certificates.pemFile(atPath: "/nonexistent/ca.pem") }
    }
}
