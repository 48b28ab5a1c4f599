import Foundation
import Logging
import SwitchboardConnectors
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardNIO
import SwitchboardTesting
import SwitchboardURLSession
import Testing
import URLSessionTaskBridge

/// URLSessionWebSocketConnector's logic against the emulator on loopback, its tasks bridged to
/// the NIO engine; and the system's own URLSession on this machine.
@Suite("URLSessionWebSocketConnector against the emulator", .timeLimit(.minutes(1)))
struct BridgedConnectorTests {
    static let apiKey = "urlsession-api-key"

    static func withEmulator(tls: Bool = false, _ body: (SwitchboardEmulator, SwitchboardEmulator.Endpoints) async throws -> Void) async throws {
        var configuration = SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: [apiKey]), keepAliveInterval: .seconds(60),
            logger: Logger(label: "urlsession.emulator", factory: { _ in SwiftLogNoOpLogHandler() }))
        configuration.tls = tls
        try await withRunningEmulator(configuration: configuration, body)
    }

    static func connector(
        maximumMessageSize: Int = 4 << 20, nio: NIOWebSocketConnector.Configuration = .init()
    ) -> URLSessionWebSocketConnector {
        URLSessionWebSocketConnector(configuration: .init(maximumMessageSize: maximumMessageSize), makeTask: BridgedWebSocketTask.nio(nio))
    }

    /// The AppSync Events offer: the protocol and the API key in a `header-` subprotocol.
    static func appSyncRequest(_ endpoints: SwitchboardEmulator.Endpoints) throws -> WebSocketRequest {
        let auth = try JSONSerialization.data(withJSONObject: ["host": endpoints.host, "x-api-key": apiKey], options: [.sortedKeys])
        let header = auth.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return WebSocketRequest(url: URL(string: endpoints.realtimeURL)!, subprotocols: ["aws-appsync-event-ws", "header-\(header)"])
    }

    /// The next text message's `type`.
    static func nextType(_ events: inout WebSocketInbound.AsyncIterator) async throws -> String? {
        guard case .message(.text(let text))? = try await events.next() else { return nil }
        return (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["type"] as? String
    }

    @Test("connects with the AppSync subprotocol offer, exchanges frames, answers pings, and sees the server's close code and reason")
    func lifecycle() async throws {
        try await Self.withEmulator { emulator, endpoints in
            let connection = try await Self.connector().open(try Self.appSyncRequest(endpoints))
            #expect(connection.subprotocol == "aws-appsync-event-ws")
            var events = connection.inbound.makeAsyncIterator()
            try await connection.send(.text(#"{"type":"connection_init"}"#))
            #expect(try await Self.nextType(&events) == "connection_ack")
            _ = try await connection.sendPing(Data())
            emulator.dropAllConnections(code: 4000, reason: "urlsession-test")
            while let event = try await events.next() {
                if case .closed(let close) = event {
                    #expect(close == WebSocketClose(code: WebSocketCloseCode(4000), reason: "urlsession-test"))
                    return
                }
            }
            Issue.record("inbound ended without the server's close frame")
        }
    }

    @Test("an upgrade the server refuses is a WebSocketHandshakeError with its status")
    func refusedUpgrade() async throws {
        try await Self.withEmulator { _, endpoints in
            await #expect {
                _ = try await Self.connector().open(WebSocketRequest(url: URL(string: endpoints.realtimeURL)!, subprotocols: ["nothing-known"]))
            } throws: { error in
                guard let status = (error as? WebSocketHandshakeError)?.status else { return false }
                return status >= 400
            }
        }
    }

    @Test("a message over the limit ends inbound with protocolViolation")
    func messageSizeLimit() async throws {
        try await Self.withEmulator { emulator, endpoints in
            let connection = try await Self.connector(maximumMessageSize: 4096).open(try Self.appSyncRequest(endpoints))
            var events = connection.inbound.makeAsyncIterator()
            try await connection.send(.text(#"{"type":"connection_init"}"#))
            #expect(try await Self.nextType(&events) == "connection_ack")
            let channel = "/vortex-app/user/u1/roleChanged"
            try await connection.send(.text(
                #"{"type":"subscribe","id":"s1","channel":"\#(channel)","authorization":{"x-api-key":"\#(Self.apiKey)","host":"\#(endpoints.host)"}}"#))
            #expect(try await Self.nextType(&events) == "subscribe_success")
            let reason = String(repeating: "x", count: 8192)
            _ = try emulator.publish(
                channel: String(channel.dropFirst()),
                event: #"{"eventType":"user/roleChanged","timestamp":"2026-11-22T10:00:00.000Z","reason":"\#(reason)"}"#)
            await #expect {
                while try await events.next() != nil {}
            } throws: { ($0 as? SwitchboardError)?.code == .protocolViolation }
        }
    }

    @Test("wss to a server the trust store does not know fails with a permanent network error naming the certificate")
    func untrustedCertificate() async throws {
        try await Self.withEmulator(tls: true) { _, endpoints in
            await #expect {
                _ = try await Self.connector().open(try Self.appSyncRequest(endpoints))
            } throws: { error in
                guard let error = error as? SwitchboardError else { return false }
                return error.code == .network && error.message.contains("certificate is not trusted") && error.isPermanent
            }
        }
    }

    @Test("a port nothing listens on fails with a network error naming the cause")
    func refusedConnect() async throws {
        await #expect {
            _ = try await Self.connector().open(WebSocketRequest(url: URL(string: "ws://127.0.0.1:1/event/realtime")!))
        } throws: { error in
            guard let error = error as? SwitchboardError else { return false }
            return error.code == .network && error.message.contains("cannot connect to the host")
        }
    }

    #if canImport(FoundationNetworking)
    @Test("the system's URLSession here fails at once with an error naming libcurl's limit, not a hang")
    func systemURLSessionOnLinux() async throws {
        try await Self.withEmulator { _, endpoints in
            // The connect deadline runs on a clock nobody advances: only the system's own answer
            // can end the connect.
            let connector = URLSessionWebSocketConnector(configuration: .init(clock: ManualClock()))
            await #expect {
                _ = try await connector.open(try Self.appSyncRequest(endpoints))
            } throws: { error in
                guard let error = error as? SwitchboardError else { return false }
                return error.code == .invalidConfiguration && error.message.contains("WebSockets not supported by libcurl")
                    && error.isPermanent
            }
        }
    }
    #endif

    @Test("the platform default is the NIO engine on Linux and the system's elsewhere")
    func platformDefault() {
        let connector = WebSocketConnectors.platformDefault()
        #if os(Linux)
        #expect(connector is NIOWebSocketConnector)
        #expect(WebSocketConnectors.platformEngine == "nio")
        #else
        #expect(connector is URLSessionWebSocketConnector)
        #expect(WebSocketConnectors.platformEngine == "urlsession")
        #endif
    }
}
