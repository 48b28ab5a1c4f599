import Crypto
import Foundation
import Logging
import Switchboard
import SwitchboardEmulator
import SwitchboardNIO
import SwitchboardTesting
import Testing
import URLSessionTaskBridge

/// Runs a `BackendNotifier` with a real transport on a socket engine (NIO unless told otherwise)
/// against the emulator on loopback, for the duration of `body`.
struct EndToEnd {
    static let apiKey = "e2e-api-key"
    static let jwtSecret = Array("e2e-jwt-secret".utf8)
    static let userId = "user-1"
    static let orgId = "org-1"
    static let namespace = "vortex-app"

    let emulator: SwitchboardEmulator
    let endpoints: SwitchboardEmulator.Endpoints
    let notifier: BackendNotifier
    let session: SessionSource
    /// The transport's clock: advance it to fire keep-alive deadlines and reconnect delays.
    let clock: ManualClock

    /// A silent logger, or one that writes everything at trace level to standard error when the
    /// environment sets `SWITCHBOARD_E2E_TRACE` (for debugging a scenario).
    static func logger(_ label: String) -> Logger {
        guard ProcessInfo.processInfo.environment["SWITCHBOARD_E2E_TRACE"] != nil else {
            return Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() })
        }
        var logger = Logger(label: label, factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .trace
        return logger
    }

    /// The emulator on an ephemeral loopback port, accepting ``apiKey`` and JWTs signed with ``jwtSecret``.
    static func emulatorConfiguration(
        keepAliveInterval: Duration = .seconds(1), maximumSubscriptions: Int = 200
    ) -> SwitchboardEmulator.Configuration {
        var configuration = SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: [apiKey], jwtSecret: jwtSecret), keepAliveInterval: keepAliveInterval,
            maximumSubscriptionsPerConnection: maximumSubscriptions,
            logger: logger("e2e.emulator"))
        // A real-time window no end-to-end test is about: the 3 s default can pass under load.
        configuration.graphQLConnectionInitTimeout = .seconds(60)
        return configuration
    }

    /// Builds the transport under test.
    typealias MakeTransport = @Sendable (
        _ endpoints: SwitchboardEmulator.Endpoints, _ connector: any WebSocketConnector, _ clock: ManualClock
    ) throws -> any EventTransport

    static func run(
        engine: SocketEngine = .nio,
        /// The session's token; nil signs in without a token provider.
        token: String? = EndToEnd.apiKey,
        keepAliveInterval: Duration = .seconds(1),
        maximumSubscriptions: Int = 200,
        tls: Bool = false,
        configuration notifierConfiguration: BackendNotifier.Configuration = .init(),
        _ makeTransport: MakeTransport,
        _ body: (EndToEnd) async throws -> Void
    ) async throws {
        var configuration = emulatorConfiguration(keepAliveInterval: keepAliveInterval, maximumSubscriptions: maximumSubscriptions)
        configuration.tls = tls
        try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            let clock = ManualClock()
            var connectorConfiguration = NIOWebSocketConnector.Configuration()
            if let pem = endpoints.certificatePEM { connectorConfiguration.tls.trustRoots = .only(try .pem(pem)) }
            let transport = try makeTransport(endpoints, engine.connector(connectorConfiguration), clock)
            let session = SessionSource(token.map { token in .signedIn(userId: userId, orgId: orgId) { _ in token } }
                ?? .signedIn(userId: userId, orgId: orgId))
            let notifier = BackendNotifier(transport: transport, session: session, configuration: notifierConfiguration)
            let harness = EndToEnd(emulator: emulator, endpoints: endpoints, notifier: notifier, session: session, clock: clock)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await notifier.run() }
                do {
                    try await body(harness)
                } catch {
                    await notifier.shutDown()
                    throw error
                }
                await notifier.shutDown()
                try await group.waitForAll()
            }
        }
    }

    /// Publishes an AppSync-shaped event on the user's channel `relative`.
    func publish(_ relative: String, _ payload: String) throws {
        _ = try emulator.publish(channel: "\(Self.namespace)/user/\(Self.userId)/\(relative)", event: payload)
    }

    /// Waits (yielding, a few real milliseconds at a time) until the emulator holds `count`
    /// subscriptions.
    func waitForSubscriptions(_ count: Int) async throws {
        while emulator.subscriptionCount < count { try await Task.sleep(for: .milliseconds(5)) }
    }

    /// Waits until the notifier reports `state`.
    func waitForState(_ predicate: @Sendable (ConnectionState) -> Bool) async {
        for await state in await notifier.connectionStates() where predicate(state) { return }
    }

    /// An HS256 JWT for `subject`, valid for an hour.
    static func jwt(subject: String) -> String {
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let header = base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let expiry = Int(Date().timeIntervalSince1970) + 3600
        let claims = base64URL(Data(#"{"sub":"\#(subject)","exp":\#(expiry)}"#.utf8))
        let signature = HMAC<SHA256>.authenticationCode(
            for: Data("\(header).\(claims)".utf8), using: SymmetricKey(data: jwtSecret))
        return "\(header).\(claims).\(base64URL(Data(signature)))"
    }
}

/// AppSync-shaped payloads of contract.md §3 (the emulator maps them to the legacy shape).
enum Payload {
    static let timestamp = "2026-11-22T10:00:00.000Z"
    static let device = #""orgId":"org-1","siteId":"site-1","thingName":"cam-1""#

    static func presence(online: Bool) -> String {
        #"{"eventType":"device/presenceChanged","timestamp":"\#(timestamp)",\#(device),"online":\#(online)}"#
    }
    static func recording(_ recording: Bool) -> String {
        #"{"eventType":"device/recordingStateChanged","timestamp":"\#(timestamp)",\#(device),"recording":\#(recording)}"#
    }
    static func firmware(_ state: Int) -> String {
        #"{"eventType":"device/firmwareUpdated","timestamp":"\#(timestamp)",\#(device),"fwUpdateState":\#(state)}"#
    }
    static func archive(_ id: String) -> String {
        #"{"eventType":"archive/stateChanged","timestamp":"\#(timestamp)",\#(device),"archiveId":"\#(id)","status":"Ready","videoLength":12.5,"videoSize":3000000000,"cloudSize":1000,"hasH265":true,"createdAt":"\#(timestamp)"}"#
    }
    static func license(_ phase: String) -> String {
        #"{"eventType":"organization/licensePhaseChanged","timestamp":"\#(timestamp)","orgId":"org-1","licensePhase":"\#(phase)"}"#
    }
    static func plan(free: Bool) -> String {
        #"{"eventType":"organization/planChanged","timestamp":"\#(timestamp)","orgId":"org-1","isFreePlan":\#(free)}"#
    }
    static func aiSettings(_ uuid: String) -> String {
        #"{"eventType":"organization/aiSettingsChanged","timestamp":"\#(timestamp)","orgId":"org-1","aiControlSetting":{"uuid":"\#(uuid)","termsAgreement":true,"options":[{"key":"person","enabled":true}]}}"#
    }
    static func role(_ reason: String) -> String {
        #"{"eventType":"user/roleChanged","timestamp":"\#(timestamp)","reason":"\#(reason)"}"#
    }
    static func revoke(_ request: String) -> String {
        #"{"eventType":"user/tokenRevoked","timestamp":"\#(timestamp)","userId":"user-1","revokedAt":"\#(timestamp)","reason":"PASSWORD_CHANGED","requestId":"\#(request)"}"#
    }
}
