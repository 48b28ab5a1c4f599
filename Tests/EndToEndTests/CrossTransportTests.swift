import Foundation
import Switchboard
import SwitchboardEmulator
import SwitchboardGraphQL
import SwitchboardNIO
import SwitchboardTesting
import Testing

/// The same logical events, published once through the emulator, reach a `BackendNotifier` on
/// the AppSync Events transport and one on the GraphQL transport at the same time, and every
/// stream yields equal typed values on both, apart from `eventType` and `timestamp`, which only
/// AppSync Events carries (contract.md §4).
@Suite("End to end: both transports yield the same typed values", .timeLimit(.minutes(1)))
struct CrossTransportTests {
    @Test("every stream yields equal typed values over AppSync Events and GraphQL", arguments: GraphQLEndToEndTests.dialects)
    func sameTypedValues(dialect: GraphQLProtocol) async throws {
        try await EndToEnd.runSideBySide(AppSyncEndToEndTests.transport(), GraphQLEndToEndTests.transport(dialect)) { emulator, appSync, graphQL in
            var a = await Streams(appSync)
            var g = await Streams(graphQL)
            // AppSync Events covers the eleven streams with five subscriptions (two wildcards),
            // the legacy schema with its five subscriptions.
            while emulator.subscriptionCount < 10 { try await Task.sleep(for: .milliseconds(5)) }

            for (relative, payload) in [
                ("device/presenceChanged", Payload.presence(online: true)),
                ("device/recordingStateChanged", Payload.recording(false)),
                ("device/firmwareUpdated", Payload.firmware(-1)),
                ("archive/stateChanged", Payload.archive("a-9")),
                ("organization/licensePhaseChanged", Payload.license("NoticePeriod")),
                ("organization/planChanged", Payload.plan(free: true)),
                ("organization/aiSettingsChanged", Payload.aiSettings("ai-9")),
                ("roleChanged", Payload.role("demoted")),
                ("tokenRevoked", Payload.revoke("req-9")),
            ] {
                _ = try emulator.publish(channel: "\(EndToEnd.namespace)/user/\(EndToEnd.userId)/\(relative)", event: payload)
            }

            try await expectSame(&a.presence, &g.presence, 1)
            try await expectSame(&a.recording, &g.recording, 1)
            try await expectSame(&a.firmware, &g.firmware, 1)
            try await expectSame(&a.archive, &g.archive, 1)
            try await expectSame(&a.license, &g.license, 1)
            try await expectSame(&a.plan, &g.plan, 1)
            try await expectSame(&a.ai, &g.ai, 1)
            try await expectSame(&a.role, &g.role, 1)
            try await expectSame(&a.revoke, &g.revoke, 1)
            try await expectSame(&a.device, &g.device, 3)
            try await expectSame(&a.organization, &g.organization, 3)
        }
    }

    /// Takes `count` values from each side and compares them without the AppSync-only metadata,
    /// which must be set on the AppSync side and absent on the GraphQL side.
    private func expectSame<Value: Stamped>(
        _ appSync: inout AsyncStream<Value>.Iterator, _ graphQL: inout AsyncStream<Value>.Iterator, _ count: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for _ in 0..<count {
            let fromAppSync = try #require(await appSync.next(), sourceLocation: sourceLocation)
            let fromGraphQL = try #require(await graphQL.next(), sourceLocation: sourceLocation)
            #expect(fromAppSync.eventType != nil && fromAppSync.timestamp != nil, sourceLocation: sourceLocation)
            #expect(fromGraphQL.eventType == nil && fromGraphQL.timestamp == nil, sourceLocation: sourceLocation)
            #expect(fromAppSync.withoutMetadata == fromGraphQL.withoutMetadata, sourceLocation: sourceLocation)
        }
    }

    /// One iterator per stream of one notifier, made before anything is published.
    private struct Streams {
        var presence: AsyncStream<DevicePresenceOutput>.Iterator
        var recording: AsyncStream<DeviceRecordingOutput>.Iterator
        var firmware: AsyncStream<DeviceFirmwareOutput>.Iterator
        var archive: AsyncStream<ArchiveStateOutput>.Iterator
        var license: AsyncStream<LicenseStateOutput>.Iterator
        var plan: AsyncStream<PlanStateOutput>.Iterator
        var ai: AsyncStream<AISettingsOutput>.Iterator
        var role: AsyncStream<RoleChangeOutput>.Iterator
        var revoke: AsyncStream<UserTokenRevokeOutput>.Iterator
        var device: AsyncStream<DeviceStateOutput>.Iterator
        var organization: AsyncStream<OrganizationStateOutput>.Iterator

        init(_ n: BackendNotifier) async {
            presence = await n.devicePresenceValues().makeAsyncIterator()
            recording = await n.deviceRecordingValues().makeAsyncIterator()
            firmware = await n.deviceFirmwareValues().makeAsyncIterator()
            archive = await n.archiveValues().makeAsyncIterator()
            license = await n.licenseValues().makeAsyncIterator()
            plan = await n.planValues().makeAsyncIterator()
            ai = await n.aiSettingsValues().makeAsyncIterator()
            role = await n.roleValues().makeAsyncIterator()
            revoke = await n.revokeValues().makeAsyncIterator()
            device = await n.deviceValues().makeAsyncIterator()
            organization = await n.organizationValues().makeAsyncIterator()
        }
    }
}

/// A typed value with the metadata only AppSync Events carries.
protocol Stamped: Equatable {
    var eventType: String? { get set }
    var timestamp: Date? { get set }
}

extension Stamped {
    /// The value with `eventType` and `timestamp` cleared.
    var withoutMetadata: Self {
        var value = self
        value.eventType = nil
        value.timestamp = nil
        return value
    }
}

extension DevicePresenceOutput: Stamped {}
extension DeviceRecordingOutput: Stamped {}
extension DeviceFirmwareOutput: Stamped {}
extension ArchiveStateOutput: Stamped {}
extension LicenseStateOutput: Stamped {}
extension PlanStateOutput: Stamped {}
extension AISettingsOutput: Stamped {}
extension RoleChangeOutput: Stamped {}
extension UserTokenRevokeOutput: Stamped {}
extension DeviceStateOutput: Stamped {}
extension OrganizationStateOutput: Stamped {}

extension EndToEnd {
    /// Runs two `BackendNotifier`s, each on its own transport and manual clock and signed in as
    /// the same user with the API key, against one emulator for the duration of `body`.
    static func runSideBySide(
        _ makeFirst: MakeTransport, _ makeSecond: MakeTransport,
        _ body: (SwitchboardEmulator, BackendNotifier, BackendNotifier) async throws -> Void
    ) async throws {
        try await withRunningEmulator(configuration: emulatorConfiguration()) { emulator, endpoints in
            func notifier(_ make: MakeTransport) throws -> BackendNotifier {
                BackendNotifier(
                    transport: try make(endpoints, NIOWebSocketConnector(), ManualClock()),
                    session: SessionSource(.signedIn(userId: userId, orgId: orgId) { _ in apiKey }))
            }
            let notifiers = [try notifier(makeFirst), try notifier(makeSecond)]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for notifier in notifiers { group.addTask { try await notifier.run() } }
                do {
                    try await body(emulator, notifiers[0], notifiers[1])
                } catch {
                    for notifier in notifiers { await notifier.shutDown() }
                    throw error
                }
                for notifier in notifiers { await notifier.shutDown() }
                try await group.waitForAll()
            }
        }
    }
}
