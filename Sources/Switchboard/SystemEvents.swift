import SwitchboardCore

/// Published on the ``EventBroker`` whenever the connection state changes.
public struct ConnectionStateChangedEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.connectionState"

    /// The new state.
    public var state: ConnectionState
    /// The transport whose connection it is.
    public var transport: TransportKind

    /// Creates the event.
    public init(state: ConnectionState, transport: TransportKind) {
        self.state = state
        self.transport = transport
    }
}

/// Published on the ``EventBroker`` for every error the notifier reports.
public struct SwitchboardErrorEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.error"

    /// The error.
    public var error: SwitchboardError
    /// The stream it concerns, if one.
    public var stream: String?

    /// Creates the event.
    public init(error: SwitchboardError, stream: String? = nil) {
        self.error = error
        self.stream = stream
    }
}

/// Published on the ``EventBroker`` when ``BackendNotifier`` has switched to another transport
/// at runtime (`switchTransport(to:)`, or following the configuration): the previous
/// transport has stopped and the new one is running with every subscription requested again.
public struct TransportChangedEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.transportChanged"

    /// The transport that was stopped.
    public var from: TransportKind
    /// The transport now active.
    public var to: TransportKind
    /// Where the request for the new transport came from (code, configuration, …).
    public var source: TransportSelection.Source

    /// Creates the event.
    /// - Parameters:
    ///   - from: The transport that was stopped.
    ///   - to: The transport now active.
    ///   - source: Where the request came from.
    public init(from: TransportKind, to: TransportKind, source: TransportSelection.Source) {
        self.from = from
        self.to = to
        self.source = source
    }
}
