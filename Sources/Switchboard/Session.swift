import SwitchboardCore

/// Whether someone is signed in, and as whom.
public enum Session: Sendable, CustomStringConvertible {
    /// Nobody is signed in: no connection, no reconnect.
    case signedOut
    /// A user is signed in.
    case signedIn(TransportIdentity)

    /// A signed-in session.
    /// - Parameters:
    ///   - userId: The user's id.
    ///   - orgId: The user's organization id.
    ///   - tokenProvider: Returns a fresh token each time one is needed.
    public static func signedIn(
        userId: String, orgId: String,
        tokenProvider: @escaping @Sendable (TokenRequestReason) async throws -> String
    ) -> Session {
        .signedIn(TransportIdentity(userId: userId, orgId: orgId, tokens: TokenProvider(tokenProvider)))
    }

    /// The signed-in identity, if any.
    public var identity: TransportIdentity? {
        if case .signedIn(let identity) = self { return identity }
        return nil
    }

    public var description: String {
        switch self {
        case .signedOut: "signedOut"
        case .signedIn(let identity): "signedIn(userId: \(identity.userId), orgId: \(identity.orgId))"
        }
    }
}

/// The app's sign-in state, which ``BackendNotifier`` follows.
///
/// Call ``update(_:)`` from your authentication code whenever the user signs in or out or
/// switches organization. Every observer sees the current session first, then each change.
public final class SessionSource: Sendable {
    private struct State {
        var current: Session
        var observers: [Int: AsyncStream<Session>.Continuation] = [:]
        var nextObserver = 0
    }

    private let state: LockedValue<State>

    /// Creates a source.
    /// - Parameter initial: The session at start; signed out by default.
    public init(_ initial: Session = .signedOut) {
        state = LockedValue(State(current: initial))
    }

    /// The current session.
    public var current: Session { state.withLock { $0.current } }

    /// Replaces the current session and tells every observer.
    /// - Parameter session: The new session.
    public func update(_ session: Session) {
        // Yield under the lock (it only enqueues), so concurrent updates reach every observer
        // in the order they were applied and the last update is always the current session.
        state.withLock { state in
            state.current = session
            for observer in state.observers.values { observer.yield(session) }
        }
    }

    /// A new, independent sequence of sessions: the current one, then every update.
    public func updates() -> AsyncStream<Session> {
        let (stream, continuation) = AsyncStream<Session>.makeStream()
        let id = state.withLock { state in
            let id = state.nextObserver
            state.nextObserver += 1
            state.observers[id] = continuation
            continuation.yield(state.current)
            return id
        }
        continuation.onTermination = { [state] _ in
            _ = state.withLock { $0.observers.removeValue(forKey: id) }
        }
        return stream
    }
}
