import Foundation
import Switchboard
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardGraphQL
import SwitchboardNIO
import SwitchboardTesting

/// The four ways the package can talk to the backend: AppSync Events, and the legacy GraphQL
/// transport in each of its three dialects. A fixture file is named after one of them.
enum MigrationTransport: String, CaseIterable, Sendable, CustomStringConvertible {
    case appSync = "appsync"
    case graphQLWS = "graphql-ws"
    case graphQLTransportWS = "graphql-transport-ws"
    case appSyncGraphQL = "appsync-graphql"

    static let legacy: [MigrationTransport] = [.graphQLWS, .graphQLTransportWS, .appSyncGraphQL]

    var description: String { rawValue }
    var fileName: String { "\(rawValue).jsonl" }
    var kind: TransportKind { self == .appSync ? .appsync : .graphql }

    /// The transport with the settings every fixture is recorded and replayed with: the standard
    /// reconnect policy (10 s), the API key, default timeouts.
    /// - Parameters:
    ///   - port: The emulator's port when recording; any value when replaying (the player
    ///     ignores hosts, and credentials are redacted).
    func make(port: Int, connector: any WebSocketConnector, clock: ManualClock) -> any EventTransport {
        let host = "127.0.0.1:\(port)"
        switch self {
        case .appSync:
            return AppSyncEventsSubscriber(
                configuration: .init(
                    realtimeURL: URL(string: "ws://\(host)/event/realtime")!, authorization: .apiKey(Recording.apiKey),
                    clock: clock),
                connector: connector)
        case .graphQLWS, .graphQLTransportWS, .appSyncGraphQL:
            let dialect: GraphQLProtocol = switch self {
            case .graphQLWS: .graphQLWS
            case .graphQLTransportWS: .graphQLTransportWS
            default: .appSyncGraphQL
            }
            return GraphQLSubscriber(
                configuration: .init(
                    url: URL(string: "ws://\(host)/graphql")!, wireProtocol: dialect, appSyncHost: host,
                    appSyncAuthorization: .apiKey, clock: clock),
                connector: connector)
        }
    }

    /// Replays `fixture` through this transport into a notifier.
    func replay(_ fixture: Fixture) async throws -> (observation: NotifierObservation, report: FixturePlayer.Report) {
        try await NotifierObservation.replay(fixture, token: Recording.apiKey) { player, clock in
            make(port: 1, connector: player, clock: clock)
        }
    }
}

/// The committed fixtures: `Fixtures/<scenario>/<transport>.jsonl`.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Every scenario folder, sorted.
    static var scenarios: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted()
    }

    static func url(_ scenario: String, _ transport: MigrationTransport) -> URL {
        directory.appendingPathComponent(scenario).appendingPathComponent(transport.fileName)
    }

    static func load(_ scenario: String, _ transport: MigrationTransport) throws -> Fixture {
        try Fixture(contentsOf: url(scenario, transport))
    }
}
