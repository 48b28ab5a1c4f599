import Foundation
import Switchboard
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardTesting
import Testing

@Suite("AppSync Events: planning subscriptions")
struct AppSyncPlanningTests {
    let identity = TransportIdentity(userId: "u1", orgId: "o1", tokens: .constant("t"))

    func plan(_ streams: Set<StreamID>, identity: TransportIdentity? = nil) -> SubscriptionPlan {
        AppSyncEventsSubscriber.plan(
            streams: Set(streams.map { StreamCatalog.descriptor($0).address }), identity: identity ?? self.identity, namespace: "ns")
    }

    func keys(_ streams: Set<StreamID>) -> Set<String> { Set(plan(streams).subscriptions.keys.map(\.rawValue)) }

    @Test("one exact channel for one stream of a family, the wildcard for two or the merged stream")
    func grouping() {
        #expect(keys(["devicePresence"]) == ["ns/user/u1/device/presenceChanged"])
        #expect(keys(["devicePresence", "deviceFirmware"]) == ["ns/user/u1/device/*"])
        #expect(keys(["device"]) == ["ns/user/u1/device/*"])
        #expect(keys(["device", "devicePresence", "plan"]) == ["ns/user/u1/device/*", "ns/user/u1/organization/planChanged"])
        #expect(keys(["role", "tokenRevoke", "archive"]) ==
            ["ns/user/u1/roleChanged", "ns/user/u1/tokenRevoked", "ns/user/u1/archive/stateChanged"])
        #expect(keys([]).isEmpty)
    }

    @Test("a wildcard serves every requested stream of its family, under its channel as key and target")
    func wildcardServes() throws {
        let plan = plan(["device", "devicePresence", "license", "aiSettings"])
        #expect(plan.subscriptions["ns/user/u1/device/*"]?.serves == ["device", "devicePresence"])
        #expect(plan.subscriptions["ns/user/u1/organization/*"]?.serves == ["license", "aiSettings"])
        let request = try #require(plan.subscriptions["ns/user/u1/device/*"]?.request)
        #expect(request.target == .channel("ns/user/u1/device/*"))
    }

    @Test("the transport plans as its static planner does")
    func transportPlans() {
        let transport = AppSyncEventsSubscriber(
            configuration: .init(realtimeURL: URL(string: "ws://127.0.0.1:1/event/realtime")!, authorization: .apiKey("k")),
            connector: ScriptedWebSocketConnector())
        let streams = Set(StreamCatalog.all.map(\.address))
        #expect(transport.plan(streams: streams, identity: identity, namespace: "ns")
            == AppSyncEventsSubscriber.plan(streams: streams, identity: identity, namespace: "ns"))
        transport.shutDown()
    }

    @Test("an invalid userId fails the streams with invalidChannel")
    func invalidUser() {
        let plan = plan(["role", "devicePresence"], identity: TransportIdentity(userId: "a/b/c/d", orgId: "o1", tokens: .constant("t")))
        #expect(plan.subscriptions.isEmpty)
        #expect(plan.failures["role"]?.code == .invalidChannel)
        #expect(plan.failures["devicePresence"]?.code == .invalidChannel)
    }
}
