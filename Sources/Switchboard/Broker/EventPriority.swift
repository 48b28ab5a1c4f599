/// How early a subscriber sees an event relative to the other subscribers of the same event.
///
/// For one published event, ``EventBroker`` calls subscribers from ``critical`` down to ``low``;
/// subscribers with the same priority are called in the order they subscribed.
public enum EventPriority: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// Called after every other subscriber.
    case low = 0
    /// The default priority.
    case normal = 1
    /// Called before `normal` and `low` subscribers.
    case high = 2
    /// Called before every other subscriber.
    case critical = 3

    /// Whether `lhs` is a lower priority than `rhs` (so `.low < .critical`).
    public static func < (lhs: EventPriority, rhs: EventPriority) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// The priority's name, such as `critical`.
    public var description: String {
        switch self {
        case .low: "low"
        case .normal: "normal"
        case .high: "high"
        case .critical: "critical"
        }
    }
}
