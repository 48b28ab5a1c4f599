import SwitchboardCore

/// The notifier's observers: of the connection state (``BackendNotifier/connectionStates()``),
/// of errors (``BackendNotifier/errors()``) and of the stream statuses
/// (``BackendNotifier/streamStatuses()``), each with its own stream and buffer.
///
/// The connection-state and error streams buffer as ``BackendNotifier/Configuration/bufferingPolicy``
/// says, and what they drop is reported like a consumer stream's overflow; the status streams
/// keep only the newest dictionary. The notifier tells the book what happened; the book yields
/// it to every observer.
struct ObserverBook {
    typealias Statuses = StatusBook.Statuses

    private var states: [Int: BufferedContinuation<ConnectionState>] = [:]
    private var errors: [Int: BufferedContinuation<SwitchboardError>] = [:]
    /// Observers of both, in the order the notifier reported them (``NotifierStatus``).
    private var changes: [Int: BufferedContinuation<StatusChange>] = [:]
    /// The stream statuses' observers, and what they were told.
    var statuses = StatusBook()
    private var nextID = 0

    /// A new stream of connection states that starts with `current`; finished at once unless `open`.
    /// - Parameters:
    ///   - overflow: Reports what the stream's buffer drops; asked for only when `open`.
    ///   - ended: Called with the observer's number when its consumer stops iterating; the
    ///     notifier then calls ``remove(_:)`` on its actor.
    mutating func observeStates(
        current: ConnectionState, policy: EventStreamBufferingPolicy, open: Bool,
        overflow: @autoclosure () -> OverflowReporter, ended: @escaping @Sendable (Int) -> Void
    ) -> AsyncStream<ConnectionState> {
        observe(\.states, first: current, policy: policy, open: open, overflow: overflow, ended: ended)
    }

    /// A new stream of errors; finished at once unless `open`. See ``observeStates(current:policy:open:overflow:ended:)``.
    mutating func observeErrors(
        policy: EventStreamBufferingPolicy, open: Bool,
        overflow: @autoclosure () -> OverflowReporter, ended: @escaping @Sendable (Int) -> Void
    ) -> AsyncStream<SwitchboardError> {
        observe(\.errors, first: nil, policy: policy, open: open, overflow: overflow, ended: ended)
    }

    /// A new stream of connection states and errors, in the order they happened, that starts
    /// with `current`. See ``observeStates(current:policy:open:overflow:ended:)``.
    mutating func observeChanges(
        current: ConnectionState, policy: EventStreamBufferingPolicy, open: Bool,
        overflow: @autoclosure () -> OverflowReporter, ended: @escaping @Sendable (Int) -> Void
    ) -> AsyncStream<StatusChange> {
        observe(\.changes, first: .connectionState(current), policy: policy, open: open, overflow: overflow, ended: ended)
    }

    /// A new stream of stream statuses that starts with `current`; finished at once unless `open`.
    mutating func observeStatuses(
        current: Statuses, open: Bool, ended: @escaping @Sendable (Int) -> Void
    ) -> AsyncStream<Statuses> {
        let (stream, continuation) = AsyncStream<Statuses>.makeStream(bufferingPolicy: .bufferingNewest(1))
        guard open else {
            continuation.yield(current)
            continuation.finish()
            return stream
        }
        let id = takeID()
        statuses.addObserver(id, continuation, current: current)
        continuation.onTermination = { _ in ended(id) }
        return stream
    }

    /// The observer `id` stopped iterating.
    mutating func remove(_ id: Int) {
        states[id] = nil
        errors[id] = nil
        changes[id] = nil
        statuses.removeObserver(id)
    }

    /// Tells every connection-state observer.
    func yield(_ state: ConnectionState) {
        for observer in states.values { observer.yield(state) }
        for observer in changes.values { observer.yield(.connectionState(state)) }
    }

    /// Tells every error observer.
    func yield(_ error: SwitchboardError) {
        for observer in errors.values { observer.yield(error) }
        for observer in changes.values { observer.yield(.error(error)) }
    }

    /// Finishes every observer's stream.
    mutating func finish() {
        for observer in states.values { observer.finish() }
        for observer in errors.values { observer.finish() }
        for observer in changes.values { observer.finish() }
        states.removeAll()
        errors.removeAll()
        changes.removeAll()
        statuses.finish()
    }

    private mutating func observe<Element: Sendable>(
        _ observers: WritableKeyPath<ObserverBook, [Int: BufferedContinuation<Element>]>, first: Element?,
        policy: EventStreamBufferingPolicy, open: Bool, overflow: () -> OverflowReporter,
        ended: @escaping @Sendable (Int) -> Void
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: policy.streamPolicy(of: Element.self))
        if let first { continuation.yield(first) }
        guard open else {
            continuation.finish()
            return stream
        }
        let id = takeID()
        self[keyPath: observers][id] = BufferedContinuation(continuation, overflow: overflow())
        continuation.onTermination = { _ in ended(id) }
        return stream
    }

    private mutating func takeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }
}

/// A connection state or an error, as one stream carries them in the order the notifier
/// reported them: whether an error came before or after a connect decides whether it is still
/// current (``NotifierStatus/lastError``).
package enum StatusChange: Sendable {
    case connectionState(ConnectionState)
    case error(SwitchboardError)
}
