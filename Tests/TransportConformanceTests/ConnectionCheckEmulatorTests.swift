import SwitchboardCore
import SwitchboardEmulator
import SwitchboardTesting
import Testing

/// `verifyConnection(timeout:)` end to end: each transport flavor on the NIO engine against the
/// emulator on loopback, whose `stall` fault plays a dead network path (no frames, no pongs).
/// The ping's deadline is on the transport's manual clock; real time only bounds waiting for
/// what must happen.
@Suite("Connection checks against the emulator", .timeLimit(.minutes(1)))
struct ConnectionCheckEmulatorTests {
    @Test("a stalled connection is found dead by a check, replaced at once, and the new one delivers", arguments: Flavor.allCases)
    func stalledConnectionIsReplaced(_ flavor: Flavor) async throws {
        try await EmulatorHarness.run(flavor) { harness in
            try await CheckRig.run(
                flavor, server: nil, host: harness.endpoints.host, connector: harness.client,
                policy: .fixedDelay(.seconds(10)), identity: harness.identity(.first),
                deliver: { marker in try await harness.deliver(marker, on: .first, for: .first) }
            ) { rig in
                try await rig.subscribeAndConnect()
                try await rig.deliverAndReceive("before-the-stall")
                let mark = rig.mark()
                #expect(harness.emulator.stallConnections(for: .seconds(3600)) == 1)
                // A stall alone changes nothing for the client: the keep-alive watchdog runs on
                // the manual clock, which stands still until the check's deadline.
                #expect(rig.states(from: mark).isEmpty)
                rig.transport.verifyConnection(timeout: .seconds(2))
                await rig.clock.sleeper(dueBy: .init(offset: .seconds(2)))
                try await rig.waitForLog("checking the connection", count: 1)
                rig.clock.advance(by: .seconds(2))
                try await rig.waitFor("subscriptionEstablished on a new connection", count: 2) {
                    $0 == .subscriptionEstablished(CheckRig.key)
                }
                #expect(rig.states(from: mark) == [.connecting(attempt: 1), .connected])
                let errors = rig.errors(from: mark)
                #expect(errors.map(\.code) == [.network])
                #expect(errors.first?.message == "connection check: no pong within 2 s")
                try await rig.deliverAndReceive("after-the-check")
            }
        }
    }

    @Test("a check on a healthy emulator connection is answered and keeps it", arguments: Flavor.allCases)
    func healthyConnectionIsKept(_ flavor: Flavor) async throws {
        try await EmulatorHarness.run(flavor) { harness in
            try await CheckRig.run(
                flavor, server: nil, host: harness.endpoints.host, connector: harness.client,
                policy: .fixedDelay(.seconds(10)), identity: harness.identity(.first),
                deliver: { marker in try await harness.deliver(marker, on: .first, for: .first) }
            ) { rig in
                try await rig.subscribeAndConnect()
                let mark = rig.mark()
                rig.transport.verifyConnection(timeout: .seconds(2))
                try await rig.waitForLog("connection check passed", count: 1)
                rig.clock.advance(by: .seconds(3))
                try await rig.deliverAndReceive("after-the-check")
                #expect(rig.states(from: mark).isEmpty)
                #expect(rig.errors(from: mark).isEmpty)
            }
        }
    }
}
