/// The one error type every Switchboard API throws or reports.
///
/// Match on ``code`` (stable across releases); ``message`` is for people and may change.
/// New codes may be added in minor releases, so a `switch` over codes needs a `default`.
///
/// | code | when |
/// |---|---|
/// | ``Code/sessionExpired`` | the server rejected the credentials, also after one token refresh |
/// | ``Code/network`` | the socket failed, closed unexpectedly or could not connect, or a connection-level deadline passed (connect, connection acknowledgement, keep-alive); the message names it, such as `keep-alive timeout: no frame from the server within 300 s` |
/// | ``Code/timeout`` | a request-level wait ran out: a publish's answer, a catch-up's progress, the acknowledgement of a subscription the catch-up waits for |
/// | ``Code/subscriptionRejected`` | the server refused one subscription; others are unaffected |
/// | ``Code/publishRejected`` | the server refused a publish, in whole or in part |
/// | ``Code/protocolViolation`` | a frame broke the wire protocol (malformed JSON, unknown type, bad field) |
/// | ``Code/invalidChannel`` | a channel or id breaks the AppSync Events naming rules |
/// | ``Code/invalidConfiguration`` | a configuration value is missing or not one of the allowed values |
/// | ``Code/decodingFailed`` | an event payload could not be decoded into its typed model |
/// | ``Code/partialResult`` | the server sent an event with errors beside its data (a GraphQL partial result): the value was delivered, fields the errors name may be nil |
/// | ``Code/shutDown`` | the component was shut down before or while the call ran |
/// | ``Code/checkpointExpired`` | a catch-up's checkpoint lies before the oldest event the server's log still holds |
/// | ``Code/syncRejected`` | the server refused a catch-up request (an error frame or an HTTP error status) |
/// | ``Code/checkpointStorageFailed`` | a checkpoint could not be read or saved |
public struct SwitchboardError: Error, Sendable, CustomStringConvertible {
    /// A stable, machine-readable error category.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable {
            case sessionExpired, network, timeout, subscriptionRejected, publishRejected
            case protocolViolation, invalidChannel, invalidConfiguration, decodingFailed, shutDown
            case checkpointExpired, syncRejected, checkpointStorageFailed, partialResult
        }

        private let wrapped: Wrapped
        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The code with this stable name (see ``description``), such as `sessionExpired`; nil
        /// for a name that is not a code.
        package init?(name: String) {
            guard let wrapped = Wrapped(rawValue: name) else { return nil }
            self.init(wrapped)
        }

        /// Authentication failed and could not be recovered by refreshing the token once.
        public static let sessionExpired = Code(.sessionExpired)
        /// A socket failure: connect refused, connection reset, unexpected close; or a
        /// connection-level deadline passed, named at the start of the message: `connect timeout`
        /// (socket or WebSocket upgrade), `connection-ack timeout`, `keep-alive timeout`.
        public static let network = Code(.network)
        /// A request-level wait ran out: a publish's answer, a catch-up (sync) that went silent,
        /// the acknowledgement of a subscription. Connection-level deadlines are ``network``.
        public static let timeout = Code(.timeout)
        /// The server rejected a subscription; the message carries the server's words.
        public static let subscriptionRejected = Code(.subscriptionRejected)
        /// The server rejected a publish.
        public static let publishRejected = Code(.publishRejected)
        /// A frame broke the protocol.
        public static let protocolViolation = Code(.protocolViolation)
        /// A channel path or an id is invalid.
        public static let invalidChannel = Code(.invalidChannel)
        /// A configuration value is missing or invalid.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// A payload could not be decoded into its typed model.
        public static let decodingFailed = Code(.decodingFailed)
        /// The component has been shut down.
        public static let shutDown = Code(.shutDown)
        /// The server's event log no longer holds every event after the catch-up's checkpoint:
        /// events were dropped, so a full resynchronisation is needed.
        public static let checkpointExpired = Code(.checkpointExpired)
        /// The server refused a catch-up request; the message carries its words and code.
        public static let syncRejected = Code(.syncRejected)
        /// A checkpoint store could not read or save a checkpoint.
        public static let checkpointStorageFailed = Code(.checkpointStorageFailed)
        /// The server sent an event with errors beside its data (a GraphQL result with both
        /// `data` and `errors`, such as a field whose value is outside the schema, which the server
        /// nulls): the value was delivered, and the fields the errors name may be nil. Reported on
        /// the stream that delivered the value, with the server's messages; the subscription goes on.
        public static let partialResult = Code(.partialResult)

        /// The code's stable name, such as `sessionExpired`.
        public var description: String { wrapped.rawValue }
    }

    /// The stable category of the error.
    public var code: Code
    /// A human-readable explanation. Never contains credentials.
    public var message: String
    /// The underlying error, if one caused this.
    public var cause: (any Error & Sendable)?
    /// Whether sending the same request again cannot succeed: a server certificate this client
    /// does not trust, a TLS port spoken to in plain HTTP. One-shot requests (a publish) give up
    /// at once instead of retrying.
    package var isPermanent = false

    /// Creates an error.
    /// - Parameters:
    ///   - code: The stable category.
    ///   - message: A human-readable explanation; never put a token or key in it.
    ///   - cause: The underlying error, if any.
    public init(code: Code, message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String {
        if let cause {
            return "SwitchboardError.\(code): \(message) (cause: \(cause))"
        }
        return "SwitchboardError.\(code): \(message)"
    }
}

extension SwitchboardError: Equatable {
    /// Two errors are equal when their codes and messages are; the cause is not compared.
    public static func == (lhs: SwitchboardError, rhs: SwitchboardError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }
}
