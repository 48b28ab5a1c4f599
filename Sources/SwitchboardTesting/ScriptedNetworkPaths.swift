import Switchboard
import SwitchboardCore

/// A ``/Switchboard/NetworkPathMonitor`` a test drives: it sends the paths the test gives it to
/// every sequence the notifier asked for, and counts those sequences.
///
/// ```swift
/// let paths = ScriptedNetworkPaths(.satisfied(.wifi))
/// let notifier = BackendNotifier(transport: transport, session: session,
///                                configuration: .init(networkPaths: paths))
/// // … connected …
/// paths.send(.unsatisfied)          // the notifier closes the connection
/// paths.send(.satisfied(.cellular)) // and connects again at once
/// ```
public final class ScriptedNetworkPaths: NetworkPathMonitor {
    private struct State {
        var current: NetworkPath?
        var observers: [Int: AsyncStream<NetworkPath>.Continuation] = [:]
        var requested = 0
        var sent: [NetworkPath] = []
    }

    private let state: LockedValue<State>

    /// Creates a monitor.
    /// - Parameter initial: The path every new sequence starts with, if any.
    public init(_ initial: NetworkPath? = nil) {
        state = LockedValue(State(current: initial))
    }

    /// How many sequences were asked for (the notifier asks once per `run()`).
    public var requestCount: Int { state.withLock { $0.requested } }

    /// The path new sequences start with, if any; the notifier's baseline when it starts.
    public var currentPath: NetworkPath? { state.withLock { $0.current } }

    /// Every path sent so far, in order (repeats included: a scripted monitor does not filter).
    public var sent: [NetworkPath] { state.withLock { $0.sent } }

    /// Sends a path to every open sequence, and makes it the one new sequences start with.
    /// - Parameter path: The path now.
    public func send(_ path: NetworkPath) {
        state.withLock { state in
            state.current = path
            state.sent.append(path)
            for observer in state.observers.values { observer.yield(path) }
        }
    }

    /// Ends every open sequence, as a monitor that was cancelled does.
    public func finish() {
        let observers = state.withLock { state in
            defer { state.observers.removeAll() }
            return Array(state.observers.values)
        }
        for observer in observers { observer.finish() }
    }

    public func paths() -> AsyncStream<NetworkPath> {
        let (stream, continuation) = AsyncStream<NetworkPath>.makeStream()
        let id = state.withLock { state in
            state.requested += 1
            let id = state.requested
            state.observers[id] = continuation
            if let current = state.current { continuation.yield(current) }
            return id
        }
        continuation.onTermination = { [state] _ in
            _ = state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }
}
