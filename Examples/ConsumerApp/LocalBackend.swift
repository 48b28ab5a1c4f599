import Foundation
import Logging
import Switchboard
import SwitchboardAppSync
import SwitchboardEmulator

/// The stand-in for the real backend: the package's emulator on a free loopback port, which
/// speaks both protocols, and the events it publishes. Nothing in here is app code.
enum LocalBackend {
    static let apiKey = "example-api-key"
    static let userId = "example-user"
    static let orgId = "example-org"

    /// Runs `body` while the emulator serves on `127.0.0.1` at a port the system picks.
    static func withEmulator<Result: Sendable>(
        _ body: (SwitchboardEmulator, BackendEventsService.Backend) async throws -> Result
    ) async throws -> Result {
        let configuration = SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: [apiKey]),
            logger: Logger(label: "example.emulator", factory: { _ in SwiftLogNoOpLogHandler() }))
        return try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            let backend = BackendEventsService.Backend(
                appSyncRealtimeURL: URL(string: endpoints.realtimeURL)!, appSyncAuthorization: .apiKey(apiKey),
                graphQLURL: URL(string: endpoints.graphQLURL)!)
            return try await body(emulator, backend)
        }
    }

    /// Waits until the app's notifier holds `count` subscriptions at the emulator (five cover
    /// every stream, on either transport). Only this stand-in polls; the app never does.
    static func waitForSubscriptions(_ emulator: SwitchboardEmulator, count: Int = 5) async throws {
        while emulator.subscriptionCount < count { try await Task.sleep(for: .milliseconds(5)) }
    }

    /// Publishes one event of each of the nine types, as the backend publishes them on AppSync
    /// Events (the emulator hands the legacy shape to GraphQL subscribers).
    /// - Returns: How many events were published.
    static func publishSampleEvents(on emulator: SwitchboardEmulator) throws -> Int {
        let timestamp = "2026-11-22T10:00:00.000Z"
        let device = #""orgId":"\#(orgId)","siteId":"site-1","thingName":"front-door""#
        let events: [(channel: String, eventType: String, fields: String)] = [
            ("device/presenceChanged", "device/presenceChanged", #"\#(device),"online":true"#),
            ("device/recordingStateChanged", "device/recordingStateChanged", #"\#(device),"recording":true"#),
            ("device/firmwareUpdated", "device/firmwareUpdated", #"\#(device),"fwUpdateState":3"#),
            ("archive/stateChanged", "archive/stateChanged",
             #"\#(device),"archiveId":"clip-7","status":"Ready","videoLength":12.5,"videoSize":3000000000,"cloudSize":1000,"hasH265":true,"createdAt":"\#(timestamp)""#),
            ("organization/licensePhaseChanged", "organization/licensePhaseChanged", #""orgId":"\#(orgId)","licensePhase":"NoticePeriod""#),
            ("organization/planChanged", "organization/planChanged", #""orgId":"\#(orgId)","isFreePlan":false"#),
            ("organization/aiSettingsChanged", "organization/aiSettingsChanged",
             #""orgId":"\#(orgId)","aiControlSetting":{"uuid":"ai-2","termsAgreement":true,"options":[{"key":"person","enabled":true}]}"#),
            ("roleChanged", "user/roleChanged", #""reason":"promoted to admin""#),
            ("tokenRevoked", "user/tokenRevoked",
             #""userId":"\#(userId)","revokedAt":"\#(timestamp)","reason":"PASSWORD_CHANGED","requestId":"req-1""#),
        ]
        for event in events {
            try emulator.publish(
                channel: "vortex-app/user/\(userId)/\(event.channel)",
                event: #"{"eventType":"\#(event.eventType)","timestamp":"\#(timestamp)",\#(event.fields)}"#)
        }
        return events.count
    }
}
