import Logging
import NIOCore

/// What one connection's single writer does next.
enum Outgoing: Sendable {
    /// Write a text frame.
    case text(String)
    /// Send a close frame with this code and reason, then stop.
    case close(code: UInt16, reason: String)
    /// Close the TCP connection without a WebSocket close frame, then stop.
    case abort
    /// Write nothing (keep-alives and data queue up) for this long.
    case stall(Duration)
    /// Write one text frame that is not JSON.
    case garbage
}

/// The queue in front of one connection's writer: protocol replies, bus deliveries,
/// keep-alives and fault commands all go through it, so frames are written by one task in order.
///
/// A stall also holds the connection's pongs (``PongHold``) from the moment it is queued until
/// the writer has waited it out, so that a client's ping during a stall goes unanswered, as on
/// a dead network path.
struct ConnectionOutbox: Sendable {
    let stream: AsyncStream<Outgoing>
    let continuation: AsyncStream<Outgoing>.Continuation
    /// The connection's pong hold; nil where it could not be installed (pongs then go out
    /// during a stall).
    let pongs: PongHold?

    init(pongs: PongHold? = nil) {
        (stream, continuation) = AsyncStream.makeStream(of: Outgoing.self)
        self.pongs = pongs
    }

    /// An outbox for `channel`, with its pong hold installed.
    static func make(for channel: any Channel, logger: Logger) async -> ConnectionOutbox {
        do {
            return ConnectionOutbox(pongs: try await PongHold.install(on: channel))
        } catch {
            logger.debug("no pong hold: a stall will not hold pongs", metadata: ["emulator.error": "\(error)"])
            return ConnectionOutbox()
        }
    }

    func send(_ text: String) { continuation.yield(.text(text)) }
    func close(code: UInt16, reason: String) { continuation.yield(.close(code: code, reason: reason)) }
    func send(_ item: Outgoing) {
        if case .stall = item, case .enqueued = continuation.yield(item) {
            pongs?.begin()
            return
        }
        continuation.yield(item)
    }
    func finish() { continuation.finish() }
}
