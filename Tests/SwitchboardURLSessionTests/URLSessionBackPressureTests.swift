import Foundation
import SwitchboardCore
import SwitchboardTesting
import Testing
@testable import SwitchboardURLSession

/// Read back-pressure on the URLSession engine: at its budget the connection asks its task for no
/// next message until the consumer has taken half; closing meanwhile still ends `inbound`.
@Suite("URLSessionWebSocketConnection read back-pressure", .timeLimit(.minutes(1)))
struct URLSessionBackPressureTests {
    let made = LockedValue<[ScriptedSessionTask]>([])

    /// A connection whose budget is `limit` bytes, open on a scripted task.
    func open(limit: Int) async throws -> (URLSessionWebSocketConnection, ScriptedSessionTask) {
        var configuration = URLSessionWebSocketConnector.Configuration(clock: ManualClock())
        configuration.maximumBufferedInboundBytes = limit
        let connector = URLSessionWebSocketConnector(configuration: configuration, makeTask: ScriptedSessionTask.factory(made))
        async let connection = connector.open(WebSocketRequest(url: URL(string: "ws://127.0.0.1:9/graphql")!))
        await eventually { made.withLock { !$0.isEmpty } }
        let task = made.withLock { $0[0] }
        task.events.didOpen(subprotocol: nil)
        return (try await connection, task)
    }

    @Test("at the budget no receive is pending; taking half of it asks for the next message")
    func receivesStopAndResume() async throws {
        // Each 100-byte message counts 100 + 320 bytes: the fifth reaches 2,100 ≥ 2,000.
        let (connection, task) = try await open(limit: 2_000)
        let message = String(repeating: "m", count: 100)
        for _ in 0..<5 {
            await eventually { task.pendingReceives == 1 }
            task.answerReceive(.success(.text(message)))
        }
        #expect(task.pendingReceives == 0, "the budget is spent: nothing more is asked of the task")
        var inbound = connection.inbound.makeAsyncIterator()
        for taken in 1...3 {
            _ = try await inbound.next()
            // 1,260 left after two: not yet half of 2,000; 840 after three.
            #expect(task.pendingReceives == (taken == 3 ? 1 : 0), "after \(taken) taken")
        }
        // Closing waits for the server's close on the manual clock: answered here.
        let closing = Task { await connection.close(code: .normalClosure, reason: "") }
        task.answerReceive(.failure(URLError(.cancelled)))
        closing.cancel()
    }

    @Test("closing while receives are held back still ends inbound")
    func closeWhileHeld() async throws {
        let (connection, task) = try await open(limit: 500)
        await eventually { task.pendingReceives == 1 }
        task.answerReceive(.success(.text(String(repeating: "m", count: 300))))
        #expect(task.pendingReceives == 0)
        let closing = Task { await connection.close(code: .normalClosure, reason: "") }
        // The held-back receive goes out again and fails on the cancelled task.
        await eventually { task.pendingReceives == 1 }
        task.answerReceive(.failure(URLError(.cancelled)))
        var events: [WebSocketInboundEvent] = []
        for try await event in connection.inbound { events.append(event) }
        #expect(events.count == 1, "the message, then the end")
        closing.cancel()
    }
}
