import Foundation
import SwitchboardCore
import SwitchboardURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``WebSocketSessionTask`` the test plays the system for: it records what the connector asks
/// and reports only what the test tells it to.
final class ScriptedSessionTask: WebSocketSessionTask {
    struct Record {
        var maximumMessageSize = 0
        var resumed = false
        var cancelledWith: WebSocketClose?
        var aborted = false
        var pings: [@Sendable ((any Error)?) -> Void] = []
        var receivers: [@Sendable (Result<WebSocketMessage, any Error>) -> Void] = []
        var close: WebSocketClose?
        var status: Int?
    }

    let request: URLRequest
    let events: WebSocketTaskEvents
    let record = LockedValue(Record())

    init(request: URLRequest, events: WebSocketTaskEvents) {
        self.request = request
        self.events = events
    }

    /// A factory whose every task goes to `made`.
    static func factory(_ made: LockedValue<[ScriptedSessionTask]>) -> WebSocketSessionTaskFactory {
        { request, events in
            let task = ScriptedSessionTask(request: request, events: events)
            made.withLock { $0.append(task) }
            return task
        }
    }

    var maximumMessageSize: Int {
        get { record.withLock { $0.maximumMessageSize } }
        set { record.withLock { $0.maximumMessageSize = newValue } }
    }

    func resume() { record.withLock { $0.resumed = true } }

    func sendMessage(_ message: WebSocketMessage, completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        completionHandler(nil)
    }

    func receiveMessage(completionHandler: @escaping @Sendable (Result<WebSocketMessage, any Error>) -> Void) {
        record.withLock { $0.receivers.append(completionHandler) }
    }

    func sendPing(pongReceiveHandler: @escaping @Sendable ((any Error)?) -> Void) {
        record.withLock { $0.pings.append(pongReceiveHandler) }
    }

    func cancel(closeCode: WebSocketCloseCode, reason: Data?) {
        record.withLock { $0.cancelledWith = WebSocketClose(code: closeCode, reason: String(decoding: reason ?? Data(), as: UTF8.self)) }
    }

    func cancel() {
        let first = record.withLock { record in
            defer { record.aborted = true }
            return !record.aborted
        }
        if first { events.didComplete(error: URLError(.cancelled)) }
    }

    var receivedClose: WebSocketClose? { record.withLock { $0.close } }
    var httpStatusCode: Int? { record.withLock { $0.status } }

    /// Hands the oldest pending receive its result.
    func answerReceive(_ result: Result<WebSocketMessage, any Error>) {
        let receiver = record.withLock { $0.receivers.isEmpty ? nil : $0.receivers.removeFirst() }
        receiver?(result)
    }

    var pendingReceives: Int { record.withLock { $0.receivers.count } }
    var pendingPings: Int { record.withLock { $0.pings.count } }
}

/// Waits, polling every millisecond, until `condition` holds: for a state another thread reaches without an event
/// to await. The test's time limit bounds it.
func eventually(_ condition: () -> Bool) async {
    while !condition() { try? await Task.sleep(for: .milliseconds(1)) }
}
