/// When, and after how long, a transport reconnects after losing its connection.
///
/// A policy is a pure value: ``decision(for:attempt:using:)`` looks only at its arguments, never at
/// a clock or a global random source, so every outcome can be reproduced in a test with a
/// seeded generator.
///
/// Whatever the strategy, a policy never reconnects while signed out, never reconnects after an
/// expired session (that would loop on a credential the server keeps rejecting), and by default
/// does not reconnect after a normal close (see ``reconnectAfterNormalClose``).
///
/// ```swift
/// var random = SystemRandomNumberGenerator()
/// switch policy.decision(for: disconnect, attempt: attempt, using: &random) {
/// case .reconnect(let delay): try await clock.sleep(for: delay)
/// case .stop(let reason): logger.debug("not reconnecting: \(reason)")
/// }
/// ```
public struct ReconnectPolicy: Sendable, Hashable, CustomStringConvertible {
    private enum Strategy: Sendable, Hashable {
        case fixed(delay: Duration, maxAttempts: Int?)
        case exponential(initial: Duration, maximum: Duration, multiplier: Double, maxAttempts: Int?)
        case never
    }

    private var strategy: Strategy

    /// Whether a normal close (see ``Disconnect/isNormal``) is retried too. Default: `false`,
    /// so a normal close ends the connection for good.
    public var reconnectAfterNormalClose: Bool

    private init(_ strategy: Strategy, reconnectAfterNormalClose: Bool = false) {
        self.strategy = strategy
        self.reconnectAfterNormalClose = reconnectAfterNormalClose
    }

    /// The default: a fixed 10-second delay, only after a close that was not normal, never while
    /// signed out, with no limit on the number of attempts.
    public static let standard = ReconnectPolicy(.fixed(delay: .seconds(10), maxAttempts: nil))

    /// A policy that never reconnects.
    public static let never = ReconnectPolicy(.never)

    /// Reconnects after the same delay every time.
    /// - Parameters:
    ///   - delay: The wait before each attempt; a negative delay counts as zero.
    ///   - maxAttempts: How many consecutive attempts to make before giving up; `nil` means no
    ///     limit, and zero or less means none.
    ///   - reconnectAfterNormalClose: Whether a normal close is retried too.
    /// - Returns: The policy.
    public static func fixedDelay(
        _ delay: Duration, maxAttempts: Int? = nil, reconnectAfterNormalClose: Bool = false
    ) -> ReconnectPolicy {
        ReconnectPolicy(
            .fixed(delay: max(delay, .zero), maxAttempts: maxAttempts),
            reconnectAfterNormalClose: reconnectAfterNormalClose)
    }

    /// Reconnects after an exponentially growing delay with full jitter: attempt `n` waits a
    /// uniformly random time in `0...min(maximumDelay, initialDelay · multiplierⁿ⁻¹)`.
    ///
    /// Full jitter spreads the reconnects of many clients that lost the same server, so they do
    /// not all return at once.
    /// - Parameters:
    ///   - initialDelay: The cap for the first attempt; a negative value counts as zero.
    ///   - maximumDelay: The largest cap, reached after enough attempts; it is never less than
    ///     `initialDelay`.
    ///   - multiplier: How much the cap grows per attempt; values below 1 count as 1.
    ///   - maxAttempts: How many consecutive attempts to make before giving up; `nil` means no
    ///     limit, and zero or less means none.
    ///   - reconnectAfterNormalClose: Whether a normal close is retried too.
    /// - Returns: The policy.
    public static func exponentialBackoff(
        initialDelay: Duration = .seconds(1),
        maximumDelay: Duration = .seconds(60),
        multiplier: Double = 2,
        maxAttempts: Int? = nil,
        reconnectAfterNormalClose: Bool = false
    ) -> ReconnectPolicy {
        let initial = max(initialDelay, .zero)
        let multiplier = multiplier.isNaN ? 1 : max(multiplier, 1)
        return ReconnectPolicy(
            .exponential(
                initial: initial, maximum: max(maximumDelay, initial), multiplier: multiplier,
                maxAttempts: maxAttempts),
            reconnectAfterNormalClose: reconnectAfterNormalClose)
    }

    /// Decides whether to reconnect after `disconnect`, and after how long.
    ///
    /// The checks run in this order: signed out → stop; ``SwitchboardError/Code/sessionExpired``
    /// failure → stop; normal close (unless ``reconnectAfterNormalClose``) → stop; the strategy
    /// is ``never`` or `attempt` is past its `maxAttempts` → stop; otherwise reconnect after the
    /// strategy's delay.
    /// - Parameters:
    ///   - disconnect: What happened to the connection.
    ///   - attempt: Which retry this would be: 1 for the first one after a connection was lost,
    ///     counting up while attempts keep failing. Values below 1 count as 1.
    ///   - random: The source of jitter. Only the exponential strategy draws from it, exactly one
    ///     value per decision, so a seeded generator gives the same delays every run.
    /// - Returns: ``ReconnectDecision/reconnect(after:)`` or ``ReconnectDecision/stop(reason:)``.
    public func decision(
        for disconnect: Disconnect, attempt: Int, using random: inout some RandomNumberGenerator
    ) -> ReconnectDecision {
        let attempt = max(attempt, 1)
        guard disconnect.isSignedIn else {
            return .stop(reason: "signed out")
        }
        if case .failed(let error) = disconnect.reason, error.code == .sessionExpired {
            return .stop(reason: "session expired: \(error.message)")
        }
        if disconnect.isNormal, !reconnectAfterNormalClose {
            return .stop(reason: "normal close (\(disconnect.reason))")
        }
        switch strategy {
        case .never:
            return .stop(reason: "the policy never reconnects")
        case .fixed(let delay, let maxAttempts):
            if let stop = Self.limitReached(attempt: attempt, maxAttempts: maxAttempts) { return stop }
            return .reconnect(after: delay)
        case .exponential(let initial, let maximum, let multiplier, let maxAttempts):
            if let stop = Self.limitReached(attempt: attempt, maxAttempts: maxAttempts) { return stop }
            let cap = Self.cap(attempt: attempt, initial: initial, maximum: maximum, multiplier: multiplier)
            return .reconnect(after: cap * Self.unitInterval(using: &random))
        }
    }

    /// Describes the strategy, for logs.
    public var description: String {
        let normal = reconnectAfterNormalClose ? ", after normal close too" : ""
        switch strategy {
        case .never:
            return "never"
        case .fixed(let delay, let maxAttempts):
            return "fixedDelay(\(delay), maxAttempts: \(maxAttempts.map(String.init) ?? "unlimited")\(normal))"
        case .exponential(let initial, let maximum, let multiplier, let maxAttempts):
            return "exponentialBackoff(\(initial)...\(maximum), ×\(multiplier), "
                + "maxAttempts: \(maxAttempts.map(String.init) ?? "unlimited")\(normal))"
        }
    }

    private static func limitReached(attempt: Int, maxAttempts: Int?) -> ReconnectDecision? {
        guard let maxAttempts, attempt > maxAttempts else { return nil }
        return .stop(reason: "gave up after \(max(maxAttempts, 0)) attempts")
    }

    /// `min(maximum, initial · multiplier^(attempt − 1))`, computed without overflowing.
    private static func cap(attempt: Int, initial: Duration, maximum: Duration, multiplier: Double) -> Duration {
        guard initial > .zero else { return .zero }
        let factor = pow(multiplier, attempt - 1)
        guard factor.isFinite, factor < maximum / initial else { return maximum }
        return min(initial * factor, maximum)
    }

    /// A uniformly distributed value in `0...1` with 53 bits of precision, from one draw.
    private static func unitInterval(using random: inout some RandomNumberGenerator) -> Double {
        let bits: UInt64 = random.next() >> 11
        return Double(bits) / Double((UInt64(1) << 53) - 1)
    }

    /// `base` raised to `exponent`, by squaring, so the core module needs no math library.
    private static func pow(_ base: Double, _ exponent: Int) -> Double {
        var result = 1.0
        var square = base
        var remaining = exponent
        while remaining > 0 {
            if remaining & 1 == 1 { result *= square }
            remaining >>= 1
            if remaining > 0 { square *= square }
            if !result.isFinite { return .infinity }
        }
        return result
    }
}

/// What a ``ReconnectPolicy`` decided.
public enum ReconnectDecision: Sendable, Hashable {
    /// Reconnect once the delay has passed.
    case reconnect(after: Duration)
    /// Do not reconnect; `reason` says why, for logs.
    case stop(reason: String)
}

extension ReconnectPolicy {
    /// What happened to a connection, as a ``ReconnectPolicy`` needs to know it.
    ///
    /// A close is *normal* when the client asked for it, or when the server closed with code
    /// 1000 (``WebSocketCloseCode/normalClosure``). AWS AppSync closes with 1000 even when
    /// something went wrong, so a transport that knows better (for example, it did not ask for
    /// the close) passes its own verdict with ``init(_:isSignedIn:isNormal:)``.
    public struct Disconnect: Sendable, Equatable {
        /// Why the connection ended.
        public enum Reason: Sendable, Equatable, CustomStringConvertible {
            /// The client asked to close.
            case requested
            /// The server closed the socket with this close frame.
            case closed(WebSocketClose)
            /// The connection failed: a socket error, a timeout, a rejected handshake.
            case failed(SwitchboardError)

            /// A short description, for logs.
            public var description: String {
                switch self {
                case .requested: "requested by the client"
                case .closed(let close): close.reason.isEmpty ? "closed \(close.code)" : "closed \(close.code): \(close.reason)"
                case .failed(let error): "failed: \(error.code): \(error.message)"
                }
            }
        }

        /// Why the connection ended.
        public var reason: Reason
        /// Whether a user was signed in when the connection ended.
        public var isSignedIn: Bool
        /// Whether the close counts as normal; a normal close is not retried unless the policy
        /// sets ``ReconnectPolicy/reconnectAfterNormalClose``.
        public var isNormal: Bool

        /// Describes a lost connection, classifying the close by the rule above: normal when
        /// `reason` is ``Reason/requested`` or a close with code 1000.
        /// - Parameters:
        ///   - reason: Why the connection ended.
        ///   - isSignedIn: Whether a user was signed in.
        public init(_ reason: Reason, isSignedIn: Bool) {
            let isNormal: Bool
            switch reason {
            case .requested: isNormal = true
            case .closed(let close): isNormal = close.code == .normalClosure
            case .failed: isNormal = false
            }
            self.init(reason, isSignedIn: isSignedIn, isNormal: isNormal)
        }

        /// Describes a lost connection with the transport's own verdict on whether the close was
        /// normal (for example, an AppSync close with code 1000 the client did not ask for is not).
        /// - Parameters:
        ///   - reason: Why the connection ended.
        ///   - isSignedIn: Whether a user was signed in.
        ///   - isNormal: Whether the close counts as normal.
        public init(_ reason: Reason, isSignedIn: Bool, isNormal: Bool) {
            self.reason = reason
            self.isSignedIn = isSignedIn
            self.isNormal = isNormal
        }
    }
}
