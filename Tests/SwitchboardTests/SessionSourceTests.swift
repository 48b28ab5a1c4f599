import Switchboard
import SwitchboardCore
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

    @Test("a session signed in without a token provider refuses a token with invalidConfiguration that says what to pass")
    func withoutTokenProvider() async throws {
        let identity = try #require(Session.signedIn(userId: "u1", orgId: "o1").identity)
        #expect(identity.userId == "u1" && identity.orgId == "o1")
        await #expect {
            _ = try await identity.tokens.token(for: .connect)
        } throws: { error in
            guard let error = error as? SwitchboardError else { return false }
            return error.code == .invalidConfiguration && error.message.contains(".signedIn(userId:orgId:tokenProvider:)")
        }
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

@Suite("Session source ordering", .timeLimit(.minutes(1)))
struct SessionSourceOrderingTests {
    @Test("concurrent updates reach an observer in the order they were applied", arguments: 0..<5)
    // A stress test: the reordering it guards against needs two updates to interleave
    // between the state change and the yield, so a regression shows up only in some rounds.
    func concurrentUpdates(round: Int) async {
        let source = SessionSource()
        let updates = 200
        var observer = source.updates().makeAsyncIterator()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<updates {
                group.addTask {
                    source.update(index.isMultiple(of: 2) ? .signedOut : .signedIn(userId: "u\(index)", orgId: "o") { _ in "t" })
                }
            }
        }
        var last: Session?
        for _ in 0...updates { last = await observer.next() }
        #expect(last?.identity?.userId == source.current.identity?.userId, "round \(round): the observer's last session is the current one")
    }
}
