import Logging
import NIOCore
import NIOWebSocket
import SwitchboardCore

extension ConnectionDriver {
    /// The driver loop's state: the protocol machine, the pings waiting for pongs, and the
    /// socket's writer (only this loop writes, so frames never interleave).
    struct Loop {
        let settings: Settings
        let events: WebSocketInbound.Continuation
        let channel: UpgradedChannel
        let stopwatch: Stopwatch
        private var machine: WebSocketStateMachine
        private var pings = PendingPings()
        /// The budget charges of a fragmented message's frames read so far (set aside: they do
        /// not stop reading, the message size limit bounds them).
        private var assembling = InboundCharge.none
        /// The charge of the frame being handled, for the message it completes; released if it
        /// completes none.
        private var pendingCharge = InboundCharge.none

        init(
            settings: Settings, events: WebSocketInbound.Continuation,
            channel: UpgradedChannel, stopwatch: Stopwatch
        ) {
            self.settings = settings
            self.events = events
            self.channel = channel
            self.stopwatch = stopwatch
            machine = WebSocketStateMachine(maximumMessageSize: settings.maximumMessageSize)
        }

        /// Handles inputs until the connection is over.
        /// - Parameters:
        ///   - iterator: The connection's inputs.
        ///   - startCloseTimer: Starts the close deadline as a child task.
        mutating func run(_ iterator: inout HandOff<DriverInput>.AsyncIterator, startCloseTimer: () -> Void) async {
            while let input = await iterator.next() {
                let action = await handle(input, startCloseTimer: startCloseTimer)
                let over = await perform(action)
                pendingCharge.release()
                pendingCharge = .none
                if over {
                    if assembling.bytes > 0 { assembling.budget?.takeBack(assembling.bytes) }
                    assembling.release()
                    assembling = .none
                    return
                }
            }
        }

        private mutating func handle(_ input: DriverInput, startCloseTimer: () -> Void) async -> WebSocketStateMachine.Action {
            switch input {
            case .frame(let frame, let charge):
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
                return machine.received(frame)
            case .readEnded(let error):
                if let error = error as? NIOWebSocketError {
                    let (code, message) = Self.decodingFailure(error, maximumFrameSize: settings.maximumFrameSize)
                    return machine.decodingFailed(code: code, message: message)
                }
                return machine.readEnded(cause: error)
            case .send(let message, let continuation):
                guard machine.isOpen else {
                    continuation.resume(throwing: ConnectionDriver.closedError)
                    return .none
                }
                do {
                    try await write(Self.frame(for: message))
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: SwitchboardError(code: .network, message: "sending failed", cause: error))
                }
                return .none
            case .ping(let id, let payload, let continuation):
                guard machine.isOpen else {
                    continuation.resume(throwing: ConnectionDriver.closedError)
                    return .none
                }
                guard !pings.wasCancelled(id) else {
                    continuation.resume(throwing: CancellationError())
                    return .none
                }
                let sentAt = stopwatch.elapsed()
                do {
                    try await write(OutboundFrame(opcode: .ping, payload: payload))
                    pings.add(id: id, payload: payload, sentAt: sentAt, continuation: continuation)
                } catch {
                    continuation.resume(throwing: SwitchboardError(code: .network, message: "sending a ping failed", cause: error))
                }
                return .none
            case .cancelPing(let id):
                pings.cancel(id)
                return .none
            case .close(let close):
                guard let frame = machine.closeRequested(close) else { return .none }
                settings.logger.debug("closing", metadata: ["switchboard.websocket.close.code": "\(close.code)"])
                // If the socket is gone the write fails and `readEnded` follows; nothing to do here.
                try? await write(frame)
                startCloseTimer()
                return .none
            case .closeTimerFired:
                settings.logger.debug("the server did not answer the close frame in time")
                return machine.closeTimerFired()
            case .released:
                settings.logger.debug("connection released without close; closing with 1001")
                return machine.released()
            }
        }

        /// Carries out an action; `true` once the connection is over.
        private mutating func perform(_ action: WebSocketStateMachine.Action) async -> Bool {
            switch action {
            case .none:
                return false
            case .deliver(let message):
                events.yield(.message(message), charge: pendingCharge)
                pendingCharge = .none
                return false
            case .send(let frame):
                try? await write(frame)
                return false
            case .pongReceived(let payload):
                pings.received(pong: payload, at: stopwatch.elapsed())
                return false
            case .finish(let ending, let reply):
                switch ending {
                case .closed(let close):
                    settings.logger.debug("closed", metadata: ["switchboard.websocket.close.code": "\(close.code)"])
                    events.yield(.closed(close))
                    events.finish()
                case .failed(let error):
                    settings.logger.debug("connection failed", metadata: ["switchboard.error": "\(error)"])
                    events.finish(throwing: error)
                }
                // The server may be gone already (it may close TCP right after its close frame).
                if let reply { try? await write(reply) }
                pings.failAll(ConnectionDriver.closedError)
                return true
            }
        }

        /// Writes one frame, masked with a fresh random key (RFC 6455 §5.3).
        private func write(_ frame: OutboundFrame) async throws {
            settings.logger.trace("frame out", metadata: [
                "switchboard.websocket.opcode": "\(frame.opcode)", "switchboard.websocket.bytes": "\(frame.payload.readableBytes)",
            ])
            try await channel.write(WebSocketFrame(fin: true, opcode: frame.opcode, maskKey: .random(), data: frame.payload))
        }

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
}
