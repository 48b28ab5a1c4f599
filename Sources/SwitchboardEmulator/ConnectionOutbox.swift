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
struct ConnectionOutbox: Sendable {
    let stream: AsyncStream<Outgoing>
    let continuation: AsyncStream<Outgoing>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Outgoing.self)
    }

    func send(_ text: String) { continuation.yield(.text(text)) }
    func close(code: UInt16, reason: String) { continuation.yield(.close(code: code, reason: reason)) }
    func send(_ item: Outgoing) { continuation.yield(item) }
    func finish() { continuation.finish() }
}
