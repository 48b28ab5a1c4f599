import ExampleSupport
import Foundation
import Synchronization
import SwitchboardCore
import SwitchboardServerSentEvents
import SwitchboardTesting
import Testing

/// The transport conformance suite that ships in SwitchboardTesting, check by check, against the
/// server-sent events transport and the emulator in a child process on loopback.
@Suite("ServerSentEventsTransport conforms", .serialized)
struct ConformanceTests {
    @Test("conformance", arguments: TransportConformance.Check.allCases)
    func conforms(_ check: TransportConformance.Check) async throws {
        try await EmulatorChild.with { emulator in
            do {
                try await TransportConformance(harness: Harness(emulator: emulator)).run(check)
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}

/// Plays the backend for the suite: users sign in with JWTs (each may use only its own
/// channels), events are published over HTTP, faults go through the emulator's control routes.
struct Harness: TransportConformanceHarness {
    let emulator: EmulatorChild

    static func userId(_ user: TransportConformance.User) -> String { user == .first ? "sse-user-1" : "sse-user-2" }

    static func relative(_ stream: TransportConformance.Stream) -> (channel: String, eventType: String) {
        stream == .first ? ("roleChanged", "user/roleChanged") : ("archive/stateChanged", "archive/stateChanged")
    }

    func makeTransport() async throws -> any EventTransport {
        ServerSentEventsTransport(configuration: .init(
            streamURL: emulator.streamURL, reconnectPolicy: .fixedDelay(.zero), clock: ManualClock()))
    }

    func identity(_ user: TransportConformance.User) -> TransportIdentity {
        let userId = Self.userId(user)
        return TransportIdentity(userId: userId, orgId: "sse-org", tokens: TokenProvider { _ in EmulatorChild.token(for: userId) })
    }

    func target(_ stream: TransportConformance.Stream, for user: TransportConformance.User) -> SubscriptionRequest.Target {
        .channel("vortex-app/user/\(Self.userId(user))/\(Self.relative(stream).channel)")
    }

    func rejectedTarget(for user: TransportConformance.User) -> SubscriptionRequest.Target {
        .channel("vortex-app/user/someone-else/\(Self.relative(.first).channel)")
    }

    func deliver(_ marker: String, on stream: TransportConformance.Stream, for user: TransportConformance.User) async throws {
        let (channel, eventType) = Self.relative(stream)
        let field = stream == .first ? "reason" : "archiveId"
        try await emulator.publish(
            #"{"eventType":"\#(eventType)","timestamp":"2026-11-27T10:00:00.000Z","\#(field)":"\#(marker)"}"#,
            on: "vortex-app/user/\(Self.userId(user))/\(channel)")
    }

    func dropConnections() async throws { try await emulator.control("drop") }

    func rejectCredentials(_ reject: Bool) async throws { try await emulator.control(reject ? "reject-auth" : "reset") }
}
