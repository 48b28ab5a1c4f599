import Foundation

/// How much one connection's inbound side may hold between its socket and the notifier that
/// consumes it, in bytes: the read back-pressure of the event path.
///
/// The socket engine ``charge(_:)``s every frame it reads (its payload plus
/// ``perMessageOverhead`` for the bookkeeping each element carries on the way: queue slots,
/// enums, the envelope) and stops reading while the charged bytes are at or over ``limit``. Each
/// frame's charge travels with it as an ``InboundCharge`` (frame → message → transport input →
/// envelope) and is released by whoever is done with it: the engine for control frames, the
/// transport for frames that carry no event, the notifier once it handed the event to its
/// consumers' buffers. Reading resumes when the charged bytes fall to half the limit, so TCP
/// slows the server down instead of memory growing with the backlog.
///
/// The fragments of a message still being reassembled are set aside (``setAside(_:)``): a message
/// cannot be delivered before its last fragment is read, so counting them could stop reading for
/// good. The engine's own message size limit bounds them instead.
@usableFromInline package final class InboundBudget: @unchecked Sendable {
    /// What each frame or message is charged beyond its payload: the queue slots, enums and
    /// envelope fields it occupies on the way (measured at about 300 bytes per event).
    package static let perMessageOverhead = 320

    /// The charged bytes at or over which reading stops.
    package let limit: Int
    /// The charged bytes at or under which reading resumes.
    package let resumeAt: Int

    private let lock = NSLock()
    private var charged = 0
    private var setAsideBytes = 0
    private var waker: (@Sendable () -> Void)?
    /// Reading resumed since ``takeHeldBack()`` was last asked.
    private var resumed = false
    /// The most bytes ever charged at once (for tests and metrics).
    private var peak = 0

    /// - Parameter limit: The bytes at or over which reading stops (at least 1).
    package init(limit: Int) {
        self.limit = max(1, limit)
        self.resumeAt = self.limit / 2
    }

    /// Charges `bytes` read from the socket; returns the charge to pass along with them.
    package func charge(_ bytes: Int) -> InboundCharge {
        lock.lock()
        charged += bytes
        peak = max(peak, charged - setAsideBytes)
        lock.unlock()
        return InboundCharge(budget: self, bytes: bytes)
    }

    /// Takes `bytes` out of the count that stops reading (fragments of a message not yet whole);
    /// wakes the reader when the count fell to ``resumeAt`` (the fragments may be what stopped it).
    package func setAside(_ bytes: Int) {
        lock.lock()
        setAsideBytes += bytes
        let wake = takeWakerIfReadable()
        lock.unlock()
        wake?()
    }

    /// Counts `bytes` set aside again (the message is whole and goes on).
    package func takeBack(_ bytes: Int) {
        lock.lock()
        setAsideBytes -= bytes
        peak = max(peak, charged - setAsideBytes)
        lock.unlock()
    }

    /// Releases `bytes` charged before; wakes the reader when the count fell to ``resumeAt``.
    package func release(_ bytes: Int) {
        lock.lock()
        charged -= bytes
        let wake = takeWakerIfReadable()
        lock.unlock()
        wake?()
    }

    /// The waker, taken, when the count is down to ``resumeAt``. Called with the lock held.
    private func takeWakerIfReadable() -> (@Sendable () -> Void)? {
        guard charged - setAsideBytes <= resumeAt, let waker else { return nil }
        self.waker = nil
        resumed = true
        return waker
    }

    /// Whether the reader is held back now, or was since the last time this was asked: what the
    /// server sent meanwhile may still be unread, so a watchdog that waits for the server's frames
    /// (a keep-alive, a pong) must not judge the connection by their absence.
    @usableFromInline package func takeHeldBack() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let heldBack = waker != nil || resumed
        resumed = false
        return heldBack
    }

    /// Whether the reader may read now. When it may not, `waker` is kept and called (once, on
    /// the releasing thread) when the count falls to ``resumeAt``; it replaces any waker kept
    /// before.
    package func mayRead(orWake waker: @escaping @Sendable () -> Void) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if charged - setAsideBytes < limit { return true }
        self.waker = waker
        return false
    }

    /// Forgets the waker: the reader is gone (its connection closed). A waker holds its reader,
    /// and the reader the budget, so one that is never called would keep both alive.
    package func forgetWaker() { _ = takeWaker() }

    /// Calls the waker now, whatever is charged: the reader must go on (to see its connection end).
    package func wakeReader() { takeWaker()?() }

    /// The waker, taken out under the lock (it is released or called outside it).
    private func takeWaker() -> (@Sendable () -> Void)? {
        lock.lock()
        defer { lock.unlock() }
        let waker = self.waker
        self.waker = nil
        return waker
    }

    /// The bytes charged now, not counting those set aside.
    package var outstanding: Int {
        lock.lock()
        defer { lock.unlock() }
        return charged - setAsideBytes
    }

    /// The most bytes counted at once so far.
    package var peakOutstanding: Int {
        lock.lock()
        defer { lock.unlock() }
        return peak
    }
}

/// Bytes charged to an ``InboundBudget`` that travel with a frame, a message or an event until
/// whoever is done with them calls ``release()``. An empty charge (no budget) releases nothing.
@usableFromInline package struct InboundCharge: Sendable {
    @usableFromInline package let budget: InboundBudget?
    package let bytes: Int

    /// No charge: for connections without a budget.
    @usableFromInline package static let none = InboundCharge(budget: nil, bytes: 0)

    package init(budget: InboundBudget?, bytes: Int) {
        self.budget = budget
        self.bytes = bytes
    }

    /// Gives the bytes back to the budget.
    @usableFromInline package func release() {
        guard bytes != 0 else { return }
        budget?.release(bytes)
    }

    /// This charge and `other`, which must be charged to the same budget (or to none).
    package func adding(_ other: InboundCharge) -> InboundCharge {
        InboundCharge(budget: budget ?? other.budget, bytes: bytes + other.bytes)
    }
}
