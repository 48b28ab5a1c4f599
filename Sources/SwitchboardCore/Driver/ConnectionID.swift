/// One socket of a transport driver: handed out once, never reused.
///
/// A connection is one-shot. The state machine names the socket it wants opened
/// (``DriverAction/open(_:reason:)``), and every later frame, end, pong and authorized frame of
/// that socket carries its id. Once the machine closed it, or it ended, the driver no longer
/// holds the id and drops whatever still arrives for it: the only staleness check there is, in
/// ``TransportDriver``, so the machine never compares ids to tell an old socket's frames apart.
@usableFromInline package struct ConnectionID: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The number, counted up by the state machine from 1.
    package let rawValue: Int

    /// Makes an id.
    /// - Parameter rawValue: The number.
    package init(_ rawValue: Int) { self.rawValue = rawValue }

    /// Makes an id from a literal (tests).
    /// - Parameter value: The number.
    @usableFromInline package init(integerLiteral value: Int) { self.init(value) }

    /// The id after this one.
    package var next: ConnectionID { ConnectionID(rawValue + 1) }

    /// The number, as it appears in log metadata (`switchboard.connection`).
    @usableFromInline package var description: String { String(rawValue) }

    @usableFromInline package static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool { lhs.rawValue < rhs.rawValue }
}
