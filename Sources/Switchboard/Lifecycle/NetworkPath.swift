import SwitchboardCore

/// What the device's network path looks like: whether it can reach anything, and over which
/// interfaces. Build it from whatever your platform reports (`NWPathMonitor` on Apple platforms)
/// and hand it to ``BackendNotifier`` through a ``NetworkPathMonitor``.
public struct NetworkPath: Sendable, Hashable, CustomStringConvertible {
    /// Whether the path can carry traffic.
    public enum Status: Sendable, Hashable {
        /// The path can carry traffic.
        case satisfied
        /// No usable path: traffic cannot leave the device.
        case unsatisfied
    }

    /// A kind of network interface.
    public struct Interface: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        /// Creates an interface kind.
        /// - Parameter rawValue: Its name, such as `wifi`.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Wi-Fi.
        public static let wifi = Interface(rawValue: "wifi")
        /// Cellular data.
        public static let cellular = Interface(rawValue: "cellular")
        /// Wired Ethernet.
        public static let wiredEthernet = Interface(rawValue: "wiredEthernet")
        /// Loopback.
        public static let loopback = Interface(rawValue: "loopback")
        /// Any other interface (a VPN, a tether, …).
        public static let other = Interface(rawValue: "other")

        public var description: String { rawValue }
    }

    /// Whether the path can carry traffic.
    public var status: Status
    /// The interfaces the path uses, the preferred one first.
    public var interfaces: [Interface]
    /// Whether the path is expensive (cellular, a personal hotspot).
    public var isExpensive: Bool

    /// Creates a path.
    /// - Parameters:
    ///   - status: Whether the path can carry traffic.
    ///   - interfaces: The interfaces it uses, the preferred one first.
    ///   - isExpensive: Whether it is expensive; false by default.
    public init(status: Status, interfaces: [Interface] = [], isExpensive: Bool = false) {
        self.status = status
        self.interfaces = interfaces
        self.isExpensive = isExpensive
    }

    /// A usable path over the given interfaces.
    public static func satisfied(_ interfaces: Interface...) -> NetworkPath {
        NetworkPath(status: .satisfied, interfaces: interfaces)
    }

    /// No usable path.
    public static let unsatisfied = NetworkPath(status: .unsatisfied)

    /// Whether the path can carry traffic.
    public var isSatisfied: Bool { status == .satisfied }

    public var description: String {
        isSatisfied ? "satisfied(\(interfaces.map(\.rawValue).joined(separator: ",")))" : "unsatisfied"
    }
}

/// Where ``BackendNotifier`` learns about network path changes: set one in
/// ``BackendNotifier/Configuration/networkPaths``.
///
/// On a lost path the notifier closes its connection instead of waiting on a dead socket, and
/// makes no attempt until the path returns; when it returns it connects at once. When the path
/// changes interface (Wi-Fi to cellular), it checks the connection at once (a ping answered
/// within ``BackendNotifier/Configuration/connectionCheckTimeout``, else a new connection)
/// instead of waiting out the keep-alive window. ``NetworkPathSource`` is a monitor your code
/// feeds; `ScriptedNetworkPaths` in SwitchboardTesting is one a test drives.
public protocol NetworkPathMonitor: Sendable {
    /// A new sequence of path states: the current one first (when known), then every change.
    /// The notifier calls it once per ``BackendNotifier/run()``.
    func paths() -> AsyncStream<NetworkPath>

    /// The path now, if known: the notifier reads it when it starts, as the path its first
    /// connection uses. A monitor that knows none (nil, the default) has its first report
    /// treated as a possible change: with a connection up, the notifier checks it.
    var currentPath: NetworkPath? { get }
}

extension NetworkPathMonitor {
    /// Not known: the first report may be a change.
    public var currentPath: NetworkPath? { nil }
}

/// A ``NetworkPathMonitor`` that your code feeds, for example from `NWPathMonitor`'s update
/// handler. Every sequence it hands out sees the current path first, then each update.
public final class NetworkPathSource: NetworkPathMonitor {
    private let broadcast: CurrentValueBroadcast<NetworkPath>

    /// Creates a source.
    /// - Parameter initial: The path at start, if known.
    public init(_ initial: NetworkPath? = nil) {
        broadcast = CurrentValueBroadcast(initial)
    }

    /// The last path reported, if any.
    public var current: NetworkPath? { broadcast.current }

    /// The last path reported, if any; the notifier's baseline when it starts.
    public var currentPath: NetworkPath? { broadcast.current }

    /// Reports the current path; a repeat of the current path is not passed on.
    /// - Parameter path: The path now.
    public func update(_ path: NetworkPath) { broadcast.update(path, isRepeat: ==) }

    public func paths() -> AsyncStream<NetworkPath> { broadcast.values() }
}
