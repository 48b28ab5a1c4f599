import Switchboard
import SwitchboardCore
import SwitchboardGraphQL
import Testing

@Suite("GraphQL: planning subscriptions")
struct GraphQLPlanningTests {
    let identity = TransportIdentity(userId: "u1", orgId: "o1", tokens: .constant("t"))

    /// contract.md §4: the root field that carries each stream, and the identity value it takes.
    static let rootFields: [(StreamID, String, String)] = [
        ("device", "subscribeDeviceState", "u1"), ("devicePresence", "subscribeDeviceState", "u1"),
        ("deviceRecording", "subscribeDeviceState", "u1"), ("deviceFirmware", "subscribeDeviceState", "u1"),
        ("archive", "subscribeArchiveState", "u1"), ("organization", "subscribeOrganizationState", "o1"),
        ("license", "subscribeOrganizationState", "o1"), ("plan", "subscribeOrganizationState", "o1"),
        ("aiSettings", "subscribeOrganizationState", "o1"), ("role", "subscribeRoleChange", "u1"),
        ("tokenRevoke", "subscribeUserTokenRevoke", "u1"),
    ]

    func plan(_ streams: Set<StreamID>) -> SubscriptionPlan {
        GraphQLSubscriber.plan(streams: Set(streams.map { StreamCatalog.descriptor($0).address }), identity: identity)
    }

    @Test("each stream is carried by its legacy root field, with the identity's id as the argument",
          arguments: rootFields.map { $0.0.rawValue })
    func rootField(stream: String) throws {
        let expected = try #require(Self.rootFields.first { $0.0.rawValue == stream })
        let plan = plan([expected.0])
        let subscription = try #require(plan.subscriptions[SubscriptionKey("graphql/\(expected.1)")])
        #expect(subscription.serves == [stream])
        guard case .graphQL(let operation) = subscription.request.target else {
            Issue.record("expected a GraphQL operation, got \(subscription.request.target)")
            return
        }
        #expect(operation.query.contains("\(expected.1)("))
        #expect(Array(operation.variables.values) == [expected.2])
    }

    @Test("one subscription per root field, shared by every stream it feeds")
    func grouping() {
        let plan = plan(["devicePresence", "deviceRecording", "plan", "organization"])
        #expect(Set(plan.subscriptions.keys) == ["graphql/subscribeDeviceState", "graphql/subscribeOrganizationState"])
        #expect(plan.subscriptions["graphql/subscribeOrganizationState"]?.serves == ["plan", "organization"])
        #expect(plan.subscriptions["graphql/subscribeDeviceState"]?.serves == ["devicePresence", "deviceRecording"])
    }

    @Test("a stream no root field carries fails with invalidConfiguration; ids never fail")
    func uncovered() {
        let unknown = StreamAddress(name: "weather", family: nil, channel: "weather", eventTypes: ["weather/changed"])
        let bad = TransportIdentity(userId: "a/b/c/d", orgId: "o1", tokens: .constant("t"))
        let role = StreamCatalog.descriptor("role").address
        let plan = GraphQLSubscriber.plan(streams: [unknown, role], identity: bad)
        #expect(plan.failures["weather"]?.code == .invalidConfiguration)
        #expect(plan.failures["role"] == nil, "GraphQL variables have no channel rules")
        #expect(plan.subscriptions["graphql/subscribeRoleChange"]?.serves == ["role"])
    }
}

@Suite("GraphQL: the legacy subscription documents")
struct LegacySubscriptionTests {
    /// Every field of the legacy result types (contract.md §4).
    static let legacyFields: [String: [String]] = [
        "subscribeDeviceState": ["deviceGroupID", "orgId", "thingName", "derivant", "mac", "online", "recording", "fwUpdateState"],
        "subscribeOrganizationState": ["orgId", "licensePhase", "isFreePlan", "AIControlSetting", "uuid", "termsAgreement", "options", "key", "enabled"],
        "subscribeArchiveState": ["deviceGroupID", "orgId", "thingName", "derivant", "mac", "archiveId", "status", "videoLength",
                                  "videoSize", "cloudSize", "hasH265", "createdAt"],
        "subscribeRoleChange": ["reason"],
        "subscribeUserTokenRevoke": ["userId", "revokedAt", "reason", "requestId"],
    ]

    @Test("legacy documents select every field of their result type", arguments: LegacySubscription.all.map(\.field))
    func legacyDocument(field: String) throws {
        let legacy = try #require(LegacySubscription.all.first { $0.field == field })
        let document = legacy.document
        let selected = Set(document.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init))
        for name in try #require(Self.legacyFields[field]) {
            #expect(selected.contains(name), "\(field) does not select \(name)")
        }
        #expect(document.hasPrefix("subscription "))
        let identity = TransportIdentity(userId: "u1", orgId: "o1", tokens: .constant("t"))
        let operation = legacy.operation(for: identity)
        #expect(operation.variables == [legacy.argument.rawValue: legacy.argument == .userId ? "u1" : "o1"])
        #expect(document.contains("$\(legacy.argument.rawValue): ID!"))
    }
}
