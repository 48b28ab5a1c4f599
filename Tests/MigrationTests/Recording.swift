import Foundation
import LegacyServerHarness
import Logging
import Switchboard
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardNIO
import SwitchboardTesting

/// Records the migration scenarios live: a notifier on a real transport, on the NIO engine, with
/// every stream observed and the client's side recorded by a `FixtureRecorder`. AppSync Events and
/// the AppSync GraphQL dialect are recorded against the emulator; `graphql-ws` and
/// `graphql-transport-ws` against a real GraphQL server (`LegacyGraphQLServer`: strawberry-graphql
/// serving contract §4), so the legacy side of parity comes from a real executor, not from the
/// emulator's mapping.
enum Recording {
    static let apiKey = "migration-api-key"
    static let userId = "user-1"
    static let orgId = "org-1"

    /// The scenarios, each with what it shows.
    enum Scenario: String, CaseIterable, Sendable {
        case allEventTypes = "all-event-types"
        case reconnectMidStream = "reconnect-mid-stream"
        case rejectedSubscription = "rejected-subscription"
        case authFailure = "auth-failure"
        case keepAliveTimeout = "keepalive-timeout"

        /// The scenarios with committed fixtures: all of them.
        static let recorded: [Scenario] = allCases

        var summary: String {
            switch self {
            case .allEventTypes:
                "every stream subscribed; one event of each of the nine types, plus a second presence, an archive in another state and a second license phase"
            case .reconnectMidStream:
                "two events, the server drops the connection (1011), the client reconnects after the policy's 10 s and resubscribes, two more events"
            case .rejectedSubscription:
                "the server allows four subscriptions per connection, so the fifth is refused; one event per channel"
            case .authFailure:
                "every connect is refused as unauthorized: one refresh, then sessionExpired"
            case .keepAliveTimeout:
                "one event, the server goes silent, the client's keep-alive deadline passes on its clock, it reconnects and resubscribes, one more event"
            }
        }
    }

    /// Runs `scenario` live over `transport` and returns the recording and what the consumers got.
    static func record(
        _ scenario: Scenario, over transport: MigrationTransport
    ) async throws -> (fixture: Fixture, observation: NotifierObservation) {
        if transport.recordsAgainstLegacyServer {
            // The real server refuses the token from the start (auth-failure), and applies
            // strawberry's own per-connection limit (rejected-subscription).
            return try await LegacyGraphQLServer.with(
                "LegacyServerFixtureRoundTripTests", tokens: scenario == .authFailure ? [] : [apiKey],
                maximumSubscriptions: scenario == .rejectedSubscription ? 4 : 100
            ) { server in
                try await record(scenario, over: transport, server: LegacyServerForRecording(server: server), port: server.port)
            }
        }
        let configuration = SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: [apiKey]),
            keepAliveInterval: .seconds(1),
            maximumSubscriptionsPerConnection: scenario == .rejectedSubscription ? 4 : 200,
            logger: Logger(label: "migration.emulator", factory: { _ in SwiftLogNoOpLogHandler() }))
        return try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            try await record(scenario, over: transport, server: EmulatorForRecording(emulator: emulator), port: endpoints.port)
        }
    }

    private static func record(
        _ scenario: Scenario, over transport: MigrationTransport, server: any RecordingServer, port: Int
    ) async throws -> (fixture: Fixture, observation: NotifierObservation) {
        let clock = ManualClock()
        let recorder = FixtureRecorder(wrapping: NIOWebSocketConnector(), clock: clock)
        let notifier = BackendNotifier(
            transport: transport.make(port: port, connector: recorder, clock: clock),
            session: SessionSource(.signedIn(userId: userId, orgId: orgId) { _ in apiKey }))
        let live = Live(server: server, recorder: recorder, clock: clock)
        let settled = LockedValue<[Fixture.Entry]>([])
        let observation = try await NotifierObservation.observe(notifier) { states in
            try await live.run(scenario, states: states)
            await states.settled(afterAttempts: recorder.connectAttempts)
            // What the client says when it is shut down afterwards is not part of the scenario.
            settled.withLock { $0 = recorder.entries }
        }
        let header = Fixture.Header(
            scenario: scenario.rawValue, transport: transport.kind.rawValue, dialect: transport.rawValue,
            userId: userId, orgId: orgId, summary: scenario.summary)
        return (Fixture(header: header, entries: settled.withLock { $0 }), observation)
    }
}

/// Drives one live recording.
private struct Live: Sendable {
    let server: any RecordingServer
    let recorder: FixtureRecorder
    let clock: ManualClock

    func run(_ scenario: Recording.Scenario, states: NotifierObservation.StateLog) async throws {
        switch scenario {
        case .allEventTypes:
            try await subscribed(5)
            try await publishAndWait([
                .presence(online: true), .recording(true), .firmware(7), .archive("a-1", status: "Uploading"),
                .license("GracePeriod"), .plan(free: false), .aiSettings("ai-1"), .role("promoted"), .revoke("req-1"),
                .presence(online: false), .archive("a-1", status: "Ready"), .license("RenewalOverdue"),
            ])
            try await endRecording()
        case .reconnectMidStream:
            let first = try await subscribed(5)
            try await publishAndWait([.presence(online: true), .role("before")])
            let attempts = recorder.connectAttempts
            try await server.dropAll(code: 1011, reason: "server restart")
            try await reconnect(states: states, attemptsBefore: attempts)
            try await subscribed(5, after: first)
            try await publishAndWait([.presence(online: false), .role("after")])
            try await endRecording()
        case .rejectedSubscription:
            try await subscribed(4)
            try await until { recorder.serverFrames(ofType: ["subscribe_error", "error"]) >= 1 }
            try await publishAndWait([
                .presence(online: true), .archive("a-2", status: "Failed"), .plan(free: true), .role("viewer"), .revoke("req-2"),
            ], frames: 4)
            try await endRecording()
        case .authFailure:
            try await server.rejectAuthentication()
            while true {
                await states.wait { states in
                    switch states.last {
                    case .waitingToReconnect?, .disconnected?: true
                    default: false
                    }
                }
                if case .waitingToReconnect(_, let delay)? = states.states.last {
                    if delay > .zero {
                        await clock.sleeper(dueBy: clock.now.advanced(by: delay))
                        clock.advance(by: delay)
                    }
                    await states.wait { if case .waitingToReconnect? = $0.last { false } else { true } }
                    continue
                }
                break
            }
        case .keepAliveTimeout:
            let first = try await subscribed(5)
            try await publishAndWait([.role("before")])
            let attempts = recorder.connectAttempts
            try await server.stall()
            try await stepUntilTheClientGivesUp(states: states, attemptsBefore: attempts)
            try await server.reset()
            try await reconnect(states: states, attemptsBefore: attempts)
            try await subscribed(5, after: first)
            try await publishAndWait([.role("after")])
            try await endRecording()
        }
    }

    /// Waits until the newest connection (numbered above `after`) holds `count` subscriptions;
    /// returns its number.
    @discardableResult
    func subscribed(_ count: Int, after previous: Int = 0) async throws -> Int {
        while true {
            let counts = try await server.subscriptionCounts()
            if let newest = counts.keys.max(), newest > previous, counts[newest, default: 0] >= count { return newest }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Steps the client's clock through its timers (ping, pong and keep-alive deadlines) until the
    /// client gives up on the silent connection, so that ``reconnect(states:attemptsBefore:)``
    /// moves the clock through the reconnect delay.
    ///
    /// Before each step the client has handled what it was sent (a frame read after the clock
    /// moved would count its keep-alive deadline from the later time, and the replay, which
    /// moves time only then, would part from the recording) and has armed a timer. Each step goes
    /// to the client's next deadline, or 5 s, whichever is sooner: half the reconnect delay, so a
    /// delay armed during a step does not come due in it.
    ///
    /// The client's giving up is seen in three ways, none of them immediately: its close in the
    /// recording (the AppSync Events transport closes in a child task), the notifier's state,
    /// a new connect attempt. If the clock is moved through the reconnect delay before one is
    /// seen, the reconnect happens at its own deadline and
    /// ``reconnect(states:attemptsBefore:)`` finds it made.
    /// (Stepping while the notifier still reported `connected`, and waiting for a
    /// `waitingToReconnect` that was already over, hung the recording under load.)
    func stepUntilTheClientGivesUp(states: NotifierObservation.StateLog, attemptsBefore: Int) async throws {
        let longestStep: Duration = .seconds(5)
        let closed = {
            recorder.entries.contains { if case .close(.clientToServer, _, _) = $0.event { true } else { false } }
        }
        while true {
            await clock.sleepers(atLeast: 1)
            await recorder.clientHasRead()
            guard let next = clock.nextDeadline else { continue }
            if closed() || states.states.last != .connected || recorder.connectAttempts > attemptsBefore { return }
            clock.advance(to: min(next, clock.now.advanced(by: longestStep)))
        }
    }

    struct RecordingStuck: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// Waits for the client to notice that its connection is gone, then moves its clock to the
    /// end of the reconnect delay, unless the client has already made its next connect attempt
    /// (then the delay is over); returns once it is connected again.
    func reconnect(states: NotifierObservation.StateLog, attemptsBefore: Int) async throws {
        await states.wait { $0.contains { if case .waitingToReconnect = $0 { true } else { false } } }
        if case .waitingToReconnect(_, let delay)? = states.states.last, delay > .zero {
            let due = clock.now.advanced(by: delay)
            await clock.sleeper(dueBy: due)
            // Nothing else moves the clock, and the client makes its next attempt only once the
            // delay is over: with no attempt made yet, the sleeper is the delay's.
            if recorder.connectAttempts == attemptsBefore {
                clock.advance(to: min(clock.nextDeadline ?? due, due))
            }
        }
        await states.wait { $0.last == .connected }
    }

    /// Publishes each event and waits until the client has received `frames` data frames for
    /// them (one per event by default: every event type has one subscription that carries it,
    /// on both protocols).
    func publishAndWait(_ events: [ScenarioEvent], frames: Int? = nil) async throws {
        let before = recorder.serverFrames(ofType: ["data", "next"])
        for event in events { try await server.publish(event) }
        let expected = before + (frames ?? events.count)
        try await until { recorder.serverFrames(ofType: ["data", "next"]) >= expected }
    }

    /// Ends the recording with a normal close from the server, so the client comes to rest.
    func endRecording() async throws {
        try await server.dropAll(code: 1000, reason: "end of recording")
    }

    /// Polls `condition` every 2 ms. Real time only bounds a scenario that went wrong: after
    /// 20 s it fails with the last frames recorded, to show where it stopped.
    func until(_ condition: @Sendable () -> Bool, _ what: String = #function) async throws {
        var polls = 0
        while !condition() {
            polls += 1
            if polls > 10_000 {
                let tail = recorder.entries.suffix(6).map { "\($0.connection) \($0.event.summary)" }.joined(separator: "\n")
                throw RecordingStuck(message: "\(what) never happened; the last frames:\n\(tail)")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}

extension FixtureRecorder {
    /// How many frames from the server so far have a `type` in `types`.
    func serverFrames(ofType types: Set<String>) -> Int {
        entries.filter { entry in
            guard case .frame(.serverToClient, let text) = entry.event,
                let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                let type = object["type"] as? String
            else { return false }
            return types.contains(type)
        }.count
    }
}

/// AppSync-shaped payloads of contract.md §3 (the emulator maps them to the legacy shape; the real
/// legacy server is sent `LegacyPayload`'s instead).
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
    static func archive(_ id: String, status: String) -> String {
        #"{"eventType":"archive/stateChanged","timestamp":"\#(timestamp)",\#(device),"archiveId":"\#(id)","status":"\#(status)","videoLength":12.5,"videoSize":3000000000,"cloudSize":1000,"hasH265":true,"createdAt":"\#(timestamp)"}"#
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
