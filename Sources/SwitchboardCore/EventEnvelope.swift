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

/// One event as a transport delivers it, in the terms of the new contract whichever transport
/// received it: the contract's `eventType`s and the payload with the new contract's field names.
///
/// Everything dialect-specific stays inside the transport: a GraphQL transport unwraps the
/// result from under its root field, renames legacy fields (`deviceGroupID` → `siteId`,
/// `AIControlSetting` → `aiControlSetting`) and names the kinds of change the result carries.
/// Typed decoding happens once, above the transports, so the same logical event from either
/// transport becomes the same typed value.
public struct EventEnvelope: Hashable, Sendable {
    /// The subscription that received the event.
    public var subscription: SubscriptionKey
    /// The contract `eventType`s of the event, which route it to streams: exactly one on AppSync
    /// Events (the payload's own `eventType`); on the legacy transport one per kind of change the
    /// result sets (a `DeviceState` that sets `online` and `recording` is both a presence and a
    /// recording change). Empty when the transport could not tell.
    public var eventTypes: [String]
    /// The event's JSON object, with the new contract's field names. An AppSync Events payload is
    /// the event text of a `data` frame, as published; a legacy payload is the result object
    /// (without `eventType` and `timestamp`, which the legacy contract does not carry).
    ///
    /// When the transport parsed it, the bytes are those of its parse, and are made
    /// into `Data` only when read: the notifier decodes from the document and never asks.
    public var payload: Data {
        get { storedPayload ?? document.map { Data($0.bytes) } ?? Data() }
        set {
            storedPayload = newValue
            document = nil
        }
    }
    /// The payload as given, unless it is the document's bytes.
    private var storedPayload: Data?
    /// The payload's size in bytes, without making the payload.
    package var payloadByteCount: Int { storedPayload?.count ?? document?.bytes.count ?? 0 }
    /// When the transport received the frame.
    public var receivedAt: Date
    /// Where it came from: the ``EventTransport/kind`` of the transport that received it, or
    /// ``TransportKind/catchUp`` for an event read from the backend's log by a catch-up.
    public var transport: TransportKind
    /// The errors the server sent beside this event's data, in its words: a GraphQL result with
    /// both `data` and `errors` (a partial result, whose fields the errors name may be null).
    /// Empty for a complete event. The notifier delivers the value and reports
    /// ``SwitchboardError/Code/partialResult`` on each stream it reached.
    public var serverErrors: [String] = []
    /// The payload, parsed once by the transport that found the `eventType`s in it, so that the
    /// notifier decodes it without parsing again; nil when it was not parsed (or not parseable
    /// by ``JSONDocument``).
    package private(set) var document: JSONDocument?

    /// About what holding the envelope keeps in memory, in bytes: the payload, the parsed
    /// document when there is one, the subscription key and the `eventType`s, plus a fixed 96
    /// for the envelope and its buffers' headers. Catch-up's bound on held envelopes
    /// (``BackendNotifier/CatchUp/heldEnvelopeBytes``) counts with it.
    package var retainedBytes: Int {
        96 + (storedPayload?.count ?? 0) + (document?.retainedBytes ?? 0) + subscription.rawValue.utf8.count
            + eventTypes.reduce(0) { $0 + 16 + $1.utf8.count } + serverErrors.reduce(0) { $0 + 16 + $1.utf8.count }
    }

    /// Creates an envelope.
    /// - Parameters:
    ///   - subscription: The subscription that received the event.
    ///   - eventTypes: The contract `eventType`s the event carries.
    ///   - payload: The event's JSON object, with the new contract's field names.
    ///   - receivedAt: The receive time.
    ///   - transport: The transport that received it.
    public init(subscription: SubscriptionKey, eventTypes: [String], payload: Data, receivedAt: Date, transport: TransportKind) {
        self.subscription = subscription
        self.eventTypes = eventTypes
        self.storedPayload = payload
        self.receivedAt = receivedAt
        self.transport = transport
    }

    /// Creates an envelope whose payload is a parsed document's text, with its event types read
    /// from the document's `eventType`: the payload is the document's bytes, shared, not copied.
    package init(subscription: SubscriptionKey, document: JSONDocument, receivedAt: Date, transport: TransportKind) {
        self.subscription = subscription
        self.eventTypes = []
        self.receivedAt = receivedAt
        self.transport = transport
        read(document)
    }

    /// Creates an envelope whose payload is a parsed document's text, with known event types.
    package init(subscription: SubscriptionKey, eventTypes: [String], document: JSONDocument, receivedAt: Date, transport: TransportKind) {
        self.subscription = subscription
        self.eventTypes = eventTypes
        self.receivedAt = receivedAt
        self.transport = transport
        self.document = document
    }

    /// Creates an envelope for a payload that names its own `eventType` (an AppSync Events
    /// event): the payload is parsed once here, and ``eventTypes`` holds its `eventType`, or
    /// nothing when it has none.
    /// - Parameters:
    ///   - subscription: The subscription that received the event.
    ///   - payload: The event's JSON object, with its `eventType` member.
    ///   - receivedAt: The receive time.
    ///   - transport: The transport that received it.
    public init(subscription: SubscriptionKey, payload: Data, receivedAt: Date, transport: TransportKind) {
        self.init(subscription: subscription, document: JSONDocument(payload), payload: payload,
                  receivedAt: receivedAt, transport: transport)
    }

    /// Creates an envelope from a payload the caller parsed, reading the `eventType` from it.
    package init(subscription: SubscriptionKey, document: JSONDocument?, payload: Data, receivedAt: Date, transport: TransportKind) {
        self.init(subscription: subscription, eventTypes: [], payload: payload, receivedAt: receivedAt, transport: transport)
        if let document {
            read(document)
        } else if let type = (try? JSONValue.parse(payload))?["eventType"]?.string {
            // Beyond the fast parser (an exponent, an escaped key): read the same way the decoder will.
            eventTypes = [type]
        }
    }

    /// Takes `document` as the parsed payload and its `eventType` as the event types.
    private mutating func read(_ document: JSONDocument) {
        self.document = document
        guard let node = document.member("eventType", of: document.root) else { return }
        // A contract name is shared, not copied; anything else is read as it is.
        if let types = document.withStringBytes(node, ContractEventTypes.single) ?? nil {
            eventTypes = types
        } else if let type = document.string(node) {
            eventTypes = [type]
        }
    }

    /// Creates an envelope with a parsed payload and known event types.
    package init(
        subscription: SubscriptionKey, eventTypes: [String], document: JSONDocument?, payload: Data, receivedAt: Date,
        transport: TransportKind
    ) {
        self.init(subscription: subscription, eventTypes: eventTypes, payload: payload, receivedAt: receivedAt, transport: transport)
        self.document = document
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.subscription == rhs.subscription && lhs.eventTypes == rhs.eventTypes && lhs.payload == rhs.payload
            && lhs.receivedAt == rhs.receivedAt && lhs.transport == rhs.transport
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(subscription)
        hasher.combine(eventTypes)
        hasher.combine(payload)
        hasher.combine(receivedAt)
        hasher.combine(transport)
    }
}
