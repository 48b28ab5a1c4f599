import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing

@Suite("Fixture recorder", .timeLimit(.minutes(1)))
struct FixtureRecorderTests {
    @Test("clientHasRead waits until the client's reader has asked for the event after the last one recorded")
    func clientHasRead() async throws {
        let clock = ManualClock()
        let scripted = ScriptedWebSocketConnector { $0.first }
        let recorder = FixtureRecorder(wrapping: scripted, clock: clock)
        let connection = try await recorder.connect(WebSocketRequest(url: URL(string: "ws://127.0.0.1:1/graphql")!))
        let server = try #require(await scripted.nextAttempt()?.connection)
        var iterator = connection.inbound.makeAsyncIterator()
        server.serverSends(text: "one")
        while recorder.entries.isEmpty { await Task.yield() }

        let waited = LockedValue(false)
        let waiter = Task {
            await recorder.clientHasRead()
            waited.withLock { $0 = true }
        }
        for _ in 0..<200 { await Task.yield() }
        #expect(!waited.withLock { $0 }, "recorded but not read: the wait goes on")

        #expect(try await iterator.next() == .message(.text("one")))
        // Asking for the next event says the reader is done with "one".
        let reader = Task { [iterator] in
            var iterator = iterator
            return try await iterator.next()
        }
        await waiter.value
        #expect(waited.withLock { $0 })

        server.serverCloses(code: .normalClosure, reason: "")
        #expect(try await reader.value == .closed(WebSocketClose(code: .normalClosure, reason: "")))
    }
}
