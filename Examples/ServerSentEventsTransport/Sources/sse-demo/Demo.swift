import ExampleSupport
import Foundation
import Switchboard
import SwitchboardCore
import SwitchboardServerSentEvents

/// `swift run sse-demo`: starts the Switchboard emulator (the main package's `switchboard serve`),
/// registers the server-sent events transport beside nothing else, selects it the way an app does
/// (`SWITCHBOARD_TRANSPORT`, default `sse`), and runs the nine event types of the contract through
/// the unchanged `BackendNotifier` API, printing what each stream yields. Exits non-zero if any
/// stream misses its event.
@main
struct Demo {
    static func main() async throws {
        try await EmulatorChild.with { emulator in
            var transports = TransportRegistry()
            transports.register(ServerSentEventsTransport.kind) {
                ServerSentEventsTransport(configuration: .init(streamURL: emulator.streamURL))
            }
            let selection = try TransportSelection.resolve(defaultKind: ServerSentEventsTransport.kind, registered: transports.kinds)
            print("transport: \(selection)")
            let session = SessionSource()
            let notifier = try BackendNotifier(selection: selection, transports: transports, session: session)
            let events = NineEvents(userId: "demo-user", orgId: "demo-org")
            let received = try await events.run(notifier, session: session, emulator: emulator)
            print("devicePresenceValues()  \(received.presence.thingName ?? "?") online=\(received.presence.online.map { "\($0)" } ?? "nil")")
            print("deviceRecordingValues() \(received.recording.thingName ?? "?") recording=\(received.recording.recording.map { "\($0)" } ?? "nil")")
            print("deviceFirmwareValues()  \(received.firmware.thingName ?? "?") fwUpdateState=\(received.firmware.fwUpdateState.map { "\($0)" } ?? "nil")")
            print("archiveValues()         \(received.archive.archiveId ?? "?") status=\(received.archive.status.map { "\($0)" } ?? "nil")")
            print("licenseValues()         \(received.license.orgId ?? "?") licensePhase=\(received.license.licensePhase.map { "\($0)" } ?? "nil")")
            print("planValues()            \(received.plan.orgId ?? "?") isFreePlan=\(received.plan.isFreePlan.map { "\($0)" } ?? "nil")")
            print("aiSettingsValues()      \(received.aiSettings.orgId ?? "?") uuid=\(received.aiSettings.aiControlSetting?.uuid ?? "nil")")
            print("roleValues()            reason=\(received.role.reason ?? "nil")")
            print("revokeValues()          \(received.revoke.userId) reason=\(received.revoke.reason.map { "\($0)" } ?? "nil")")
            print("all nine event types arrived over \(notifier.transportKind)")
        }
    }
}
