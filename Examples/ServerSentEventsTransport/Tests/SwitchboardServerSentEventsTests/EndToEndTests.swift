import ExampleSupport
import Foundation
import Switchboard
import SwitchboardCore
import Synchronization
import SwitchboardServerSentEvents
import Testing

@Suite("ServerSentEventsTransport end to end", .serialized)
struct EndToEndTests {
    /// The registry an app with this transport builds, with `graphql` registered too (its factory
    /// is never called here), so selection by name is what picks the transport.
    static func transports(_ emulator: EmulatorChild) -> TransportRegistry {
        var transports = TransportRegistry()
        transports.register(ServerSentEventsTransport.kind) {
            ServerSentEventsTransport(configuration: .init(streamURL: emulator.streamURL, reconnectPolicy: .fixedDelay(.zero)))
        }
        transports.register(.graphql) {
            throw SwitchboardError(code: .invalidConfiguration, message: "graphql is not configured in this test")
        }
        return transports
    }

    @Test("transport = sse in the environment runs the nine event types through BackendNotifier")
    func nineEventTypes() async throws {
        try await EmulatorChild.with { emulator in
            let transports = Self.transports(emulator)
            let selection = try TransportSelection.resolve(
                environment: [TransportSelection.environmentVariable: "SSE"], registered: transports.kinds)
            #expect(selection.kind == ServerSentEventsTransport.kind)
            let session = SessionSource()
            let notifier = try BackendNotifier(selection: selection, transports: transports, session: session)
            #expect(notifier.transportKind == "sse")
            let events = NineEvents(userId: "e2e-user", orgId: "e2e-org")
            let origins = Mutex<[(TransportKind?, String?)]>([])
            let watch = notifier.broker.subscribe(RoleChangeOutput.self) { record in
                origins.withLock { $0.append((record.metadata.transport, record.metadata.stream)) }
            }
            let received = try await events.run(notifier, session: session, emulator: emulator)
            #expect(received.presence.online == true && received.presence.siteId == "site-1")
            #expect(received.recording.recording == true && received.recording.thingName == "camera-1")
            #expect(received.firmware.fwUpdateState == 7)
            #expect(received.archive.archiveId == "archive-1" && received.archive.status == .ready)
            #expect(received.archive.videoSize == 3_000_000_000 && received.archive.videoLength == 42.5)
            #expect(received.license.licensePhase == .gracePeriod && received.license.orgId == "e2e-org")
            #expect(received.plan.isFreePlan == false)
            #expect(received.aiSettings.aiControlSetting?.options?.first?.key == "personDetection")
            #expect(received.role.reason == "promoted to admin")
            #expect(received.revoke.userId == "e2e-user" && received.revoke.reason == .passwordChanged)
            // The broker handed the role record to the handler as it published it, before the
            // notifier shut down.
            let role = origins.withLock { $0.first }
            #expect(role?.0 == ServerSentEventsTransport.kind, "the broker's record names the transport that carried it")
            #expect(role?.1 == "role")
            watch.cancel()
        }
    }

    @Test("an unknown transport name is an error that lists the registered names")
    func unknownName() throws {
        var transports = TransportRegistry()
        transports.register(ServerSentEventsTransport.kind) {
            ServerSentEventsTransport(configuration: .init(streamURL: URL(string: "http://127.0.0.1:9/sse/v1/events")!))
        }
        let error = try #require(throws: SwitchboardError.self) {
            try TransportSelection.resolve(environment: [TransportSelection.environmentVariable: "websocket"], registered: transports.kinds)
        }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("allowed values: sse"))
    }
}
