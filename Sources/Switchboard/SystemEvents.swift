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
