import SwitchboardCore

/// A conformance suite for ``EventTransport`` implementations: the contract in the protocol's
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
/// it, drives it as an owner would and watches its ``EventTransport/events``. Nothing sleeps on
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

    /// How a check ended, when it did not fail.
    public enum Outcome: Sendable, Equatable {
        /// The transport did what the contract asks.
        case passed
        /// The check does not apply to this kind of transport; the reason says why.
        case notApplicable(String)
    }

    /// Runs one check with a fresh transport.
    /// - Parameter check: The check to run.
    /// - Returns: ``Outcome/passed``, or ``Outcome/notApplicable(_:)`` for a check that does not
    ///   apply to the transport's kind.
    /// - Throws: ``TransportConformanceFailure`` when the transport breaks the contract, or when the
    ///   harness fails (the failure then says so).
    @discardableResult
    public func run(_ check: Check) async throws(TransportConformanceFailure) -> Outcome {
        let transport: any EventTransport
        do {
            transport = try await harness.makeTransport()
        } catch {
            throw TransportConformanceFailure(check: check, expected: "the harness to make a transport", observed: "it threw \(error)")
        }
        let session = Session(check: check, transport: transport, harness: harness, deadline: deadline)
        do {
            return try await session.perform { session, group in try await session.run(check, group: &group) }
        } catch let failure as TransportConformanceFailure {
            throw failure
        } catch {
            throw session.failure(expected: "the check to run to its end", observed: "it stopped with \(error)")
        }
    }

    /// Runs every check, one after the other, each with a fresh transport.
    /// - Returns: Each check's outcome or failure, in the order of ``Check/allCases``.
    public func runAll() async -> [(check: Check, result: Result<Outcome, TransportConformanceFailure>)] {
        var results: [(check: Check, result: Result<Outcome, TransportConformanceFailure>)] = []
        for check in Check.allCases {
            do throws(TransportConformanceFailure) {
                results.append((check, .success(try await run(check))))
            } catch {
                results.append((check, .failure(error)))
            }
        }
        return results
    }
}

extension TransportConformance {
    /// One point of the ``EventTransport`` contract, checked on its own.
    public enum Check: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case runReturnsAfterShutDown
        case runReturnsWhenCancelled
        case shutDownBeforeRunReturnsAtOnce
        case secondRunThrowsShutDown
        case eventsFinishAfterShutDown
        case subscribeAfterShutDownThrows
        case invalidTargetsThrow
        case connectReportsConnectingThenConnected
        case connectFetchesFreshTokens
        case subscribeEstablishesThenDelivers
        case unsubscribeStopsDelivery
        case unsubscribeBeforeEstablished
        case reconnectResubscribes
        case rejectedSubscriptionFailsAlone
        case rejectedSubscriptionIsNeverEstablished
        case rejectedSubscriptionIsNotResent
        case authFailureRefreshesOnceThenExpires
        case disconnectStopsAndKeepsSubscriptions
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
                "subscribe() throws invalidChannel for a channel that breaks the naming rules and invalidConfiguration for a target of the other transport"
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
                "a subscription the server refuses is never reported established: subscriptionEstablished waits for the server's acknowledgement"
            case .rejectedSubscriptionIsNotResent:
                "a rejected subscription is no longer held: it is not sent again after a reconnect"
            case .authFailureRefreshesOnceThenExpires:
                "refused credentials at connect fetch one token with refreshAfterRejection, then report disconnected(sessionExpired) and stop"
            case .disconnectStopsAndKeepsSubscriptions:
                "disconnect() reports idle (or disconnected without error) and does not reconnect; held subscriptions are sent again on the next connect"
            case .connectAsNewIdentityReplacesConnection:
                "connect(as:) with a new identity replaces the connection without a reconnect cycle, and the new identity subscribes and receives"
            }
        }

        public var description: String { rawValue }
    }
}
