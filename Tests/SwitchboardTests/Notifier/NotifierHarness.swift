import Foundation
import Metrics
import Switchboard
import SwitchboardTesting
import Testing

/// Runs a notifier over a scripted transport for the duration of `body`.
struct NotifierHarness {
    let notifier: BackendNotifier
    let transport: ScriptedTransport
    let session: SessionSource
    let broker: EventBroker

    static let namespace = "vortex-app"

    static func signedIn(_ userId: String = "u1", orgId: String = "o1") -> Session {
        .signedIn(userId: userId, orgId: orgId) { _ in "token-\(userId)" }
    }

    static func run(
        _ kind: TransportKind,
        behavior: ScriptedTransport.Behavior = .automatic,
        filter: (any EventFilter)? = nil,
        configuration: BackendNotifier.Configuration = BackendNotifier.Configuration(),
        metrics: (any MetricsFactory)? = nil,
        _ body: (NotifierHarness) async throws -> Void
    ) async throws {
        let transport = ScriptedTransport(kind: kind, behavior: behavior)
        let session = SessionSource()
        let broker = EventBroker(metricsFactory: metrics)
        let notifier = BackendNotifier(
            transport: transport, session: session, configuration: configuration, broker: broker, filter: filter,
            metricsFactory: metrics)
        let harness = NotifierHarness(notifier: notifier, transport: transport, session: session, broker: broker)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await notifier.run() }
            try await body(harness)
            await notifier.shutDown()
            try await group.waitForAll()
        }
    }

    /// Waits until the transport holds exactly `keys` and all are acknowledged.
    func waitForSubscriptions(_ keys: Set<SubscriptionKey>) async {
        await transport.waitUntil { Set($0.subscriptions.keys) == keys && $0.established.isSuperset(of: keys) }
    }

    static func channel(_ relative: String, user: String = "u1") -> SubscriptionKey {
        SubscriptionKey("\(namespace)/user/\(user)/\(relative)")
    }
}

/// AppSync payloads as the backend publishes them (contract.md §3).
enum AppSyncPayload {
    static let timestamp = "2026-11-22T10:00:00.000Z"

    static func presence(_ thing: String, online: Bool, site: String = "s1") -> String {
        #"{"eventType":"device/presenceChanged","timestamp":"\#(timestamp)","orgId":"o1","siteId":"\#(site)","thingName":"\#(thing)","online":\#(online)}"#
    }

    static func recording(_ thing: String, recording: Bool) -> String {
        #"{"eventType":"device/recordingStateChanged","timestamp":"\#(timestamp)","orgId":"o1","siteId":"s1","thingName":"\#(thing)","recording":\#(recording)}"#
    }

    static func firmware(_ thing: String, state: Int) -> String {
        #"{"eventType":"device/firmwareUpdated","timestamp":"\#(timestamp)","orgId":"o1","siteId":"s1","thingName":"\#(thing)","fwUpdateState":\#(state)}"#
    }

    static func plan(free: Bool) -> String {
        #"{"eventType":"organization/planChanged","timestamp":"\#(timestamp)","orgId":"o1","isFreePlan":\#(free)}"#
    }

    static func role(_ reason: String) -> String {
        #"{"eventType":"user/roleChanged","timestamp":"\#(timestamp)","reason":"\#(reason)"}"#
    }
}

/// Legacy GraphQL `data` objects (contract.md §4).
enum GraphQLPayload {
    static func deviceState(_ thing: String, fields: String) -> String {
        #"{"subscribeDeviceState":{"deviceGroupID":"s1","orgId":"o1","thingName":"\#(thing)","derivant":null,"mac":null,\#(fields)}}"#
    }

    static func role(_ reason: String) -> String {
        #"{"subscribeRoleChange":{"reason":"\#(reason)"}}"#
    }
}

/// Takes the next `count` values of a stream (suspending until they arrive).
func take<Element>(_ count: Int, from iterator: inout AsyncStream<Element>.Iterator) async -> [Element] {
    var values: [Element] = []
    while values.count < count, let value = await iterator.next() { values.append(value) }
    return values
}
