import Foundation

/// A text or binary WebSocket message.
public enum WebSocketMessage: Hashable, Sendable {
    case text(String)
    case binary(Data)
}

/// A WebSocket close code (RFC 6455 §7.4).
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code.
    public var rawValue: UInt16
    /// Creates a code from its number.
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// Creates a code from its number.
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = WebSocketCloseCode(1000)
    /// 1001: the endpoint is going away.
    public static let goingAway = WebSocketCloseCode(1001)
    /// 1002: protocol error.
    public static let protocolError = WebSocketCloseCode(1002)
    /// 1006: the connection dropped without a close frame (never sent on the wire).
    public static let abnormalClosure = WebSocketCloseCode(1006)
    /// 1008: policy violation.
    public static let policyViolation = WebSocketCloseCode(1008)
    /// 1011: the server hit an unexpected condition.
    public static let internalError = WebSocketCloseCode(1011)

    public var description: String { String(rawValue) }
}

/// The close frame a peer sent, or the synthetic one for a dropped connection.
public struct WebSocketClose: Hashable, Sendable {
    /// The close code.
    public var code: WebSocketCloseCode
    /// The reason text, possibly empty.
    public var reason: String

    /// Creates a close description.
    public init(code: WebSocketCloseCode, reason: String = "") {
        self.code = code
        self.reason = reason
    }
}

/// Something that arrived on a WebSocket.
public enum WebSocketInboundEvent: Hashable, Sendable {
    /// A complete (reassembled) message.
    case message(WebSocketMessage)
    /// The peer closed the connection; nothing follows.
    case closed(WebSocketClose)
}

/// The inbound side of a ``WebSocketConnection``. It has one consumer. It ends after
/// ``WebSocketInboundEvent/closed(_:)``, and throws when the socket fails without a close frame.
public struct WebSocketInbound: AsyncSequence, Sendable {
    public typealias Element = WebSocketInboundEvent

    /// One element: an event, or how the socket failed as the last element when it did, with
    /// the bytes it holds of the connection's ``InboundBudget``.
    package struct Item: Sendable {
        package var result: Result<WebSocketInboundEvent, any Error>
        package var charge: InboundCharge
    }

    /// Events, and how the socket failed as the last element when it did.
    private let stream: HandOff<Item>
    private var onDemand: (@Sendable () -> Void)?

    /// Feeds a ``WebSocketInbound`` sequence.
    public struct Continuation: Sendable {
        fileprivate let continuation: HandOff<Item>.Continuation

        /// Appends an event.
        public func yield(_ event: WebSocketInboundEvent) { continuation.yield(Item(result: .success(event), charge: .none)) }

        /// Appends an event that holds `charge` of the connection's budget: a reader that
        /// forwards it passes the charge on; one that iterates releases it as it takes the event.
        package func yield(_ event: WebSocketInboundEvent, charge: InboundCharge) {
            if case .terminated = continuation.yield(Item(result: .success(event), charge: charge)) { charge.release() }
        }

        /// Ends the sequence, with an error if the socket failed.
        public func finish(throwing error: (any Error)? = nil) {
            if let error {
                continuation.finish(last: Item(result: .failure(error), charge: .none))
            } else {
                continuation.finish()
            }
        }
    }

    /// Makes a sequence and the continuation that feeds it.
    public static func makeStream() -> (inbound: WebSocketInbound, continuation: Continuation) {
        let (stream, continuation) = HandOff<Item>.makeStream()
        return (WebSocketInbound(stream: stream), Continuation(continuation: continuation))
    }

    /// Makes a sequence whose reader's every request for the next event is announced to
    /// `onDemand` first, so a test server knows the reader has finished with everything before:
    /// a fixture player moves its clock only then.
    package static func makeStream(
        onDemand: @escaping @Sendable () -> Void
    ) -> (inbound: WebSocketInbound, continuation: Continuation) {
        var (inbound, continuation) = makeStream()
        inbound.onDemand = onDemand
        return (inbound, continuation)
    }

    /// The iterator of ``WebSocketInbound``; make one per sequence. A buffered event is handed
    /// out without suspending.
    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate var base: HandOff<Item>.AsyncIterator
        fileprivate let onDemand: (@Sendable () -> Void)?

        /// The next event; nil once the sequence ended (the socket closed, or the task was
        /// cancelled) and every event buffered before was handed out.
        /// - Throws: How the socket failed, once, after the last event.
        public mutating func next() async throws -> WebSocketInboundEvent? {
            try await next(isolation: nil)
        }

        /// The next event, waiting on the caller's isolation.
        /// - Throws: How the socket failed, once, after the last event.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws -> WebSocketInboundEvent? {
            onDemand?()
            guard let item = await base.next(isolation: actor) else { return nil }
            // An iterating reader is done with the bytes once it has the event.
            item.charge.release()
            return try item.result.get()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator(), onDemand: onDemand) }

    /// Consumes the sequence without a reading task: each event goes to `sink` as the
    /// connection yields it (on the connection's thread), then the end, `nil` when it ended
    /// normally or the error it failed with. Transports use it to feed a socket's frames straight
    /// into their own input queue. Do not iterate the sequence as well.
    package func forward(to sink: @escaping @Sendable (Result<WebSocketInboundEvent, any Error>?) -> Void) {
        forwardCharged { element, charge in
            charge.release()
            sink(element)
        }
    }

    /// ``forward(to:)``, with each event's share of the connection's ``InboundBudget``: the sink
    /// releases it once done with the event (or passes it on with what it made of it).
    @usableFromInline package func forwardCharged(
        to sink: @escaping @Sendable (Result<WebSocketInboundEvent, any Error>?, InboundCharge) -> Void
    ) {
        let failed = LockedValue(false)
        guard let onDemand else {
            // The path every connection takes: nothing but the sink per event.
            stream.forward { item in Self.hand(item, to: sink, failed: failed) }
            return
        }
        // A fixture's stream: the reader is ready for the next event at once, and again after
        // each one, what an iterating reader would signal as it asks for each.
        onDemand()
        stream.forward { item in
            Self.hand(item, to: sink, failed: failed)
            if case .success = item?.result { onDemand() }
        }
    }

    /// Hands one forwarded item (nil: the end) to `sink`; a failure is the end, so the end that
    /// follows it is not handed on.
    private static func hand(
        _ item: Item?, to sink: (Result<WebSocketInboundEvent, any Error>?, InboundCharge) -> Void, failed: LockedValue<Bool>
    ) {
        guard let item else {
            if !failed.withLock({ $0 }) { sink(nil, .none) }
            return
        }
        if case .failure = item.result { failed.withLock { $0 = true } }
        sink(item.result, item.charge)
    }
}

/// What to open: URL, subprotocols offered and extra upgrade headers.
public struct WebSocketRequest: Sendable, CustomStringConvertible {
    /// A `ws` or `wss` URL.
    public var url: URL
    /// Subprotocols offered, in order of preference. The server picks one.
    public var subprotocols: [String]
    /// Extra headers for the upgrade request.
    public var headers: [(name: String, value: String)]

    /// Creates a request.
    /// - Parameters:
    ///   - url: A `ws` or `wss` URL.
    ///   - subprotocols: Subprotocols offered, in order of preference.
    ///   - headers: Extra upgrade headers.
    public init(url: URL, subprotocols: [String] = [], headers: [(name: String, value: String)] = []) {
        self.url = url
        self.subprotocols = subprotocols
        self.headers = headers
    }

    /// Describes the request without header values or subprotocols, which may carry credentials.
    public var description: String {
        "WebSocketRequest(\(url.scheme ?? "?")://\(url.host ?? "?")\(url.path), \(subprotocols.count) subprotocols, \(headers.count) headers)"
    }
}

/// The socket seam: one open, upgraded WebSocket. One-shot: once closed it is never reused;
/// reconnecting opens a new connection.
///
/// The engine behind it masks client frames, answers pings and reassembles fragments.
public protocol WebSocketConnection: Sendable {
    /// The subprotocol the server selected, if any.
    var subprotocol: String? { get }
    /// What arrives on the socket.
    var inbound: WebSocketInbound { get }
    /// Sends a message.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/network`` if the socket is closed.
    func send(_ message: WebSocketMessage) async throws
    /// Starts the close handshake and releases the socket. Never throws; closing twice is harmless.
    /// - Parameters:
    ///   - code: The close code to send.
    ///   - reason: The close reason to send.
    func close(code: WebSocketCloseCode, reason: String) async
    /// Sends a ping and waits for the pong that answers it.
    ///
    /// Transports use it to check a connection on demand (``ConnectionVerifying``); they bound
    /// the wait with their own deadline and never rely on this method to time out. Cancelling
    /// the calling task stops the wait.
    ///
    /// Engines that cannot ping may leave it out: the default implementation throws, and a
    /// transport treats that as a failed check (it reconnects).
    /// - Parameter payload: The ping's payload, at most 125 bytes.
    /// - Returns: The round-trip time, as well as the engine can tell (zero if it cannot).
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/network`` if the connection
    ///   closes before the pong, ``SwitchboardError/Code/invalidConfiguration`` if the engine
    ///   cannot ping (the default) or the payload is too long; `CancellationError`.
    func sendPing(_ payload: Data) async throws -> Duration
}

extension WebSocketConnection {
    /// The default for engines that cannot ping: throws ``SwitchboardError`` with
    /// ``SwitchboardError/Code/invalidConfiguration``, naming the engine's type.
    /// - Parameter payload: Ignored.
    /// - Returns: Never.
    /// - Throws: Always.
    public func sendPing(_ payload: Data) async throws -> Duration {
        throw SwitchboardError(
            code: .invalidConfiguration,
            message: "\(type(of: self)) cannot send pings: implement WebSocketConnection.sendPing(_:) to support connection checks")
    }
}

/// Opens ``WebSocketConnection``s.
public protocol WebSocketConnector: Sendable {
    /// Opens and upgrades a connection.
    /// - Parameter request: What to open.
    /// - Returns: The open connection.
    /// - Throws: ``WebSocketHandshakeError`` when the server answers with anything but `101` (its
    ///   ``WebSocketHandshakeError/isAuthorizationFailure`` is true for 401/403, which transports
    ///   treat as a refused token) or chooses no offered subprotocol; ``SwitchboardError`` with
    ///   ``SwitchboardError/Code/network`` (refused, reset, TLS failure, and the connect or
    ///   upgrade deadline, with a message starting `connect timeout:`). A
    ///   ``SwitchboardError/Code/timeout`` from an older connector is reported by the transports
    ///   as a `network` connect timeout.
    func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection
}
