import Switchboard
import Testing

@Suite("Subscription planning")
struct SubscriptionPlannerTests {
    let identity = TransportIdentity(userId: "u1", orgId: "o1", tokens: .constant("t"))

    func appSyncKeys(_ streams: Set<StreamID>) -> Set<String> {
        Set(SubscriptionPlanner.plan(for: streams, kind: .appsync, identity: identity, namespace: "ns").subscriptions.keys.map(\.rawValue))
    }

    @Test("AppSync: one exact channel for one stream of a family, the wildcard for two or the merged stream")
    func appSyncGrouping() {
        #expect(appSyncKeys(["devicePresence"]) == ["ns/user/u1/device/presenceChanged"])
        #expect(appSyncKeys(["devicePresence", "deviceFirmware"]) == ["ns/user/u1/device/*"])
        #expect(appSyncKeys(["device"]) == ["ns/user/u1/device/*"])
        #expect(appSyncKeys(["device", "devicePresence", "plan"]) == ["ns/user/u1/device/*", "ns/user/u1/organization/planChanged"])
        #expect(appSyncKeys(["role", "tokenRevoke", "archive"]) ==
            ["ns/user/u1/roleChanged", "ns/user/u1/tokenRevoked", "ns/user/u1/archive/stateChanged"])
        #expect(appSyncKeys([]).isEmpty)
    }

    @Test("AppSync: a wildcard serves every requested stream of its family")
    func appSyncServes() throws {
        let plan = SubscriptionPlanner.plan(for: ["device", "devicePresence", "license", "aiSettings"], kind: .appsync,
                                            identity: identity, namespace: "ns")
        #expect(plan.subscriptions["ns/user/u1/device/*"]?.serves == ["device", "devicePresence"])
        #expect(plan.subscriptions["ns/user/u1/organization/*"]?.serves == ["license", "aiSettings"])
        let request = try #require(plan.subscriptions["ns/user/u1/device/*"]?.request)
        #expect(request.target == .channel("ns/user/u1/device/*"))
    }

    @Test("GraphQL: one subscription per legacy root field")
    func graphQLGrouping() {
        let plan = SubscriptionPlanner.plan(for: ["devicePresence", "deviceRecording", "plan", "organization"], kind: .graphql,
                                            identity: identity, namespace: "ns")
        #expect(Set(plan.subscriptions.keys) == ["graphql/subscribeDeviceState", "graphql/subscribeOrganizationState"])
        #expect(plan.subscriptions["graphql/subscribeOrganizationState"]?.serves == ["plan", "organization"])
    }

    @Test("an invalid userId fails the streams with invalidChannel, naming the segment")
    func invalidUser() {
        let bad = TransportIdentity(userId: "a/b/c/d", orgId: "o1", tokens: .constant("t"))
        let plan = SubscriptionPlanner.plan(for: ["role"], kind: .appsync, identity: bad, namespace: "ns")
        #expect(plan.subscriptions.isEmpty)
        #expect(plan.failures["role"]?.code == .invalidChannel)
        let graphQL = SubscriptionPlanner.plan(for: ["role"], kind: .graphql, identity: bad, namespace: "ns")
        #expect(graphQL.failures.isEmpty, "GraphQL variables have no channel rules")
    }
}
