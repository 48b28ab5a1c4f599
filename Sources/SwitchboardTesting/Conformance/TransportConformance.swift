import SwitchboardCore

/// A conformance suite for `EventTransport` implementations: the contract in the protocol's
/// documentation, check by check, run against a transport through a
/// ``TransportConformanceHarness``.
///
/// ```swift
/// @Test(arguments: TransportConformance.Check.allCases)
/// func conforms(_ check: TransportConformance.Check) async throws {
///     try await TransportConformance(harness: MyHarness()).run(check)
/// }
/// ```
///
/// Each check makes a fresh transport with ``TransportConformanceHarness/makeTransport()``, runs
/// it, drives it as an owner would and watches its `EventTransport.events`. Nothing sleeps on
/// real time to prove a timeout or an absence: an absence is proven by an ordering barrier (a
/// later event that could only come after it), and real time only bounds waiting for something
/// that should happen (``deadline``). A check that fails throws a
/// ``TransportConformanceFailure``.
///
/// See <doc:RunningTheConformanceSuite>.
public struct TransportConformance: Sendable {
    /// The harness that supplies transports and plays the server.
    public let harness: any TransportConformanceHarness
    /// How long to wait for something that should happen before the check fails: a liveness
    /// guard, never a delay the checks depend on.
    public let deadline: Duration

    /// Creates a suite.
    /// - Parameters:
    ///   - harness: Supplies transports and plays the server.
    ///   - deadline: How long to wait for an expected event before failing; generous by default,
    ///     since a loaded machine may be slow.
    public init(harness: any TransportConformanceHarness, deadline: Duration = .seconds(20)) {
        self.harness = harness
        self.deadline = deadline
    }

    /// Runs one check with a fresh transport.
    /// - Parameter check: The check to run.
    /// - Throws: ``TransportConformanceFailure`` when the transport breaks the contract, or when the
    ///   harness fails (the failure then says so).
    public func run(_ check: Check) async throws(TransportConformanceFailure) {
        let transport: any EventTransport
        do {
            transport = try await harness.makeTransport()
        } catch {
            throw TransportConformanceFailure(check: check, expected: "the harness to make a transport", observed: "it threw \(error)")
        }
        let session = Session(check: check, transport: transport, harness: harness, deadline: deadline)
        do {
            try await session.perform { session, group in try await session.run(check, group: &group) }
        } catch let failure as TransportConformanceFailure {
            throw failure
        } catch {
            throw session.failure(expected: "the check to run to its end", observed: "it stopped with \(error)")
        }
    }

    /// Runs every check, one after the other, each with a fresh transport.
    /// - Returns: Every check, in the order of `Check.allCases`, with its failure, or nil where
    ///   the transport passed.
    public func runAll() async -> [(check: Check, failure: TransportConformanceFailure?)] {
        var results: [(check: Check, failure: TransportConformanceFailure?)] = []
        for check in Check.allCases {
            do throws(TransportConformanceFailure) {
                try await run(check)
                results.append((check, nil))
            } catch {
                results.append((check, error))
            }
        }
        return results
    }
}

extension TransportConformance {
    /// One point of the `EventTransport` contract, checked on its own. Each case says what the
    /// check does; ``summary`` says what it proves.
    public enum Check: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Runs and connects, then shuts down; `run()` must return without throwing.
        case runReturnsAfterShutDown
        /// Runs and connects, then cancels the task running `run()`, which must return.
        case runReturnsWhenCancelled
        /// Shuts down before `run()`; `run()` must then return at once and the events finish.
        case shutDownBeforeRunReturnsAtOnce
        /// Calls `run()` while it runs; one call must throw `shutDown`, the other return after `shutDown()`.
        case secondRunThrowsShutDown
        /// Connects and subscribes, then shuts down; the events must finish, `shutDown` the last state.
        case eventsFinishAfterShutDown
        /// Shuts down a connected transport; `subscribe(_:)` must then throw `shutDown`.
        case subscribeAfterShutDownThrows
        /// Subscribes to malformed channels (a channel-addressed transport) and to a target of another transport.
        case invalidTargetsThrow
        /// Plans every catalog stream, twice, then subscribes what the plan says before connecting.
        case planCoversEveryStream
        /// Connects; the states must be `connecting(attempt: 1)`, then `connected`.
        case connectReportsConnectingThenConnected
        /// Connects, has the server drop the connection, then connects as the second user, counting token fetches.
        case connectFetchesFreshTokens
        /// Subscribes before and after connecting, has events delivered on both streams, checks order and keys.
        case subscribeEstablishesThenDelivers
        /// Unsubscribes one of two subscriptions; an event on its stream must not arrive before a later one on the other.
        case unsubscribeStopsDelivery
        /// Removes a subscription before connecting, and another right after subscribing; neither may deliver.
        case unsubscribeBeforeEstablished
        /// Has the server drop the connection; both held subscriptions must be established again and deliver.
        case reconnectResubscribes
        /// Subscribes to the harness's rejected target beside an accepted one.
        case rejectedSubscriptionFailsAlone
        /// Subscribes to the rejected target; it must fail without being reported established first.
        case rejectedSubscriptionIsNeverEstablished
        /// Has a subscription rejected, then the connection dropped; the rejected one must not come back.
        case rejectedSubscriptionIsNotResent
        /// Has the server refuse credentials, connects, then connects as the second user as a barrier.
        case authFailureRefreshesOnceThenExpires
        /// Has the server refuse credentials until the transport asks for a refreshed token.
        case authFailureRecoversWithRefreshedToken
        /// Disconnects, then connects again as a barrier; the held subscription must deliver again.
        case disconnectStopsAndKeepsSubscriptions
        /// Unsubscribes, connects as the second user and subscribes to that user's stream, as an owner does.
        case connectAsNewIdentityReplacesConnection

        /// What the check proves, in one sentence.
        public var summary: String {
            switch self {
            case .runReturnsAfterShutDown:
                "run() returns, without throwing, after shutDown()"
            case .runReturnsWhenCancelled:
                "run() returns when its task is cancelled"
            case .shutDownBeforeRunReturnsAtOnce:
                "run() returns at once when shutDown() came first, and events finish"
            case .secondRunThrowsShutDown:
                "a second run() while one is running throws shutDown; the first returns after shutDown()"
            case .eventsFinishAfterShutDown:
                "events finish after shutDown(), the last state reported being shutDown"
            case .subscribeAfterShutDownThrows:
                "subscribe() throws shutDown after shutDown()"
            case .invalidTargetsThrow:
                "subscribe() throws invalidChannel for a channel that breaks the naming rules and invalidConfiguration for a target of another transport"
            case .planCoversEveryStream:
                "plan(streams:identity:namespace:) serves or fails every stream it is given and no other, gives the same plan twice, and subscribe() accepts every request it plans"
            case .connectReportsConnectingThenConnected:
                "connect(as:) reports connecting(attempt: 1), then connected"
            case .connectFetchesFreshTokens:
                "every connect, reconnects included, fetches a fresh token from the identity it connects as"
            case .subscribeEstablishesThenDelivers:
                "a subscription (made before or after connecting) is established, then delivers its events in order, tagged with its key"
            case .unsubscribeStopsDelivery:
                "after unsubscribe() a subscription delivers nothing more while others keep delivering; unknown keys are ignored"
            case .unsubscribeBeforeEstablished:
                "a subscription removed before it was sent or acknowledged never delivers"
            case .reconnectResubscribes:
                "after the server drops the connection the transport reconnects, establishes every held subscription again and delivers"
            case .rejectedSubscriptionFailsAlone:
                "a rejected subscription fails with subscriptionRejected; the connection and other subscriptions are unaffected"
            case .rejectedSubscriptionIsNeverEstablished:
                "a subscription the server refuses is never reported established: subscriptionEstablished waits for the server's acknowledgement (a transport whose acknowledgesSubscriptions is false reports it as it sends the subscribe)"
            case .rejectedSubscriptionIsNotResent:
                "a rejected subscription is no longer held: it is not sent again after a reconnect"
            case .authFailureRefreshesOnceThenExpires:
                "refused credentials at connect fetch one token with refreshAfterRejection, then report disconnected(sessionExpired) and stop"
            case .authFailureRecoversWithRefreshedToken:
                "refused credentials at connect fetch one token with refreshAfterRejection and, when the server accepts that one, connect"
            case .disconnectStopsAndKeepsSubscriptions:
                "disconnect() reports idle (or disconnected without error) and does not reconnect; held subscriptions are sent again on the next connect"
            case .connectAsNewIdentityReplacesConnection:
                "connect(as:) with a new identity replaces the connection without a reconnect cycle, and the new identity subscribes and receives"
            }
        }

        public var description: String { rawValue }
    }
}
