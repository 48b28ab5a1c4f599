import Foundation
import LegacyServerHarness
import SwitchboardEmulator

extension MigrationTransport {
    /// Whether fixtures of this transport are recorded against the real GraphQL server
    /// (strawberry speaks `graphql-ws` and `graphql-transport-ws`; the AppSync GraphQL dialect and
    /// AppSync Events are the emulator's).
    var recordsAgainstLegacyServer: Bool { self == .graphQLWS || self == .graphQLTransportWS }
}

/// One logical event of a scenario, in both contracts: the AppSync Events publish (channel under
/// the user, contract §3 payload) and the legacy one (subscription field, argument, contract §4
/// payload), written independently so the parity suite compares two shapes, not one mapping.
struct ScenarioEvent: Sendable {
    var channel: String
    var appSync: String
    var legacyField: String
    var legacyArgument: String
    var legacy: String

    private static func device(_ channel: String, _ appSync: String, _ legacy: String) -> ScenarioEvent {
        ScenarioEvent(channel: channel, appSync: appSync, legacyField: "subscribeDeviceState", legacyArgument: Recording.userId, legacy: legacy)
    }
    private static func organization(_ channel: String, _ appSync: String, _ legacy: String) -> ScenarioEvent {
        ScenarioEvent(channel: channel, appSync: appSync, legacyField: "subscribeOrganizationState", legacyArgument: Recording.orgId, legacy: legacy)
    }

    static func presence(online: Bool) -> ScenarioEvent {
        device("device/presenceChanged", Payload.presence(online: online), LegacyPayload.presence(online: online))
    }
    static func recording(_ recording: Bool) -> ScenarioEvent {
        device("device/recordingStateChanged", Payload.recording(recording), LegacyPayload.recording(recording))
    }
    static func firmware(_ state: Int) -> ScenarioEvent {
        device("device/firmwareUpdated", Payload.firmware(state), LegacyPayload.firmware(state))
    }
    static func archive(_ id: String, status: String) -> ScenarioEvent {
        ScenarioEvent(
            channel: "archive/stateChanged", appSync: Payload.archive(id, status: status),
            legacyField: "subscribeArchiveState", legacyArgument: Recording.userId, legacy: LegacyPayload.archive(id, status: status))
    }
    static func license(_ phase: String) -> ScenarioEvent {
        organization("organization/licensePhaseChanged", Payload.license(phase), LegacyPayload.license(phase))
    }
    static func plan(free: Bool) -> ScenarioEvent {
        organization("organization/planChanged", Payload.plan(free: free), LegacyPayload.plan(free: free))
    }
    static func aiSettings(_ uuid: String) -> ScenarioEvent {
        organization("organization/aiSettingsChanged", Payload.aiSettings(uuid), LegacyPayload.aiSettings(uuid))
    }
    static func role(_ reason: String) -> ScenarioEvent {
        ScenarioEvent(
            channel: "roleChanged", appSync: Payload.role(reason),
            legacyField: "subscribeRoleChange", legacyArgument: Recording.userId, legacy: LegacyPayload.role(reason))
    }
    static func revoke(_ request: String) -> ScenarioEvent {
        ScenarioEvent(
            channel: "tokenRevoked", appSync: Payload.revoke(request),
            legacyField: "subscribeUserTokenRevoke", legacyArgument: Recording.userId, legacy: LegacyPayload.revoke(request))
    }
}

/// What a recording asks of the server it runs against.
protocol RecordingServer: Sendable {
    /// Subscriptions held per open connection, by connection number (from 1, in opening order).
    func subscriptionCounts() async throws -> [Int: Int]
    func publish(_ event: ScenarioEvent) async throws
    func dropAll(code: Int, reason: String) async throws
    /// The open connections go silent (nothing sent, pongs and `ka` included) until `reset()`.
    func stall() async throws
    func reset() async throws
    /// Every later connect is refused as unauthorized.
    func rejectAuthentication() async throws
}

struct EmulatorForRecording: RecordingServer {
    let emulator: SwitchboardEmulator

    func subscriptionCounts() async throws -> [Int: Int] { emulator.subscriptionCountsByConnection }
    func publish(_ event: ScenarioEvent) async throws {
        _ = try emulator.publish(channel: "vortex-app/user/\(Recording.userId)/\(event.channel)", event: event.appSync)
    }
    func dropAll(code: Int, reason: String) async throws { _ = emulator.dropAllConnections(code: UInt16(code), reason: reason) }
    func stall() async throws { _ = emulator.stallConnections(for: .seconds(3600)) }
    func reset() async throws { emulator.resetFaults() }
    func rejectAuthentication() async throws { emulator.rejectAuthentication(nextConnections: nil) }
}

struct LegacyServerForRecording: RecordingServer {
    let server: LegacyGraphQLServer

    func subscriptionCounts() async throws -> [Int: Int] { try await server.subscriptionCounts() }
    func publish(_ event: ScenarioEvent) async throws {
        try await server.publish(field: event.legacyField, argument: event.legacyArgument, json: event.legacy)
    }
    func dropAll(code: Int, reason: String) async throws { try await server.dropAll(code: code, reason: reason) }
    func stall() async throws { try await server.stall() }
    func reset() async throws { try await server.reset() }
    /// The server was started accepting no token (``Recording/record(_:over:)``): nothing to do.
    func rejectAuthentication() async throws {}
}
