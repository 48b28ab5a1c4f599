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
    private let broadcast: CurrentValueBroadcast<Session>

    /// Creates a source.
    /// - Parameter initial: The session at start; signed out by default.
    public init(_ initial: Session = .signedOut) {
        broadcast = CurrentValueBroadcast(initial)
    }

    /// The current session.
    public var current: Session { broadcast.current ?? .signedOut }

    /// Replaces the current session and tells every observer.
    /// - Parameter session: The new session.
    public func update(_ session: Session) { broadcast.update(session) }

    /// A new, independent sequence of sessions: the current one, then every update.
    public func updates() -> AsyncStream<Session> { broadcast.values() }
}
