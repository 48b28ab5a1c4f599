import Switchboard
import SwitchboardTesting
import Testing

@Suite("ScriptedNetworkPaths")
struct ScriptedNetworkPathsTests {
    @Test("every sequence starts with the current path and gets each one sent, repeats included; finish ends them")
    func sequences() async {
        let paths = ScriptedNetworkPaths(.satisfied(.wifi))
        var first = paths.paths().makeAsyncIterator()
        #expect(await first.next() == .satisfied(.wifi))
        paths.send(.unsatisfied)
        paths.send(.unsatisfied)
        var second = paths.paths().makeAsyncIterator()
        #expect(paths.requestCount == 2)
        #expect(await first.next() == .unsatisfied)
        #expect(await first.next() == .unsatisfied)
        #expect(await second.next() == .unsatisfied)
        paths.finish()
        #expect(await first.next() == nil)
        #expect(await second.next() == nil)
        #expect(paths.sent == [.unsatisfied, .unsatisfied])
    }

    @Test("a notifier driven by it closes on a lost path and connects again when it returns")
    func drivesANotifier() async throws {
        let transport = ScriptedTransport(kind: .appsync)
        let session = SessionSource(.signedIn(userId: "u1", orgId: "o1") { _ in "t" })
        let paths = ScriptedNetworkPaths(.satisfied(.wifi))
        let notifier = BackendNotifier(transport: transport, session: session, configuration: .init(networkPaths: paths))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await notifier.run() }
            let roles = await notifier.roleValues()
            await transport.waitUntil { $0.isConnected && !$0.established.isEmpty }
            paths.send(.unsatisfied)
            await transport.waitUntil { $0.commands.last == .disconnect }
            paths.send(.satisfied(.cellular))
            await transport.waitUntil { $0.connectionCount == 2 }
            #expect(paths.requestCount == 1)
            withExtendedLifetime(roles) {}
            await notifier.shutDown()
            try await group.waitForAll()
        }
    }
}
