import Foundation
import SwitchboardTesting
import Testing
@testable import SwitchboardEmulator

@Suite("AppSync Events keep-alive", .timeLimit(.minutes(1)))
struct KeepAliveTests {
    @Test func kaIsSentAtTheConfiguredIntervalOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let result = try await withRunningEmulator(
            configuration: testConfiguration(keepAlive: .seconds(7)), clock: clock
        ) { _, endpoints in
            try await withReadySocket(endpoints) { socket in
                await clock.sleepers(atLeast: 1)
                clock.advance(by: .seconds(6))
                try await socket.subscribe("s1", "vortex-app/a")
                clock.advance(by: .seconds(1))
                _ = try await socket.next()
                await clock.sleepers(atLeast: 1)
                clock.advance(by: .seconds(7))
                _ = try await socket.next()
            }
        }
        #expect(result.frames.map(\.type) == ["connection_ack", "subscribe_success", "ka", "ka"])
    }
}
