import Foundation
import HTTPTypes
import HummingbirdWSClient
import NIOSSL
import NIOWebSocket
import SwitchboardCore
import Testing

@testable import SwitchboardEmulator

@Suite("Emulator over TLS (wss) with an independent client", .timeLimit(.minutes(1)))
struct TLSTests {
    static var configuration: SwitchboardEmulator.Configuration {
        var configuration = testConfiguration()
        configuration.tls = true
        return configuration
    }

    @Test("serves wss with a fresh self-signed localhost certificate that an independent client can trust")
    func wss() async throws {
        try await withRunningEmulator(configuration: Self.configuration) { emulator, endpoints in
            let pem = try #require(endpoints.certificatePEM)
            #expect(endpoints.realtimeURL.hasPrefix("wss://127.0.0.1:") && endpoints.httpURL.hasPrefix("https://"))
            #expect(!pem.contains("PRIVATE KEY"))
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)))
            var headers = HTTPFields()
            headers[.secWebSocketProtocol] = "aws-appsync-event-ws, " + headerSubprotocol(["x-api-key": testAPIKey, "host": endpoints.host])
            // By name: this client would send an IP address as SNI, which TLS forbids.
            try await WebSocketClient.connect(
                url: Self.byName(endpoints.realtimeURL), configuration: .init(additionalHeaders: headers), tlsConfiguration: tls,
                logger: silentLogger
            ) { inbound, outbound, _ in
                let socket = TestSocket(inbound: inbound, outbound: outbound, received: LockedValue([]))
                #expect(try await socket.initialize()?.type == "connection_ack")
                #expect(try await socket.subscribe("s1", "/vortex-app/a/*")?.type == "subscribe_success")
                #expect(try emulator.publish(channel: "vortex-app/a/b", event: #"{"over":"tls"}"#) == 1)
                let data = try await socket.next(ofType: "data")
                #expect(data?.object["event"] as? String == #"{"over":"tls"}"#)
                try await outbound.close(.normalClosure, reason: nil)
            }
        }
    }

    @Test("each start makes a new key: two emulators present different certificates")
    func freshCertificates() async throws {
        let first = try await withRunningEmulator(configuration: Self.configuration) { _, endpoints in endpoints.certificatePEM }
        let second = try await withRunningEmulator(configuration: Self.configuration) { _, endpoints in endpoints.certificatePEM }
        #expect(first != nil && second != nil && first != second)
    }

    @Test("a client that does not trust the certificate is refused by TLS certificate verification")
    func untrusted() async throws {
        try await withRunningEmulator(configuration: Self.configuration) { _, endpoints in
            let error = await #expect(throws: (any Error).self) {
                try await WebSocketClient.connect(
                    url: Self.byName(endpoints.realtimeURL), tlsConfiguration: TLSConfiguration.makeClientConfiguration(),
                    logger: silentLogger
                ) { _, _, _ in
                    Issue.record("connected without trusting the certificate")
                }
            }
            #expect(String(describing: error).contains("CERTIFICATE_VERIFY_FAILED"), "\(String(describing: error))")
        }
    }

    /// `url` with `localhost` for `127.0.0.1`.
    static func byName(_ url: String) -> String { url.replacingOccurrences(of: "127.0.0.1", with: "localhost") }
}
