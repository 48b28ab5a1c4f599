import SwitchboardCore

/// Whether the notifier wants a connection, as far as the app's lifecycle and the network path
/// decide: the app in the background (``BackendNotifier/suspend()``) or a lost path holds the
/// connection back until ``BackendNotifier/resume()`` or the path's return.
///
/// A plain value: the notifier tells it what happened and what else it knows (signed in, shut
/// down, a switch of transport pending), and carries out what it answers.
struct ConnectionGate {
    /// What the notifier knows besides the app's lifecycle and the path.
    struct Facts: Equatable {
        /// Someone is signed in.
        var signedIn: Bool
        /// The notifier shut down.
        var shutDown: Bool
        /// A switch of transport waits for the previous transport to stop.
        var switching: Bool
        /// The transport reported itself connected.
        var connected = false
    }

    /// What ``resume()`` asks for.
    enum Resumption: Equatable {
        /// There was no suspension: the connection may have died meanwhile, so check it.
        case checkConnection
        /// Suspended until now: connect at once.
        case connect
    }

    /// What a new network path asks for.
    enum PathChange: Equatable {
        /// Nothing: the same path again, a path lost while no connection was wanted, or one that
        /// changed nothing that matters.
        case none
        /// The path is gone while a connection was wanted: close it.
        case disconnect
        /// The path is back after it was lost: connect.
        case connect
        /// The path is usable but over other interfaces, or is the first one reported while
        /// connected: check the connection.
        case checkConnection
    }

    /// The app is in the background: no connection until ``resume()``.
    private(set) var suspended = false
    /// The last network path reported, if a monitor is set.
    private(set) var networkPath: NetworkPath?
    /// The network path is gone: no connection until it returns.
    private(set) var pathLost = false

    /// Whether the transport should be connected: someone is signed in, the app is in the
    /// foreground, the path is usable, and neither a shutdown nor a switch is in the way.
    func wantsConnection(_ facts: Facts) -> Bool {
        facts.signedIn && !facts.shutDown && !suspended && !pathLost && !facts.switching
    }

    /// The app went to the background; false when it already was.
    mutating func suspend() -> Bool {
        guard !suspended else { return false }
        suspended = true
        return true
    }

    /// The app came back to the foreground.
    mutating func resume() -> Resumption {
        guard suspended else { return .checkConnection }
        suspended = false
        return .connect
    }

    /// The path the monitor knew when the notifier started: the one the first connection uses.
    mutating func start(on path: NetworkPath?) {
        networkPath = path
        pathLost = path.map { !$0.isSatisfied } ?? false
    }

    /// The monitor reported `path`; returns the path before it and what to do.
    mutating func apply(_ path: NetworkPath, _ facts: Facts) -> (previous: NetworkPath?, change: PathChange) {
        let previous = networkPath
        networkPath = path
        if previous == path { return (previous, .none) }
        if !path.isSatisfied {
            let wasWanted = wantsConnection(facts)
            pathLost = true
            return (previous, wasWanted ? .disconnect : .none)
        }
        if pathLost {
            pathLost = false
            return (previous, .connect)
        }
        // A first report after a connection was made is no baseline: a monitor that knew no path
        // when the notifier started (the app fed it only changes) may be telling of a change now,
        // with the socket already dead. Checking costs one ping on a live connection.
        guard let previous else { return (nil, facts.connected && wantsConnection(facts) ? .checkConnection : .none) }
        if previous.interfaces != path.interfaces { return (previous, .checkConnection) }
        return (previous, .none)
    }
}
