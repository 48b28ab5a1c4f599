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

    /// A signed-in session without a token provider, for a transport that carries its own
    /// credentials and never asks the session for a token: AppSync Events with `.apiKey(_:)`,
    /// `.iam(region:credentials:)` or `.token(_:)`.
    ///
    /// A transport that does ask (AppSync Events with `.sessionToken`, the GraphQL transport)
    /// gets a ``/SwitchboardCore/SwitchboardError`` with
    /// ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` saying that this session
    /// has no token provider, and reports it as a connect failure.
    /// - Parameters:
    ///   - userId: The user's id.
    ///   - orgId: The user's organization id.
    public static func signedIn(userId: String, orgId: String) -> Session {
        .signedIn(TransportIdentity(userId: userId, orgId: orgId, tokens: TokenProvider { _ in
            throw SwitchboardError(
                code: .invalidConfiguration,
                message: "the session was signed in without a token provider, but the transport asks it for a token: "
                    + "sign in with .signedIn(userId:orgId:tokenProvider:), or authorize the transport with its own credentials (an API key, IAM)")
        }))
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
