import Switchboard
import Testing

@Suite("Session source", .timeLimit(.minutes(1)))
struct SessionSourceTests {
    @Test("each observer gets the current session, then every update")
    func observers() async {
        let source = SessionSource()
        var first = source.updates().makeAsyncIterator()
        source.update(.signedIn(userId: "u1", orgId: "o1") { _ in "t" })
        var second = source.updates().makeAsyncIterator()
        source.update(.signedOut)
        #expect(await first.next()?.identity == nil)
        #expect(await first.next()?.identity?.userId == "u1")
        #expect(await first.next()?.identity == nil)
        #expect(await second.next()?.identity?.userId == "u1")
        #expect(await second.next()?.identity == nil)
        #expect(source.current.identity == nil)
    }

    @Test("the token provider is asked for a fresh token each time, with the reason")
    func tokens() async throws {
        let counter = LockedBox(0)
        let session = Session.signedIn(userId: "u1", orgId: "o1") { reason in
            counter.mutate { $0 += 1 }
            return "\(reason)-\(counter.value)"
        }
        let identity = try #require(session.identity)
        #expect(try await identity.tokens.token(for: .connect) == "connect-1")
        #expect(try await identity.tokens.token(for: .refreshAfterRejection) == "refreshAfterRejection-2")
        #expect("\(identity)" == "TransportIdentity(userId: u1, orgId: o1)", "descriptions never show tokens")
    }
}
