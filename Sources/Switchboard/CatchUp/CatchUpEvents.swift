import SwitchboardCore

/// Published on the ``EventBroker`` when ``BackendNotifier`` is receiving again after a gap in
/// which events may have been missed (a reconnect, a switch of transport), and catch-up is on.
public struct DeliveryGapEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.deliveryGap"

    /// What caused the gap, such as `reconnected` or `transportSwitched(graphql -> appsync)`.
    public var reason: String
    /// The transport receiving again.
    public var transport: TransportKind

    /// Creates the event.
    public init(reason: String, transport: TransportKind) {
        self.reason = reason
        self.transport = transport
    }
}

/// Published on the ``EventBroker`` while ``BackendNotifier`` catches up: at most ten a second,
/// and a final exact one.
public struct CatchUpProgressEvent: SwitchboardEvent, Equatable {
    public static let category = EventCategory.system
    public static let eventName = "system.catchUpProgress"

    /// Events fetched so far (delivered, or skipped as already delivered live).
    public var processed: Int
    /// How many there are, once the server has said.
    public var total: Int?
    /// Whether this is the last update of the catch-up.
    public var isFinal: Bool

    /// Creates the event.
    public init(processed: Int, total: Int?, isFinal: Bool) {
        self.processed = processed
        self.total = total
        self.isFinal = isFinal
    }
}
