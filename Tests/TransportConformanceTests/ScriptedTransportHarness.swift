import SwitchboardCore
import SwitchboardTesting

/// The conformance harness for ``ScriptedTransport`` in automatic mode: the double is its own
/// server, so the controls are its scripting methods. Its rules make it check what a real server
/// does: every connect fetches a token, and the outsider's streams are refused.
struct ScriptedTransportHarness: TransportConformanceHarness {
    let transport: ScriptedTransport

    init(kind: TransportKind) {
        transport = ScriptedTransport(
            kind: kind,
            rules: .init(fetchesTokens: true, refuses: { Conformance.isRefused(Conformance.address($0.target)) }))
    }

    func makeTransport() async throws -> any EventTransport { transport }

    func identity(_ user: TransportConformance.User) -> TransportIdentity {
        let userId = Conformance.userId(user)
        return TransportIdentity(userId: userId, orgId: Conformance.orgId, tokens: .constant("token-of-\(userId)"))
    }

    func target(_ stream: TransportConformance.Stream, for user: TransportConformance.User) -> SubscriptionRequest.Target {
        Conformance.target(transport.kind, stream, userId: Conformance.userId(user))
    }

    /// The outsider's stream, which the double's rules refuse.
    func rejectedTarget(for user: TransportConformance.User) -> SubscriptionRequest.Target {
        Conformance.target(transport.kind, .first, userId: Conformance.outsider)
    }

    func deliver(_ marker: String, on stream: TransportConformance.Stream, for user: TransportConformance.User) async throws {
        let state = transport.state
        let target = target(stream, for: user)
        for (key, request) in state.subscriptions.sorted(by: { $0.key < $1.key })
        where request.target == target && state.established.contains(key) {
            transport.deliver(Conformance.payload(transport.kind, stream, marker: marker), on: key)
        }
    }

    func dropConnections() async throws { transport.dropConnection() }

    func rejectCredentials(_ reject: Bool) async throws { transport.refuseCredentials(reject) }
}
