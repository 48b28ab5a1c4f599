import Foundation
import Synchronization
import Switchboard
import SwitchboardCore
import SwitchboardTesting
import Testing

@Suite("Transport registry: an open transport identity")
struct TransportRegistryTests {
    @Test("names follow the rules: lower-case letters, digits and -, starting with a letter")
    func names() throws {
        #expect(TransportKind(rawValue: "sse") == "sse")
        #expect(TransportKind(rawValue: "mqtt-3") != nil)
        for bad in ["", "SSE", "3g", "a b", "web_socket", String(repeating: "a", count: 33)] {
            #expect(TransportKind(rawValue: bad) == nil, "\(bad.debugDescription)")
        }
        let decoded = try JSONDecoder().decode([TransportKind].self, from: Data(#"["appsync","sse"]"#.utf8))
        #expect(decoded == [.appsync, "sse"])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TransportKind.self, from: Data(#""Not A Name""#.utf8)) }
        let text = String(decoding: try JSONEncoder().encode(TransportKind.graphql), as: UTF8.self)
        #expect(text == #""graphql""#)
    }

    @Test("the built-in kinds still match as enum cases did")
    func builtInPatterns() {
        func label(_ kind: TransportKind) -> String {
            switch kind {
            case .appsync: "new"
            case .graphql: "legacy"
            default: "other"
            }
        }
        #expect(TransportKind.builtIn.map(label) == ["legacy", "new"])
        #expect(label("sse") == "other")
    }

    @Test("an unknown name is an invalidConfiguration error that lists the registered names")
    func unknownName() throws {
        var transports = TransportRegistry()
        transports.register(.appsync) { ScriptedTransport(kind: .appsync) }
        transports.register("sse") { ScriptedTransport(kind: "sse") }
        #expect(transports.kinds == [.appsync, "sse"])
        let error = try #require(throws: SwitchboardError.self) { try transports.makeTransport(.graphql) }
        #expect(error.code == .invalidConfiguration)
        #expect(error.message == #"no transport is registered as "graphql"; registered: appsync, sse"#)
        let parsed = try #require(throws: SwitchboardError.self) {
            try TransportSelection.resolve(environment: ["SWITCHBOARD_TRANSPORT": "mqtt"], registered: transports.kinds)
        }
        #expect(parsed.message.contains("allowed values: appsync, sse"))
        #expect(try TransportSelection.resolve(environment: ["SWITCHBOARD_TRANSPORT": " SSE "], registered: transports.kinds).kind == "sse")
    }

    @Test("a factory that makes another kind is refused, and what it made is shut down")
    func wrongKind() throws {
        let made = ScriptedTransport(kind: .graphql)
        var transports = TransportRegistry()
        transports.register("sse") { made }
        let error = try #require(throws: SwitchboardError.self) { try transports.makeTransport("sse") }
        #expect(error.code == .invalidConfiguration)
        #expect(made.state.isShutDown)
    }

    @Test("registering a name again replaces its factory and keeps its place")
    func replace() throws {
        var transports = TransportRegistry()
        transports.register("sse") { ScriptedTransport(kind: .graphql) }
        transports.register(.appsync) { ScriptedTransport(kind: .appsync) }
        transports.register("sse") { ScriptedTransport(kind: "sse") }
        #expect(transports.kinds == ["sse", .appsync])
        #expect(try transports.makeTransport("sse").kind == "sse")
    }

    @Test("a notifier switches live between a registered transport and the built-in ones, in any order")
    func liveSwitching() async throws {
        let made = Mutex<[ScriptedTransport]>([])
        var transports = TransportRegistry()
        for kind: TransportKind in [.appsync, "push", .graphql] {
            transports.register(kind) {
                let transport = ScriptedTransport(kind: kind)
                made.withLock { $0.append(transport) }
                return transport
            }
        }
        let session = SessionSource()
        let notifier = try BackendNotifier(
            selection: TransportSelection(kind: "push", source: .code), transports: transports, session: session)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await notifier.run() }
            var roles = await notifier.roleValues().makeAsyncIterator()
            session.update(.signedIn(userId: "u1", orgId: "o1") { _ in "token" })
            let order: [TransportKind] = ["push", .graphql, .appsync, "push"]
            for (index, kind) in order.enumerated() {
                if index > 0 { try await notifier.switchTransport(to: kind) }
                #expect(notifier.transportKind == kind)
                let transport = try #require(made.withLock { $0.last })
                #expect(transport.kind == kind)
                await transport.waitUntil { $0.established.count == 1 }
                let key = try #require(transport.state.established.first)
                let payload = kind == .graphql
                    ? #"{"subscribeRoleChange":{"reason":"r\#(index)"}}"#
                    : #"{"eventType":"user/roleChanged","timestamp":"2026-11-27T10:00:00.000Z","reason":"r\#(index)"}"#
                transport.deliver(payload, on: key)
                #expect(await roles.next()?.reason == "r\(index)", "over \(kind)")
            }
            let refused = try await #require(throws: SwitchboardError.self) { try await notifier.switchTransport(to: "mqtt") }
            #expect(refused.message.contains("registered: appsync, push, graphql"))
            #expect(notifier.transportKind == "push")
            await notifier.shutDown()
            try await group.waitForAll()
        }
    }
}
