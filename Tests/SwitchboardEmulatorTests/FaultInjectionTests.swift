import Foundation
import LegacyServerHarness
import HummingbirdWSClient
import NIOWebSocket
import SwitchboardTesting
import Testing
@testable import SwitchboardEmulator

@Suite("Fault injection", .timeLimit(.minutes(1)))
struct FaultInjectionTests {
    @Test func dropAllClosesWithTheGivenCode() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.subscribe("s1", "vortex-app/a")
                #expect(emulator.dropAllConnections(code: 4000, reason: "bye") == 1)
                while try await socket.next() != nil {}
            }
        }
        #expect(result.close?.closeCode == .init(codeNumber: 4000))
        #expect(result.close?.reason == "bye")
    }

    @Test func dropOverHTTPControlEndpoint() async throws {
        let (result, count) = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            let box = LockedValueBox<Int?>(nil)
            let result = try await withReadySocket(endpoints) { socket in
                let data = try await LoopbackHTTP.request(
                    URL(string: endpoints.controlURL + "/drop?code=4001&reason=ctl")!, method: "POST").data
                box.set((JSONText.decodeObject(data)?["connections"] as? Int))
                while try await socket.next() != nil {}
            }
            return (result, box.get())
        }
        #expect(count == 1)
        #expect(result.close?.closeCode == .init(codeNumber: 4001))
    }

    @Test func abortResetsTheConnectionWithoutCloseFrame() async throws {
        let outcome = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            do {
                let result = try await withReadySocket(endpoints) { socket in
                    #expect(emulator.abortAllConnections() == 1)
                    while try await socket.next() != nil {}
                }
                return result.close == nil ? "no close frame" : "closed cleanly"
            } catch {
                return "no close frame"
            }
        }
        #expect(outcome == "no close frame")
    }

    @Test func stallHoldsOutputUntilTheClockPasses() async throws {
        let clock = ManualClock()
        let result = try await withRunningEmulator(configuration: testConfiguration(), clock: clock) { emulator, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.subscribe("s1", "vortex-app/a")
                await clock.sleepers(atLeast: 1)  // the keep-alive loop
                #expect(emulator.stallConnections(for: .seconds(10)) == 1)
                await clock.sleepers(atLeast: 2)  // the writer, stalled
                try emulator.publish(channel: "vortex-app/a", event: "1")
                clock.advance(by: .seconds(10))
                _ = try await socket.next(ofType: "data")
            }
        }
        #expect(result.first("data")?.object["event"] as? String == "1")
    }

    @Test func latencyDelaysEachFrameOnTheClock() async throws {
        let clock = ManualClock()
        let result = try await withRunningEmulator(configuration: testConfiguration(), clock: clock) { emulator, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.subscribe("s1", "vortex-app/a")
                await clock.sleepers(atLeast: 1)
                emulator.setFrameLatency(.seconds(2))
                try emulator.publish(channel: "vortex-app/a", event: "2")
                await clock.sleepers(atLeast: 2)  // the writer, delaying the frame
                clock.advance(by: .seconds(2))
                _ = try await socket.next(ofType: "data")
            }
        }
        #expect(result.first("data")?.object["event"] as? String == "2")
    }

    @Test func garbageFrameIsNotJSON() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withReadySocket(endpoints) { socket in
                #expect(emulator.sendGarbageFrame() == 1)
                _ = try await socket.next()
            }
        }
        #expect(result.frames.last?.text == ConnectionWriter.garbageFrame)
        #expect(JSONText.decodeObject(result.frames.last?.text ?? "{}") == nil)
    }

    @Test func rejectAuthenticationCountsThenUntilReset() async throws {
        let types = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            var types: [String?] = []
            func attempt() async throws {
                let result = try await withAppSyncSocket(endpoints, auth: apiKeyAuth) { socket in
                    _ = try await socket.initialize()
                }
                types.append(result.frames.first?.type)
            }
            emulator.rejectAuthentication(nextConnections: 1)
            try await attempt()
            try await attempt()
            emulator.rejectAuthentication(nextConnections: nil)
            try await attempt()
            try await attempt()
            emulator.resetFaults()
            try await attempt()
            return types
        }
        #expect(types == ["connection_error", "connection_ack", "connection_error", "connection_error", "connection_ack"])
    }
}
