import Logging
import NIOCore
import NIOWebSocket
import SwitchboardCore

/// What the connection's inputs (frames, the end of the socket, the users' commands, the close
/// deadline) do: each is fed to the state machine on the event loop, and its action carried out.
extension WebSocketConnectionHandler {
    // MARK: From the socket

    /// A frame arrived, with what it was charged to the budget.
    func handle(_ frame: WebSocketFrame, charge: InboundCharge) {
        guard !isOver else {
            charge.release()
            return
        }
        settings.logger.trace("frame in", metadata: [
            "switchboard.websocket.opcode": "\(frame.opcode)", "switchboard.websocket.bytes": "\(frame.length)",
            "switchboard.websocket.fin": "\(frame.fin)",
        ])
        switch frame.opcode {
        case .text, .binary, .continuation:
            if frame.fin {
                // The last (or only) frame of a message: the message carries every charge.
                if assembling.bytes > 0 { assembling.budget?.takeBack(assembling.bytes) }
                pendingCharge = assembling.adding(charge)
                assembling = .none
            } else {
                // A fragment: held until its message is whole, outside the count.
                charge.budget?.setAside(charge.bytes)
                assembling = assembling.adding(charge)
            }
        default:
            // Control frames end here.
            pendingCharge = charge
        }
        carryOut(machine.received(frame))
    }

    /// The socket's inbound side ended, with the error if it failed.
    func handleEnd(_ error: (any Error)?) {
        guard !isOver else { return }
        if let error = error as? NIOWebSocketError {
            let (code, message) = Self.decodingFailure(error, maximumFrameSize: settings.maximumFrameSize)
            carryOut(machine.decodingFailed(code: code, message: message))
        } else {
            carryOut(machine.readEnded(cause: error))
        }
    }

    // MARK: From the users

    /// Sends a message; `continuation` is resumed once it is written.
    func send(_ message: WebSocketMessage, continuation: CheckedContinuation<Void, any Error>) {
        guard !isOver, machine.isOpen else {
            continuation.resume(throwing: Self.closedError)
            return
        }
        write(Self.frame(for: message)).whenComplete { result in
            switch result {
            case .success: continuation.resume()
            case .failure(let error):
                continuation.resume(throwing: SwitchboardError(code: .network, message: "sending failed", cause: error))
            }
        }
    }

    /// Sends a ping; `continuation` is resumed with the round trip when the pong arrives.
    func ping(id: UInt64, payload: ByteBuffer, continuation: CheckedContinuation<Duration, any Error>) {
        guard !isOver, machine.isOpen else {
            continuation.resume(throwing: Self.closedError)
            return
        }
        guard !pings.wasCancelled(id) else {
            continuation.resume(throwing: CancellationError())
            return
        }
        // Waiting before the write completes: the pong can only follow the write, but nothing
        // orders the write's completion before the next read.
        pings.add(id: id, payload: payload, sentAt: elapsed, continuation: continuation)
        write(OutboundFrame(opcode: .ping, payload: payload)).assumeIsolated().whenFailure { error in
            self.pings.fail(id, SwitchboardError(code: .network, message: "sending a ping failed", cause: error))
        }
    }

    /// The user stopped waiting for a ping.
    func cancelPing(id: UInt64) {
        pings.cancel(id)
    }

    /// The user asked to close: sends the close frame and starts the close deadline.
    func close(_ close: WebSocketClose) {
        guard !isOver, let frame = machine.closeRequested(close) else { return }
        settings.logger.debug("closing", metadata: ["switchboard.websocket.close.code": "\(close.code)"])
        // If the socket is gone the write fails and the end of the socket follows; nothing to do.
        _ = write(frame)
        startCloseTimer()
    }

    /// The last reference to the connection went away.
    func released() {
        settings.logger.debug("connection released without close; closing with 1001")
        guard !isOver else { return }
        carryOut(machine.released())
    }

    // MARK: From the close deadline

    /// The close deadline passed.
    func closeTimerFired() {
        guard !isOver else { return }
        settings.logger.debug("the server did not answer the close frame in time")
        carryOut(machine.closeTimerFired())
    }

    // MARK: Actions

    /// Carries out an action, then gives back the charge of the frame handled if no message took
    /// it; once the connection is over, also the charges of a message left unfinished.
    private func carryOut(_ action: WebSocketStateMachine.Action) {
        perform(action)
        pendingCharge.release()
        pendingCharge = .none
        if isOver {
            if assembling.bytes > 0 { assembling.budget?.takeBack(assembling.bytes) }
            assembling.release()
            assembling = .none
        }
    }

    private func perform(_ action: WebSocketStateMachine.Action) {
        switch action {
        case .none:
            break
        case .deliver(let message):
            events.yield(.message(message), charge: pendingCharge)
            pendingCharge = .none
        case .send(let frame):
            _ = write(frame)
        case .pongReceived(let payload):
            pings.received(pong: payload, at: elapsed)
        case .finish(let ending, let reply):
            isOver = true
            closeTimer?.cancel()
            closeTimer = nil
            switch ending {
            case .closed(let close):
                settings.logger.debug("closed", metadata: ["switchboard.websocket.close.code": "\(close.code)"])
                events.yield(.closed(close))
                events.finish()
            case .failed(let error):
                settings.logger.debug("connection failed", metadata: ["switchboard.error": "\(error)"])
                events.finish(throwing: error)
            }
            pings.failAll(Self.closedError)
            closeChannel(after: reply.map { write($0) })
        }
    }

    // MARK: Helpers

    private static func frame(for message: WebSocketMessage) -> OutboundFrame {
        switch message {
        case .text(let text): OutboundFrame(opcode: .text, payload: ByteBuffer(string: text))
        case .binary(let data): OutboundFrame(opcode: .binary, payload: ByteBuffer(bytes: data))
        }
    }

    /// The close code and message for a frame the decoder rejected.
    static func decodingFailure(_ error: NIOWebSocketError, maximumFrameSize: Int) -> (WebSocketCloseCode, String) {
        if case .invalidFrameLength = error {
            return (.messageTooBig, "a frame exceeds the maximum frame size of \(maximumFrameSize) bytes")
        }
        if case .fragmentedControlFrame = error {
            return (.protocolError, "the server fragmented a control frame")
        }
        return (.protocolError, "the server sent a control frame over 125 bytes")
    }
}
