import Foundation
import Switchboard
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardGraphQL
import SwitchboardNIO
import SwitchboardSync
import SwitchboardTesting
import Testing

/// Contract §6, "Clocks": a session's first catch-up starts at the backend's time of the session
/// start, read from the sync answers' `serverTime`, whatever this device's wall clock says. Events
/// published before the session are never delivered as news, on any transport and dialect, with
/// the device's clock off by anything from 50 ms to a day either way.
@Suite("End to end: the device's clock is never compared with the backend's", .timeLimit(.minutes(2)))
struct ClockSkewEndToEndTests {
    static let offsets: [Duration] = [
        .seconds(-86_400), .seconds(-300), .seconds(-5), .milliseconds(-500), .milliseconds(-50),
        .milliseconds(50), .milliseconds(500), .seconds(5), .seconds(300), .seconds(86_400),
    ]
    static let transports: [String] = ["appsync", "graphql-ws", "graphql-transport-ws", "appsync-graphql"]
    /// Real time between the events published before the session, its start, and the events
    /// after: far more than a loopback sync round trip, the estimate's uncertainty, also with
    /// the whole suite (and soaks beside it) on two cores. The session's start is read at the
    /// early end of the estimate (half the first answer's round trip), so that nothing after it
    /// is lost; a first sync answer has taken over half a second there, and at a load of 8 one
    /// took over two (a 1 s separation let the early end reach back to the events before).
    static let separation: Duration = .seconds(2)

    static func makeTransport(_ name: String) -> EndToEnd.MakeTransport {
        switch name {
        case "graphql-ws": GraphQLEndToEndTests.transport(.graphQLWS)
        case "graphql-transport-ws": GraphQLEndToEndTests.transport(.graphQLTransportWS)
        case "appsync-graphql": GraphQLEndToEndTests.transport(.appSyncGraphQL)
        default: AppSyncEndToEndTests.transport()
        }
    }

    @Test("events published before the session are not delivered; those after are, once",
          arguments: transports, offsets)
    func nothingFromBeforeTheSession(transport: String, deviceOffset: Duration) async throws {
        try await run(transport: transport, deviceNow: { Date().addingTimeInterval(deviceOffset.seconds) }, label: "\(deviceOffset)")
    }

    @Test("the device's clock jumps by minutes or a day between the notifier's making and its run: still nothing from before, everything after once",
          arguments: transports, [Duration.seconds(-300), .seconds(86_400)])
    func clockJumps(transport: String, jump: Duration) async throws {
        let jumped = LockedValue(false)
        try await run(
            transport: transport,
            deviceNow: { jumped.withLock { $0 } ? Date().addingTimeInterval(jump.seconds) : Date() },
            label: "jump \(jump)", beforeRun: { jumped.withLock { $0 = true } })
    }

    @Test("a backend without serverTime, a device on time: nothing from before the session either (the device's clock stands in)",
          arguments: transports)
    func withoutServerTime(transport: String) async throws {
        var configuration = EndToEnd.emulatorConfiguration()
        configuration.sendsServerTime = false
        try await run(transport: transport, deviceNow: { Date() }, label: "no serverTime", emulator: configuration)
    }

    private func run(
        transport: String, deviceNow: @escaping @Sendable () -> Date, label: String, beforeRun: () -> Void = {},
        emulator configuration: SwitchboardEmulator.Configuration = EndToEnd.emulatorConfiguration()
    ) async throws {
        try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            let channel = "\(EndToEnd.namespace)/user/\(EndToEnd.userId)/roleChanged"
            for index in 0..<10 { try emulator.publish(channel: channel, event: Payload.role("before-\(index)")) }
            try await Task.sleep(for: Self.separation)

            let connector = NIOWebSocketConnector()
            let source = SyncClient(configuration: .init(baseURL: URL(string: endpoints.syncBaseURL)!), connector: connector)
            let notifier = BackendNotifier(
                transport: try Self.makeTransport(transport)(endpoints, connector, ManualClock()),
                session: SessionSource(.signedIn(userId: EndToEnd.userId, orgId: EndToEnd.orgId) { _ in EndToEnd.apiKey }),
                configuration: .init(
                    catchUp: .init(source: source, store: InMemoryCheckpointStore(), subscriptionSettleTime: .milliseconds(50)),
                    now: deviceNow))
            beforeRun()
            let received = Observed<[String]>([])
            let roles = await notifier.roleValues()
            let completed = Observed(0)
            let subscription = notifier.broker.subscribe(DataSyncCompletedEvent.self) { _ in completed.update { $0 += 1 } }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await notifier.run() }
                group.addTask {
                    for await role in roles { received.update { $0.append(role.reason ?? "?") } }
                }
                while emulator.subscriptionCount < 1 { try await Task.sleep(for: .milliseconds(2)) }
                try await Task.sleep(for: Self.separation)
                for index in 0..<10 { try emulator.publish(channel: channel, event: Payload.role("after-\(index)")) }
                await received.wait { $0.count >= 10 }
                // The first catch-up has run (its log read came after the session start); then
                // anything from before the session would have been delivered by now.
                await completed.wait { $0 >= 1 }
                try await Task.sleep(for: .milliseconds(50))
                await notifier.shutDown()
                group.cancelAll()
            }
            subscription.cancel()
            #expect(received.value == (0..<10).map { "after-\($0)" }, "device clock: \(label)")
        }
    }
}
