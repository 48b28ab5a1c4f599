import Testing
@testable import SwitchboardEmulator

@Suite("Emulator shutdown", .timeLimit(.minutes(1)))
struct ShutdownTests {
    @Test func cancellingRunEndsOpenConnections() async throws {
        let emulator = SwitchboardEmulator(configuration: testConfiguration())
        let (started, continuation) = AsyncStream.makeStream(of: SwitchboardEmulator.Endpoints.self)
        let (stop, stopper) = AsyncStream.makeStream(of: Void.self)
        let result = try await withThrowingTaskGroup(of: SocketResult?.self) { group in
            group.addTask {
                // Serve until `stop` finishes, then cancel the server alone.
                await withTaskGroup(of: Void.self) { server in
                    server.addTask { try? await emulator.run { continuation.yield($0) } }
                    for await _ in stop {}
                    server.cancelAll()
                }
                return nil
            }
            var iterator = started.makeAsyncIterator()
            let endpoints = try #require(await iterator.next())
            let result = try await withReadySocket(endpoints) { socket in
                try await socket.subscribe("s1", "vortex-app/a")
                stopper.finish()
                while try await socket.next() != nil {}
            }
            try await group.waitForAll()
            return result
        }
        #expect(result.frames.map(\.type) == ["connection_ack", "subscribe_success"])
        #expect(emulator.connectionCount == 0)
        #expect(emulator.subscriptionCount == 0)
    }
}
