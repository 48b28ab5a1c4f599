import Foundation
import Logging
import Switchboard
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardGraphQL
import SwitchboardNIO

/// What every benchmark shares: credentials, payloads, and how to build a notifier on the NIO
/// engine for either transport against a loopback server.
enum Rig {
    static let apiKey = "bench-api-key"
    static let userId = "user-1"
    static let orgId = "org-1"
    static let silent = Logger(label: "bench", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The emulator on an ephemeral loopback port, accepting ``apiKey``.
    static func emulatorConfiguration() -> SwitchboardEmulator.Configuration {
        var configuration = SwitchboardEmulator.Configuration(port: 0, auth: .init(apiKeys: [apiKey]), logger: silent)
        configuration.eventLogCapacity = 1_000
        return configuration
    }

    /// A notifier on `kind`'s transport, connecting to `port` on loopback (the emulator's paths),
    /// signed in with the API key.
    static func notifier(
        _ kind: TransportKind, port: Int, reconnect: ReconnectPolicy = .standard,
        configuration: BackendNotifier.Configuration = .init(),
        connector: NIOWebSocketConnector = NIOWebSocketConnector(),
        wrap: (any EventTransport) -> any EventTransport = { $0 }
    ) -> BackendNotifier {
        let transport: any EventTransport
        switch kind {
        case .appsync:
            transport = AppSyncEventsSubscriber(
                configuration: .init(
                    realtimeURL: URL(string: "ws://127.0.0.1:\(port)/event/realtime")!, host: "127.0.0.1:\(port)",
                    authorization: .apiKey(apiKey), reconnectPolicy: reconnect),
                connector: connector)
        default:
            transport = GraphQLSubscriber(
                configuration: .init(
                    url: URL(string: "ws://127.0.0.1:\(port)/graphql")!, reconnectPolicy: reconnect,
                    appSyncHost: "127.0.0.1:\(port)", appSyncAuthorization: .apiKey),
                connector: connector)
        }
        let session = SessionSource(.signedIn(userId: userId, orgId: orgId) { _ in apiKey })
        return BackendNotifier(transport: wrap(transport), session: session, configuration: configuration)
    }

    /// Runs `notifier` for the duration of `body`, then shuts it down.
    static func running<R: Sendable>(_ notifier: BackendNotifier, _ body: () async throws -> R) async throws -> R {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await notifier.run() }
            defer { group.cancelAll() }
            do {
                let result = try await body()
                await notifier.shutDown()
                return result
            } catch {
                await notifier.shutDown()
                throw error
            }
        }
    }

    /// Waits until `condition` holds, polling every `interval`, or throws after `limit`.
    static func wait(
        _ what: String, limit: Duration = .seconds(10), interval: Duration = .milliseconds(1),
        until condition: () -> Bool
    ) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while !condition() {
            guard clock.now < deadline else { throw BenchmarkFailure("timed out waiting for \(what)") }
            try await Task.sleep(for: interval)
        }
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The event the throughput and latency benchmarks send: an archive state change, the largest
/// model of the contract (about 300 bytes on the wire), in both wire shapes.
enum ArchivePayload {
    static let timestamp = "2026-11-22T10:00:00.000Z"

    /// The AppSync Events event text; `reason` lets latency runs carry a send time.
    static func event(archiveId: String = "a-1") -> String {
        #"{"eventType":"archive/stateChanged","timestamp":"\#(timestamp)","orgId":"org-1","siteId":"site-1","thingName":"cam-1","archiveId":"\#(archiveId)","status":"Ready","videoLength":12.5,"videoSize":3000000000,"cloudSize":1000,"hasH265":true,"createdAt":"\#(timestamp)"}"#
    }

    /// The channel the event goes to.
    static let channel = "vortex-app/user/\(Rig.userId)/archive/stateChanged"

    /// An AppSync Events `data` frame for subscription `id`, as the emulator writes it.
    static func appSyncFrame(id: String, archiveId: String = "a-1") -> String {
        let object: [String: Any] = ["type": "data", "id": id, "event": event(archiveId: archiveId)]
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// A legacy `graphql-ws` `data` frame for subscription `id` (the legacy shape: no
    /// `eventType`/`timestamp`, `siteId` → `deviceGroupID`).
    static func graphQLFrame(id: String, archiveId: String = "a-1") -> String {
        #"{"type":"data","id":"\#(id)","payload":{"data":{"subscribeArchiveState":{"deviceGroupID":"site-1","orgId":"org-1","thingName":"cam-1","derivant":null,"mac":null,"archiveId":"\#(archiveId)","status":"Ready","videoLength":12.5,"videoSize":3000000000,"cloudSize":1000,"hasH265":true,"createdAt":"\#(timestamp)"}}}}"#
    }

    /// What identifies the archive subscription's subscribe message on each transport.
    static func marker(_ kind: TransportKind) -> String {
        kind == .appsync ? "archive/stateChanged" : "subscribeArchiveState"
    }

    static func frame(_ kind: TransportKind, id: String) -> String {
        kind == .appsync ? appSyncFrame(id: id) : graphQLFrame(id: id)
    }
}
