import Foundation
@testable import SwitchboardGraphQL
import Switchboard
import SwitchboardCore
import SwitchboardTesting
import Testing

/// A real `BackendNotifier` over a `GraphQLSubscriber` whose sockets are scripted.
@Suite("BackendNotifier over GraphQLSubscriber", .timeLimit(.minutes(1)))
struct NotifierOverGraphQLTests {
    static let results: [String: String] = [
        "subscribeDeviceState": #"{"subscribeDeviceState":{"deviceGroupID":"s1","orgId":"o1","thingName":"cam-1","derivant":null,"mac":null,"online":true,"recording":null,"fwUpdateState":null}}"#,
        "subscribeArchiveState": #"{"subscribeArchiveState":{"deviceGroupID":"s1","orgId":"o1","thingName":"cam-1","archiveId":"a1","status":"Ready","videoSize":3000000000}}"#,
        "subscribeOrganizationState": #"{"subscribeOrganizationState":{"orgId":"o1","licensePhase":"Valid","isFreePlan":false,"AIControlSetting":null}}"#,
        "subscribeRoleChange": #"{"subscribeRoleChange":{"reason":"promoted"}}"#,
        "subscribeUserTokenRevoke": #"{"subscribeUserTokenRevoke":{"userId":"u1","revokedAt":"2026-11-22T10:00:00.000Z","reason":"PASSWORD_CHANGED","requestId":"r1"}}"#,
    ]

    @Test("all five legacy subscriptions deliver typed values", arguments: GraphQLProtocol.allCases)
    func allFive(_ dialect: GraphQLProtocol) async throws {
        let connector = ScriptedWebSocketConnector()
        let configuration = GraphQLSubscriber.Configuration(
            url: URL(string: "wss://example.test/graphql")!, wireProtocol: dialect, appSyncHost: "api.example.test",
            clock: ManualClock(), random: SeededRandomNumberGenerator(seed: 3))
        let transport = GraphQLSubscriber(configuration: configuration, connector: connector)
        let session = SessionSource()
        let notifier = BackendNotifier(transport: transport, session: session)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await notifier.run() }
            var presence = await notifier.devicePresenceValues().makeAsyncIterator()
            var archive = await notifier.archiveValues().makeAsyncIterator()
            var license = await notifier.licenseValues().makeAsyncIterator()
            var role = await notifier.roleValues().makeAsyncIterator()
            var revoke = await notifier.revokeValues().makeAsyncIterator()
            session.update(.signedIn(userId: "u1", orgId: "o1") { _ in "tok" })

            let socket = try #require(await connector.nextAttempt()?.connection)
            _ = await socket.nextSentText()
            socket.serverSends(text: #"{"type":"connection_ack"}"#)
            var ids: [String: String] = [:]
            while ids.count < 5, let text = await socket.nextSentText() {
                let frame = try JSONValue.parse(text)
                guard let id = frame["id"]?.string, let payload = frame["payload"] else { continue }
                let request = payload["data"]?.string.flatMap { try? JSONValue.parse($0) } ?? payload
                guard let name = request["operationName"]?.string else { continue }
                let field = name.prefix(1).lowercased() + name.dropFirst()
                ids[field] = id
                if dialect == .appSyncGraphQL { socket.serverSends(text: #"{"type":"start_ack","id":"\#(id)"}"#) }
            }
            #expect(Set(ids.keys) == Set(Self.results.keys))
            let type = dialect == .graphQLTransportWS ? "next" : "data"
            for (field, id) in ids.sorted(by: { $0.key < $1.key }) {
                socket.serverSends(text: #"{"type":"\#(type)","id":"\#(id)","payload":{"data":\#(Self.results[field]!)}}"#)
            }
            let online = await presence.next()
            #expect(online?.online == true)
            #expect(online?.thingName == "cam-1")
            #expect(online?.siteId == "s1")
            #expect(await archive.next()?.videoSize == 3_000_000_000)
            #expect(await license.next()?.licensePhase == .valid)
            #expect(await role.next()?.reason == "promoted")
            #expect(await revoke.next()?.userId == "u1")
            await notifier.shutDown()
            try await group.waitForAll()
        }
    }
}
