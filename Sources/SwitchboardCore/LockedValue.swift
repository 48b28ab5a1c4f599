import Foundation

/// A value behind a lock, for small shared state. Closures passed to ``withLock(_:)`` must not
/// suspend, call out to user code, or resume continuations.
@usableFromInline package final class LockedValue<Value>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    package init(_ value: Value) { self.value = value }

    /// Inlinable, so a caller in another module gets it specialized for its value and result
    /// (the broker and the notifier take the lock for every event).
    @inlinable
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
