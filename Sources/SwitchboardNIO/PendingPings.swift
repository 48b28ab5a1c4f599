import NIOCore

/// Pings waiting for their pongs, matched by payload, oldest first.
struct PendingPings {
    private struct Waiter {
        var id: UInt64
        var payload: ByteBuffer
        var sentAt: Duration
        var continuation: CheckedContinuation<Duration, any Error>
    }

    private var waiting: [Waiter] = []
    /// Pings cancelled before they were sent.
    private var cancelledEarly: Set<UInt64> = []

    /// Whether the ping was cancelled before it reached the event loop (forgets it).
    mutating func wasCancelled(_ id: UInt64) -> Bool {
        cancelledEarly.remove(id) != nil
    }

    /// Registers a sent ping.
    mutating func add(id: UInt64, payload: ByteBuffer, sentAt: Duration, continuation: CheckedContinuation<Duration, any Error>) {
        waiting.append(Waiter(id: id, payload: payload, sentAt: sentAt, continuation: continuation))
    }

    /// Stops waiting for a ping; resumes it with `CancellationError`.
    mutating func cancel(_ id: UInt64) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else {
            cancelledEarly.insert(id)
            return
        }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    /// A ping could not be sent: resumes it with `error` (if it still waits).
    mutating func fail(_ id: UInt64, _ error: any Error) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: error)
    }

    /// A pong arrived: resumes the oldest ping with the same payload with its round trip.
    mutating func received(pong payload: ByteBuffer, at now: Duration) {
        guard let index = waiting.firstIndex(where: { $0.payload == payload }) else { return }
        let waiter = waiting.remove(at: index)
        waiter.continuation.resume(returning: now - waiter.sentAt)
    }

    /// The connection ended: fails every waiting ping.
    mutating func failAll(_ error: any Error) {
        for waiter in waiting { waiter.continuation.resume(throwing: error) }
        waiting.removeAll()
    }
}
