import struct Foundation.Date

/// The one abstraction every transport implements: the two built in (`GraphQLSubscriber`,
/// `AppSyncEventsSubscriber`) and any an app registers (``TransportRegistry``).
///
/// A transport owns one logical connection at a time. Its owner drives it with commands
/// (``connect(as:)``, ``subscribe(_:)``, ``unsubscribe(_:)``, ``disconnect()``,
/// ``shutDown()``), which only enqueue work and return at once, and observes it through
/// ``events``, the single ordered sequence of everything that happens: connection-state changes,
/// subscription acknowledgements and rejections, received envelopes and non-fatal errors.
/// The work itself happens inside ``run()``, which the owner runs in its own task (structured
/// concurrency; a transport never starts unstructured tasks of its own).
///
/// ## Contract
/// - ``run()`` returns after ``shutDown()`` or when its task is cancelled. It throws only
///   ``SwitchboardError/Code/shutDown`` when called a second time.
/// - Subscriptions are held until unsubscribed. After any reconnect the transport subscribes
///   every held subscription again (with fresh wire ids) and reports
///   ``TransportEvent/subscriptionEstablished(_:)`` only once the server acknowledged it. A wire
///   dialect without per-subscription acknowledgements reports it as it sends the subscribe on
///   an acknowledged connection (just before the frame goes out, never after: for events that
///   carry no log time, the report's moment is when the subscription's streams start to carry
///   live copies of what a catch-up fetches), and says so with ``acknowledgesSubscriptions``.
/// - A rejected subscription ends only that subscription
///   (``TransportEvent/subscriptionFailed(_:_:)`` with ``SwitchboardError/Code/subscriptionRejected``).
/// - ``connect(as:)`` with a new identity replaces the connection; tokens are fetched fresh
///   from the identity's ``TokenProvider`` for every connect.
/// - An authentication failure at connect refreshes the token once, quietly (it is logged, not
///   reported), then reports ``ConnectionState/disconnected(_:)`` with
///   ``SwitchboardError/Code/sessionExpired`` and stops instead of looping.
/// - A connection the transport did not end itself (a server close with any code, a drop, a
///   keep-alive timeout) is reported as ``TransportEvent/error(_:)`` naming the cause, then
///   ``ConnectionState/waitingToReconnect(attempt:delay:)``; when the policy gives up, the cause
///   is in ``ConnectionState/disconnected(_:)`` instead. Both transports report the same
///   sequence, so consumers see the same errors whichever is configured.
/// - ``disconnect()`` closes the connection and cancels any pending reconnect.
///
/// Errors reported through ``events``: ``SwitchboardError/Code/sessionExpired``,
/// ``SwitchboardError/Code/network`` (also for the connection-level deadlines: connect,
/// connection acknowledgement, keep-alive, named in the message as `connect timeout:`,
/// `connection-ack timeout:`, `keep-alive timeout:`), ``SwitchboardError/Code/timeout`` (request-level
/// waits only, such as a publish),
/// ``SwitchboardError/Code/subscriptionRejected``, ``SwitchboardError/Code/protocolViolation``.
/// ``subscribe(_:)`` throws ``SwitchboardError/Code/invalidChannel`` for a target that breaks the
/// naming rules, ``SwitchboardError/Code/invalidConfiguration`` for a target this transport
/// does not speak (another transport's), and ``SwitchboardError/Code/shutDown`` after shutdown.
///
/// ## Addressing
/// The owner never builds a transport's addresses itself: it asks the transport with
/// ``plan(streams:identity:namespace:)`` how to cover the streams consumers want, and subscribes
/// what the plan says. Each envelope names its ``EventEnvelope/eventTypes``, which route it to the
/// streams its subscription serves, and the transport's ``kind`` as its origin.
///
/// `TransportConformance` (in `SwitchboardTesting`) checks this contract point by point; see
/// <doc:WritingATransport>.
public protocol EventTransport: Sendable {
    /// Which protocol this transport speaks: the name it is registered and selected under, and the
    /// origin stamped on the envelopes it delivers.
    var kind: TransportKind { get }

    /// The subscriptions that cover `streams` for `identity`, in this transport's terms.
    ///
    /// A pure function of its arguments (it neither reads state nor sends anything): the owner
    /// calls it whenever the wanted streams, the identity or the transport change, and subscribes
    /// and unsubscribes the difference.
    /// - Parameters:
    ///   - streams: The streams consumers want.
    ///   - identity: Who the transport connects as; ids in addresses come from it.
    ///   - namespace: The backend's channel namespace (`vortex-app` by default).
    /// - Returns: The subscriptions, each with the streams it serves, and the streams that cannot
    ///   be covered (a `userId` that breaks the channel naming rules, say) with the error to report.
    func plan(streams: Set<StreamAddress>, identity: TransportIdentity, namespace: String) -> SubscriptionPlan

    /// Everything the transport reports, in order. Iterate it from one task only.
    var events: TransportEvents { get }

    /// Whether ``TransportEvent/subscriptionEstablished(_:)`` follows the server's
    /// acknowledgement (true), or comes as the subscribe is sent, because the wire dialect has
    /// no acknowledgement (false). Until a subscription is in place on the server, events
    /// published to it are not delivered: a catch-up waits a little longer when this is false.
    var acknowledgesSubscriptions: Bool { get }

    /// Whether every event this transport delivers carries the time the backend logged it (the
    /// contract's `timestamp`, as AppSync Events does), so that a catch-up recognises the live
    /// copy of a fetched event exactly. False (the legacy GraphQL contract, and the default): a
    /// copy is recognised by its fields, its order and the connection it arrived on, and a
    /// catch-up after a (re)connection lets the subscriptions settle before it reads the log,
    /// acknowledged or not (the notifier's `CatchUp.subscriptionSettleTime`).
    var liveEventsCarryLogTimes: Bool { get }

    /// Runs the transport until ``shutDown()`` or cancellation. It returns at once if
    /// ``shutDown()`` came first (the owner may shut down before its task started running),
    /// and throws ``SwitchboardError/Code/shutDown`` if it is already running.
    func run() async throws

    /// Connects as `identity`, replacing any current connection and identity.
    /// - Parameter identity: Who connects, and how to get a fresh token.
    func connect(as identity: TransportIdentity)

    /// Closes the connection and cancels any pending reconnect. Held subscriptions stay held
    /// and are sent again on the next ``connect(as:)``.
    func disconnect()

    /// Adds a subscription. It is sent once connected, and again after every reconnect.
    /// - Parameter request: What to subscribe to, under the owner's key.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/invalidChannel``,
    ///   ``SwitchboardError/Code/invalidConfiguration`` or ``SwitchboardError/Code/shutDown``.
    func subscribe(_ request: SubscriptionRequest) throws

    /// Removes a subscription. The wire `unsubscribe` waits until the subscribe was acknowledged.
    /// - Parameter key: The owner's key; unknown keys are ignored.
    func unsubscribe(_ key: SubscriptionKey)

    /// Closes everything for good and makes ``run()`` return. ``events`` finishes.
    func shutDown()
}

/// Something that happened in a transport.
public enum TransportEvent: Sendable, Equatable {
    /// The connection state changed.
    case connectionStateChanged(ConnectionState)
    /// The server acknowledged the subscription (again, after a reconnect).
    case subscriptionEstablished(SubscriptionKey)
    /// The server rejected the subscription. The transport no longer holds it.
    case subscriptionFailed(SubscriptionKey, SwitchboardError)
    /// An event arrived.
    case received(EventEnvelope)
    /// A problem that did not end the transport: a malformed frame, a keep-alive timeout before a
    /// reconnect, a delivery error reported by the server.
    case error(SwitchboardError)
}

/// The ordered sequence of a transport's events. It has one consumer.
///
/// Its consumer takes buffered events without suspending (it suspends only when none is
/// waiting), and runs on the caller's isolation, so reading it adds little to each event.
public struct TransportEvents: AsyncSequence, Sendable {
    public typealias Element = TransportEvent
    public typealias Failure = Never

    /// An event with when the transport yielded it, for connection-state changes and established
    /// subscriptions only, on the monotonic timeline its reader installed
    /// (``stampingStateChanges(with:)``); nil otherwise.
    package struct Stamped: Sendable {
        package var event: TransportEvent
        package var yieldedAt: Duration?
        /// The share of the connection's ``InboundBudget`` the event holds until its reader is
        /// done with it (the frame it came from).
        package var charge: InboundCharge = .none
    }

    /// The reader's clock. A struct, not a bare function type behind the lock: reading a
    /// function value through the generic `withLock`'s `inout` wraps it in reabstraction thunks
    /// and stores the wrapped copy back, so every read kept two more allocations and made the
    /// next call one layer deeper (swiftlang/swift#91348).
    fileprivate struct Clock: Sendable {
        let now: @Sendable () -> Duration
    }

    private let stream: HandOff<Stamped>
    private let clock: LockedValue<Clock?>

    /// Feeds a ``TransportEvents`` sequence; transports keep it and yield into it.
    public struct Continuation: Sendable {
        fileprivate let continuation: HandOff<Stamped>.Continuation
        fileprivate let clock: LockedValue<Clock?>

        /// Appends an event.
        public func yield(_ event: TransportEvent) {
            var yieldedAt: Duration?
            switch event {
            case .connectionStateChanged, .subscriptionEstablished:
                if let clock = clock.withLock({ $0 }) { yieldedAt = clock.now() }
            default:
                break
            }
            continuation.yield(Stamped(event: event, yieldedAt: yieldedAt))
        }

        /// Appends an event that holds `charge` of its connection's ``InboundBudget`` until the
        /// reader is done with it.
        package func yield(_ event: TransportEvent, charge: InboundCharge) {
            if case .terminated = continuation.yield(Stamped(event: event, yieldedAt: nil, charge: charge)) { charge.release() }
        }

        /// Ends the sequence.
        public func finish() { continuation.finish() }
    }

    /// Makes a sequence and the continuation that feeds it.
    public static func makeStream() -> (events: TransportEvents, continuation: Continuation) {
        let (stream, continuation) = HandOff<Stamped>.makeStream()
        let clock = LockedValue<Clock?>(nil)
        return (TransportEvents(stream: stream, clock: clock), Continuation(continuation: continuation, clock: clock))
    }

    /// From now on, every connection-state change and established subscription is stamped with
    /// `now()` (a moment of the reader's monotonic timeline) as the transport yields it: its
    /// reader may take it later, behind a backlog, and a catch-up matching legacy live copies
    /// needs to know when a connection really opened and when each subscription's start went out
    /// on it.
    package func stampingStateChanges(with now: @escaping @Sendable () -> Duration) {
        clock.withLock { $0 = Clock(now: now) }
    }

    /// The iterator of ``TransportEvents``; make one per sequence.
    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate var base: HandOff<Stamped>.AsyncIterator

        /// The next event; nil once the sequence ended (the transport finished it, or the task
        /// was cancelled) and every event buffered before was handed out.
        public mutating func next() async -> TransportEvent? { await next(isolation: nil) }

        /// The next event, waiting on the caller's isolation.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> TransportEvent? {
            guard let stamped = await base.next(isolation: actor) else { return nil }
            // A plain reader is done with the frame's bytes once it has the event.
            stamped.charge.release()
            return stamped.event
        }

        /// The next event with when it was yielded (see ``TransportEvents/stampingStateChanges(with:)``)
        /// and the bytes of the connection's ``InboundBudget`` it holds: the reader releases them
        /// once it handed the event on, which lets the socket read more.
        package mutating func nextStamped(isolation actor: isolated (any Actor)?) async -> Stamped? {
            await base.next(isolation: actor)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
}

/// Why a transport asks for a token.
public enum TokenRequestReason: Sendable, Hashable {
    /// For a new connection.
    case connect
    /// The server rejected the previous token; this is the one retry.
    case refreshAfterRejection
    /// To authorize one subscribe message.
    case subscribe
    /// To authorize one publish.
    case publish
}

/// Supplies a fresh token each time a transport needs one. Tokens are never cached by transports.
public struct TokenProvider: Sendable {
    private let fetch: @Sendable (TokenRequestReason) async throws -> String

    /// Creates a provider from a closure.
    /// - Parameter fetch: Returns a current token; it may refresh one when the reason is
    ///   ``TokenRequestReason/refreshAfterRejection``.
    public init(_ fetch: @escaping @Sendable (TokenRequestReason) async throws -> String) {
        self.fetch = fetch
    }

    /// A provider that always returns the same token (API keys, tests).
    public static func constant(_ token: String) -> TokenProvider { TokenProvider { _ in token } }

    /// Fetches a token.
    /// - Parameter reason: Why the token is needed.
    public func token(for reason: TokenRequestReason) async throws -> String { try await fetch(reason) }
}

/// Who a transport connects as.
public struct TransportIdentity: Sendable, CustomStringConvertible {
    /// The signed-in user's id; it appears in channel paths and GraphQL variables.
    public var userId: String
    /// The user's organization id.
    public var orgId: String
    /// Where tokens come from.
    public var tokens: TokenProvider

    /// Creates an identity.
    /// - Parameters:
    ///   - userId: The user's id.
    ///   - orgId: The user's organization id.
    ///   - tokens: The token source.
    public init(userId: String, orgId: String, tokens: TokenProvider) {
        self.userId = userId
        self.orgId = orgId
        self.tokens = tokens
    }

    public var description: String { "TransportIdentity(userId: \(userId), orgId: \(orgId))" }
}

extension EventTransport {
    /// True: a transport that does not say otherwise reports a subscription established once
    /// the server acknowledged it.
    public var acknowledgesSubscriptions: Bool { true }

    /// False: a transport that does not say otherwise has its live copies recognised by fields,
    /// order and connection, the cautious way.
    public var liveEventsCarryLogTimes: Bool { false }
}
