import Foundation
import SwitchboardCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSessionWebSocketTask: WebSocketSessionTask {
    package func sendMessage(_ message: WebSocketMessage, completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        switch message {
        case .text(let text): send(.string(text), completionHandler: completionHandler)
        case .binary(let data): send(.data(data), completionHandler: completionHandler)
        }
    }

    package func receiveMessage(completionHandler: @escaping @Sendable (Result<WebSocketMessage, any Error>) -> Void) {
        receive { result in
            completionHandler(result.flatMap { message in
                switch message {
                case .string(let text): .success(.text(text))
                case .data(let data): .success(.binary(data))
                @unknown default: .failure(UnknownMessageKind())
                }
            })
        }
    }

    package func cancel(closeCode: WebSocketCloseCode, reason: Data?) {
        // On Apple platforms the code is an imported C enumeration that carries any number; on
        // swift-corelibs-foundation only the codes RFC 6455 names exist, so an application code
        // (4000–4999) goes out as 1000 there.
        cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: Int(closeCode.rawValue)) ?? .normalClosure, reason: reason)
    }

    package var receivedClose: WebSocketClose? {
        guard closeCode != .invalid else { return nil }
        return WebSocketClose(
            code: WebSocketCloseCode(UInt16(clamping: closeCode.rawValue)),
            reason: closeReason.map { String(decoding: $0, as: UTF8.self) } ?? "")
    }

    package var httpStatusCode: Int? { (response as? HTTPURLResponse)?.statusCode }

    /// A message kind a newer Foundation added.
    struct UnknownMessageKind: Error, CustomStringConvertible {
        var description: String { "URLSession delivered a WebSocket message of a kind this connector does not know" }
    }
}

/// The system's tasks: one `URLSession` per connection, whose delegate reports to the
/// connection's ``WebSocketTaskEvents`` and invalidates the session once its task ended (a
/// session keeps its delegate until then).
enum SystemWebSocketTasks {
    static let factory: WebSocketSessionTaskFactory = { request, events in
        // Ephemeral: nothing of the connection (cookies, credentials, cache) is written to disk.
        // The system's proxy and VPN settings and cellular access apply as to any session.
        let session = URLSession(configuration: .ephemeral, delegate: Delegate(events: events), delegateQueue: nil)
        return session.webSocketTask(with: request)
    }

    final class Delegate: NSObject, URLSessionWebSocketDelegate, Sendable {
        let events: WebSocketTaskEvents

        init(events: WebSocketTaskEvents) { self.events = events }

        func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
            events.didOpen(subprotocol: `protocol`)
        }

        func urlSession(
            _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
            didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?
        ) {
            events.didClose(code: WebSocketCloseCode(UInt16(clamping: closeCode.rawValue)), reason: reason)
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            events.didComplete(error: error)
            session.finishTasksAndInvalidate()
        }
    }
}
