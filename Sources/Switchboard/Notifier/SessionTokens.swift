import SwitchboardCore

/// The signed-in session's token provider, which the identities transports connect with read at
/// every request, so a new provider for the same user takes effect without a reconnect.
struct SessionTokens: Sendable {
    private let provider = LockedValue<TokenProvider?>(nil)

    /// Makes `tokens` the provider every identity from ``identity(for:)`` reads; nil signs out.
    func use(_ tokens: TokenProvider?) { provider.withLock { $0 = tokens } }

    /// What a transport connects as: the session's user and organization, and tokens from
    /// whichever provider the session holds at the time of each request.
    func identity(for identity: TransportIdentity) -> TransportIdentity {
        let provider = provider
        return TransportIdentity(userId: identity.userId, orgId: identity.orgId, tokens: TokenProvider { reason in
            guard let current = provider.withLock({ $0 }) else {
                throw SwitchboardError(code: .sessionExpired, message: "signed out")
            }
            return try await current.token(for: reason)
        })
    }
}
