import Foundation
import NIOSSL
import SwitchboardCore
import SwitchboardNIO
import SwitchboardURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``WebSocketSessionTask`` whose socket is another engine's connection (the NIO engine's, in
/// these tests), so `URLSessionWebSocketConnector`'s logic runs here against real servers where
/// the system's WebSockets do not (swift-corelibs-foundation: "WebSockets not supported by
/// libcurl").
///
/// It reports as `URLSession` does on Apple platforms: the upgrade to the delegate
/// (`didOpenWithProtocol`, with whatever the server chose), a refused upgrade as
/// `URLError(.badServerResponse)` with the status in ``httpStatusCode``, TLS trust failures as
/// `URLError(.serverCertificateUntrusted)`, a refused connect as `.cannotConnectToHost`; the
/// peer's close frame in ``receivedClose`` before the receive fails; a message over
/// ``maximumMessageSize`` as `POSIXError(.EMSGSIZE)`.
package final class BridgedWebSocketTask: WebSocketSessionTask {
    /// Makes the engine's connector for a task, given the task's message size limit.
    package typealias MakeConnector = @Sendable (_ maximumMessageSize: Int) -> any WebSocketConnector

    private struct State {
        var maximumMessageSize = 1 << 20
        var connection: (any WebSocketConnection)?
        var runner: Task<Void, Never>?
        /// Received and not yet taken, oldest first; the end (a failure) last.
        var received: [Result<WebSocketMessage, any Error>] = []
        var receiver: (@Sendable (Result<WebSocketMessage, any Error>) -> Void)?
        var ended: (any Error)?
        var close: WebSocketClose?
        var status: Int?
        var cancelled = false
    }

    private let request: URLRequest
    private let events: WebSocketTaskEvents
    private let makeConnector: MakeConnector
    private let state = LockedValue(State())

    init(request: URLRequest, events: WebSocketTaskEvents, makeConnector: @escaping MakeConnector) {
        self.request = request
        self.events = events
        self.makeConnector = makeConnector
    }

    /// The task seam's factory: every task bridges to a connector from `makeConnector`.
    package static func factory(_ makeConnector: @escaping MakeConnector) -> WebSocketSessionTaskFactory {
        { request, events in BridgedWebSocketTask(request: request, events: events, makeConnector: makeConnector) }
    }

    /// A factory on `NIOWebSocketConnector` with `configuration`, its message and frame size
    /// limits taken from each task.
    package static func nio(_ configuration: NIOWebSocketConnector.Configuration = .init()) -> WebSocketSessionTaskFactory {
        factory { maximumMessageSize in
            var configuration = configuration
            configuration.maximumMessageSize = maximumMessageSize
            configuration.maximumFrameSize = maximumMessageSize
            return NIOWebSocketConnector(configuration: configuration)
        }
    }

    package var maximumMessageSize: Int {
        get { state.withLock { $0.maximumMessageSize } }
        set { state.withLock { $0.maximumMessageSize = newValue } }
    }

    package var receivedClose: WebSocketClose? { state.withLock { $0.close } }
    package var httpStatusCode: Int? { state.withLock { $0.status } }

    package func resume() {
        let request = webSocketRequest()
        let connector = makeConnector(maximumMessageSize)
        let runner = Task { [self] in
            let connection: any WebSocketConnection
            do {
                connection = try await connector.connect(request)
            } catch {
                end(with: openingError(error))
                return
            }
            let cancelledMeanwhile = state.withLock { state in
                state.connection = connection
                return state.cancelled
            }
            if cancelledMeanwhile {
                await connection.close(code: .goingAway, reason: "")
                end(with: URLError(.cancelled))
                return
            }
            events.didOpen(subprotocol: connection.subprotocol)
            do {
                for try await event in connection.inbound {
                    switch event {
                    case .message(let message):
                        deliver(.success(message))
                    case .closed(let close):
                        state.withLock { $0.close = close }
                        events.didClose(code: close.code, reason: Data(close.reason.utf8))
                        end(with: nil)
                        return
                    }
                }
                end(with: nil)
            } catch {
                end(with: Self.receiveError(error))
            }
        }
        state.withLock { $0.runner = runner }
    }

    package func sendMessage(_ message: WebSocketMessage, completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        guard let connection = state.withLock({ $0.ended == nil ? $0.connection : nil }) else {
            completionHandler(POSIXError(.ENOTCONN))
            return
        }
        Task {
            do {
                try await connection.send(message)
                completionHandler(nil)
            } catch {
                completionHandler(error)
            }
        }
    }

    package func receiveMessage(completionHandler: @escaping @Sendable (Result<WebSocketMessage, any Error>) -> Void) {
        let ready: Result<WebSocketMessage, any Error>? = state.withLock { state in
            if !state.received.isEmpty { return state.received.removeFirst() }
            if let ended = state.ended { return .failure(ended) }
            state.receiver = completionHandler
            return nil
        }
        if let ready { completionHandler(ready) }
    }

    package func sendPing(pongReceiveHandler: @escaping @Sendable ((any Error)?) -> Void) {
        guard let connection = state.withLock({ $0.ended == nil ? $0.connection : nil }) else {
            pongReceiveHandler(POSIXError(.ENOTCONN))
            return
        }
        Task {
            do {
                _ = try await connection.sendPing(Data())
                pongReceiveHandler(nil)
            } catch {
                pongReceiveHandler(error)
            }
        }
    }

    package func cancel(closeCode: WebSocketCloseCode, reason: Data?) {
        finish(closeCode: closeCode, reason: reason.map { String(decoding: $0, as: UTF8.self) } ?? "")
    }

    package func cancel() {
        finish(closeCode: .goingAway, reason: "")
    }

    /// Closes the engine's connection (or stops the connect) and ends the task.
    private func finish(closeCode: WebSocketCloseCode, reason: String) {
        let (connection, runner, first) = state.withLock { state in
            defer { state.cancelled = true }
            return (state.connection, state.runner, !state.cancelled)
        }
        guard first else { return }
        guard let connection else {
            runner?.cancel()
            return
        }
        Task {
            await connection.close(code: closeCode, reason: reason)
            end(with: URLError(.cancelled))
        }
    }

    private func deliver(_ result: Result<WebSocketMessage, any Error>) {
        let receiver = state.withLock { state -> (@Sendable (Result<WebSocketMessage, any Error>) -> Void)? in
            guard let receiver = state.receiver else {
                state.received.append(result)
                return nil
            }
            state.receiver = nil
            return receiver
        }
        receiver?(result)
    }

    /// Ends the task: the pending receive fails, later ones too, and the delegate hears the end.
    private func end(with error: (any Error)?) {
        let (receiver, first) = state.withLock { state -> ((@Sendable (Result<WebSocketMessage, any Error>) -> Void)?, Bool) in
            guard state.ended == nil else { return (nil, false) }
            state.ended = error ?? POSIXError(.ENOTCONN)
            defer { state.receiver = nil }
            return (state.received.isEmpty ? state.receiver : nil, true)
        }
        guard first else { return }
        receiver?(.failure(error ?? POSIXError(.ENOTCONN)))
        events.didComplete(error: error)
    }

    private func webSocketRequest() -> WebSocketRequest {
        var headers: [(name: String, value: String)] = []
        var subprotocols: [String] = []
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            if name.lowercased() == "sec-websocket-protocol" {
                subprotocols = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            } else {
                headers.append((name, value))
            }
        }
        return WebSocketRequest(url: request.url!, subprotocols: subprotocols, headers: headers)
    }

    /// What `URLSession` reports for a failed open.
    private func openingError(_ error: any Error) -> any Error {
        if error is CancellationError { return URLError(.cancelled) }
        if let handshake = error as? WebSocketHandshakeError {
            switch handshake.reason {
            case .unexpectedStatus(let status):
                state.withLock { $0.status = status }
                return URLError(.badServerResponse)
            case .subprotocolNotNegotiated(_, let chosen):
                // URLSession opens whatever the server chose; the connector checks it.
                state.withLock { $0.status = 101 }
                events.didOpen(subprotocol: chosen)
                return URLError(.cancelled)
            }
        }
        guard let failure = error as? SwitchboardError else { return URLError(.unknown) }
        if failure.message.hasPrefix("connect timeout") { return URLError(.timedOut) }
        if failure.isPermanent || Self.isTrustFailure(failure) { return URLError(.serverCertificateUntrusted) }
        if failure.code == .invalidConfiguration { return URLError(.unsupportedURL) }
        return URLError(.cannotConnectToHost)
    }

    private static func isTrustFailure(_ error: SwitchboardError) -> Bool {
        var current: (any Error)? = error
        while let error = current {
            if NIOFailureReason.isPermanent(error) { return true }
            if let ssl = error as? NIOSSLError, case .handshakeFailed = ssl { return true }
            current = (error as? SwitchboardError)?.cause
        }
        return false
    }

    /// What `URLSession` reports for a socket that failed without a close frame.
    private static func receiveError(_ error: any Error) -> any Error {
        if let failure = error as? SwitchboardError, (failure.cause as? NIOWebSocketProtocolError)?.closeCode.rawValue == 1009 {
            return POSIXError(.EMSGSIZE)
        }
        return URLError(.networkConnectionLost)
    }
}
