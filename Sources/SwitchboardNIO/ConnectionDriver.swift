import Logging
import NIOCore
import NIOWebSocket
import SwitchboardCore

/// What the driver loop of one connection reacts to, in the order it happened.
enum DriverInput: Sendable {
    /// A frame arrived, with what it was charged to the connection's ``InboundBudget``.
    case frame(WebSocketFrame, InboundCharge)
    /// The socket's inbound side ended, with the error if it failed.
    case readEnded((any Error)?)
    /// The user sends a message; resumed once written.
    case send(WebSocketMessage, CheckedContinuation<Void, any Error>)
    /// The user sends a ping; resumed with the round trip when the pong arrives.
    case ping(id: UInt64, payload: ByteBuffer, CheckedContinuation<Duration, any Error>)
    /// The user stopped waiting for a ping.
    case cancelPing(id: UInt64)
    /// The user asked to close.
    case close(WebSocketClose)
    /// The close deadline passed.
    case closeTimerFired
    /// The last reference to the connection went away.
    case released
}

/// Drives one upgraded channel: a single loop consumes ``DriverInput``s, feeds them to the
/// ``WebSocketStateMachine`` and carries out its actions. The channel's last handler
/// (``FrameHandOff``) yields the frames into the same input queue on the event loop, so frames
/// are handled (and delivered) in arrival order, with no task reading in between.
struct ConnectionDriver: Sendable {
    /// What the driver needs from the configuration.
    struct Settings: Sendable {
        var maximumMessageSize: Int
        var maximumFrameSize: Int
        var closeTimeout: Duration
        var clock: any Clock<Duration>
        var logger: Logger
    }

    static let closedError = SwitchboardError(code: .network, message: "the WebSocket is closed")

    let channel: UpgradedChannel
    let events: WebSocketInbound.Continuation
    let settings: Settings

    private var inputContinuation: HandOff<DriverInput>.Continuation { channel.inputContinuation }

    /// Runs until the connection is over and the channel is closed; then fails whatever the
    /// user still queued.
    func run() async {
        var iterator = channel.inputs.makeAsyncIterator()
        let stopwatch = Stopwatch(settings.clock)
        // The upgrade handler holds back the reads asked for while it upgraded; reading resumes
        // here (autoRead keeps it going from now on).
        channel.channel.read()
        await withTaskGroup(of: Void.self) { group in
            var loop = Loop(settings: settings, events: events, channel: channel, stopwatch: stopwatch)
            let closeTimer = closeTimer()
            await loop.run(&iterator, startCloseTimer: { group.addTask(operation: closeTimer) })
            group.cancelAll()
        }
        do {
            try await channel.channel.close()
        } catch ChannelError.alreadyClosed {
            // Closed by the peer, or by a failed write.
        } catch {
            settings.logger.debug("closing the channel failed", metadata: ["switchboard.error": "\(error)"])
        }
        settings.logger.debug("channel closed")
        // Normally finished by the loop already; this only covers a loop that ended early.
        events.finish(throwing: SwitchboardError(code: .network, message: "the connection ended unexpectedly"))
        inputContinuation.finish()
        while let input = await iterator.next() {
            switch input {
            case .frame(_, let charge): charge.release()
            case .send(_, let continuation): continuation.resume(throwing: Self.closedError)
            case .ping(_, _, let continuation): continuation.resume(throwing: Self.closedError)
            case .readEnded, .cancelPing, .close, .closeTimerFired, .released: break
            }
        }
    }

    /// The close deadline: sleeps on the injected clock, then reports.
    private func closeTimer() -> @Sendable () async -> Void {
        { [settings, inputContinuation] in
            do {
                try await settings.clock.sleep(for: settings.closeTimeout)
                inputContinuation.yield(.closeTimerFired)
            } catch {
                // Cancelled: the connection ended first.
            }
        }
    }
}
