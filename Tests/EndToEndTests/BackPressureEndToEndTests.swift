import Dispatch
import Foundation
@testable import Switchboard
import SwitchboardCore
import SwitchboardEmulator
@testable import SwitchboardNIO
import SwitchboardTesting
import Testing

extension BackendNotifier {
    /// Keeps the actor busy until `release` is signalled (at most `limit`): what a notifier
    /// behind a slow phone's main work looks like to its transport. Sets `holding` once it holds.
    func holdBusy(until release: DispatchSemaphore, atMost limit: DispatchTime, holding: Observed<Bool>) {
        holding.update { $0 = true }
        _ = release.wait(timeout: limit)
    }
}

/// Opens NIO connections and keeps them, so the test can read their budgets.
final class KeepingConnector: WebSocketConnector {
    let base: NIOWebSocketConnector
    let opened = Observed<[NIOWebSocketConnection]>([])

    init(maximumBufferedInboundBytes: Int) {
        var configuration = NIOWebSocketConnector.Configuration()
        configuration.maximumBufferedInboundBytes = maximumBufferedInboundBytes
        base = NIOWebSocketConnector(configuration: configuration)
    }

    func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
        let connection = try await base.open(request)
        opened.update { $0.append(connection) }
        return connection
    }
}

/// Issue 30's promise, end to end: when the notifier cannot keep up, its socket stops reading at
/// the budget (TCP slows the server), nothing is dropped, and every event arrives once it can.
@Suite("End to end: read back-pressure from a busy notifier", .timeLimit(.minutes(2)))
struct BackPressureEndToEndTests {
    @Test("a notifier held busy while 6,000 events are published holds at most its budget; then all 6,000 arrive once, in order")
    func busyNotifier() async throws {
        let count = 6_000
        let limit = 128 << 10
        try await withRunningEmulator(configuration: EndToEnd.emulatorConfiguration()) { emulator, endpoints in
            let connector = KeepingConnector(maximumBufferedInboundBytes: limit)
            let notifier = try BackendNotifier(
                selection: TransportSelection(kind: .appsync, source: .code),
                session: SessionSource(.signedIn(userId: EndToEnd.userId, orgId: EndToEnd.orgId) { _ in EndToEnd.apiKey })
            ) { _ in try AppSyncEndToEndTests.transport()(endpoints, connector, ManualClock()) }
            let roles = await notifier.roleValues()
            let received = Observed<[String]>([])
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await notifier.run() }
                group.addTask {
                    for await role in roles {
                        if received.update({ $0.append(role.reason ?? "?"); return $0.count }) >= count { return }
                    }
                }
                while emulator.subscriptionCount < 1 { try await Task.sleep(for: .milliseconds(2)) }
                let release = DispatchSemaphore(value: 0)
                let holding = Observed(false)
                let held = Task { await notifier.holdBusy(until: release, atMost: .now() + .seconds(60), holding: holding) }
                // Held before the first event is published: a notifier that got to run first on a
                // quiet machine took every event as it came, and reading never stopped.
                await holding.wait { $0 }
                let padding = String(repeating: "p", count: 200)
                for index in 0..<count {
                    try emulator.publish(
                        channel: "\(EndToEnd.namespace)/user/\(EndToEnd.userId)/roleChanged",
                        event: Payload.role("e\(index)-\(padding)"))
                }
                let connection = try #require(connector.opened.value.last)
                // Reading stops once the events the busy notifier has not taken fill the budget:
                // the count then stays put (20 looks in a row, 10 ms apart). A client without
                // back-pressure would read on until it held all of them.
                let budget = connection.inboundBudget
                var unchanged = 0
                var last = -1
                var looks = 0
                while unchanged < 20 {
                    let now = budget.outstanding
                    unchanged = now == last && now >= limit ? unchanged + 1 : 0
                    last = now
                    looks += 1
                    // 30 s at most, then a failure that says what it saw instead of a hang.
                    guard looks < 3_000 else {
                        Issue.record("reading was never held at the budget: \(now) bytes outstanding, \(received.value.count) delivered")
                        break
                    }
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(received.value.isEmpty, "the notifier was busy: nothing was delivered yet")
                release.signal()
                await held.value
                await received.wait { $0.count >= count }
                let oneReadEvent = 4 * (64 << 10) * (250 + InboundBudget.perMessageOverhead) / 250
                let peak = connection.inboundBudget.peakOutstanding
                #expect(peak <= limit + oneReadEvent, "peak \(peak) bytes; the events offered were \(count * 500) bytes")
                await notifier.shutDown()
                try await group.waitForAll()
            }
            let got = received.value.map { $0.prefix { $0 != "-" } }
            #expect(got == (0..<count).map { "e\($0)"[...] }, "every event once, in order")
        }
    }
}
