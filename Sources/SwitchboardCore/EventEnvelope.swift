import Foundation

/// Names one subscription a transport holds on behalf of its owner.
///
/// The owner (normally `BackendNotifier`) chooses the key; the transport chooses its own
/// wire ids, fresh for every connection, and reports events and acknowledgements by key.
public struct SubscriptionKey: RawRepresentable, Hashable, Sendable, Comparable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    /// The key's text.
    public var rawValue: String
    /// Creates a key.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a key.
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A GraphQL subscription operation: the document and its variables.
public struct GraphQLOperation: Hashable, Sendable {
    /// The subscription document.
    public var query: String
    /// The operation's variables. Switchboard's operations only take ID arguments.
    public var variables: [String: String]
    /// The operation name, if the document names one.
    public var operationName: String?

    /// Creates an operation.
    /// - Parameters:
    ///   - query: The subscription document.
    ///   - variables: The variables, by name.
    ///   - operationName: The operation name, if any.
    public init(query: String, variables: [String: String] = [:], operationName: String? = nil) {
        self.query = query
        self.variables = variables
        self.operationName = operationName
    }
}

/// What a transport is asked to subscribe to.
public struct SubscriptionRequest: Hashable, Sendable {
    /// Where a subscription points, in the terms of one transport.
    public enum Target: Hashable, Sendable {
        /// An AppSync Events channel path, such as `vortex-app/user/u1/device/*`.
        case channel(String)
        /// A GraphQL subscription operation.
        case graphQL(GraphQLOperation)
    }

    /// The owner's name for this subscription.
    public var key: SubscriptionKey
    /// The address on the wire.
    public var target: Target

    /// Creates a request.
    /// - Parameters:
    ///   - key: The owner's name for the subscription; events come back tagged with it.
    ///   - target: The channel or GraphQL operation to subscribe to.
    public init(key: SubscriptionKey, target: Target) {
        self.key = key
        self.target = target
    }
}

/// One event as a transport delivers it: untyped, exactly as it came off the wire.
///
/// Typed decoding happens once, above the transports, so the same logical event from either
/// transport becomes the same typed value.
public struct EventEnvelope: Hashable, Sendable {
    /// The subscription that received the event.
    public var subscription: SubscriptionKey
    /// The raw JSON payload. For AppSync Events it is the event text of a `data` frame; for
    /// GraphQL it is the `data` object of a result (`{"subscribeDeviceState": {...}}`).
    public var payload: Data
    /// When the transport received the frame.
    public var receivedAt: Date
    /// The transport that received it.
    public var transport: TransportKind

    /// Creates an envelope.
    /// - Parameters:
    ///   - subscription: The subscription that received the event.
    ///   - payload: The raw JSON bytes.
    ///   - receivedAt: The receive time.
    ///   - transport: The transport that received it.
    public init(subscription: SubscriptionKey, payload: Data, receivedAt: Date, transport: TransportKind) {
        self.subscription = subscription
        self.payload = payload
        self.receivedAt = receivedAt
        self.transport = transport
    }
}
