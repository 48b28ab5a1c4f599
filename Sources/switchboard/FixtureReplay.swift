import Foundation
import Switchboard
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardGraphQL
import SwitchboardTesting

/// Replays a recorded fixture through the transport it was recorded on, into a
/// `BackendNotifier`, for `replay` and `parity`.
///
/// The transport is built with its default settings (reconnect policy, timeouts), the ones the
/// package's recorder uses; a fixture recorded with other settings can replay differently.
struct FixtureReplay {
    /// The four ways the package talks to the backend, as a fixture header names them.
    enum Dialect: String, CaseIterable {
        case appSync = "appsync"
        case graphQLWS = "graphql-ws"
        case graphQLTransportWS = "graphql-transport-ws"
        case appSyncGraphQL = "appsync-graphql"

        var kind: TransportKind { self == .appSync ? .appsync : .graphql }
    }

    let path: String
    let fixture: Fixture
    let dialect: Dialect

    /// Reads and checks a fixture file.
    /// - Throws: ``CLIError`` when the file cannot be read or parsed, or does not say which
    ///   dialect it was recorded in.
    init(path: String) throws {
        self.path = path
        do {
            fixture = try Fixture(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError("cannot read the fixture \(path): \(error)")
        }
        guard !fixture.entries.isEmpty else { throw CLIError("the fixture \(path) has no lines to replay") }
        dialect = try Self.dialect(of: fixture, path: path)
    }

    /// The dialect from the header, else from the recorded subprotocol when that is unambiguous
    /// (`graphql-ws` is the subprotocol of both the legacy dialect and AppSync's GraphQL one).
    private static func dialect(of fixture: Fixture, path: String) throws -> Dialect {
        let allowed = Dialect.allCases.map(\.rawValue).joined(separator: ", ")
        if let named = fixture.header?.dialect {
            guard let dialect = Dialect(rawValue: named) else {
                throw CLIError("the fixture \(path) names the dialect '\(named)'; known: \(allowed)")
            }
            return dialect
        }
        switch fixture.entries.lazy.compactMap(\.protocol).first {
        case "aws-appsync-event-ws": return .appSync
        case "graphql-transport-ws": return .graphQLTransportWS
        default:
            throw CLIError("""
                the fixture \(path) has no header naming its dialect; add a first line \
                {"fixture":{"dialect":"…","scenario":"…","transport":"…","userId":"…","orgId":"…"}} (dialects: \(allowed))
                """)
        }
    }

    /// A one-line description for the output.
    var summary: String {
        let scenario = fixture.header?.scenario ?? "unnamed scenario"
        return "\(path): \(scenario) on \(dialect.rawValue), \(fixture.entries.count) lines, \(fixture.connections.count) connection(s)"
    }

    /// Replays the fixture and returns what the notifier's consumers got and what the player found.
    func run() async throws -> (observation: NotifierObservation, report: FixturePlayer.Report) {
        let endpoint = fixture.entries.first?.endpoint ?? "/"
        let dialect = dialect
        return try await NotifierObservation.replay(fixture) { player, clock in
            // Hosts and credentials are not replayed: the player checks paths and frames only.
            let url = URL(string: "ws://localhost\(endpoint)")!
            switch dialect {
            case .appSync:
                return AppSyncEventsSubscriber(
                    configuration: .init(realtimeURL: url, authorization: .apiKey("fixture-token"), clock: clock),
                    connector: player)
            case .graphQLWS, .graphQLTransportWS, .appSyncGraphQL:
                let wire: GraphQLProtocol = switch dialect {
                case .graphQLWS: .graphQLWS
                case .graphQLTransportWS: .graphQLTransportWS
                default: .appSyncGraphQL
                }
                return GraphQLSubscriber(
                    configuration: .init(url: url, wireProtocol: wire, appSyncHost: "localhost", appSyncAuthorization: .apiKey,
                                         clock: clock),
                    connector: player)
            }
        }
    }
}

extension NotifierObservation {
    /// Every value as the line `listen` prints for it, stream by stream in `StreamName` order.
    func eventLines() -> [EventLine] {
        func lines(_ stream: StreamName, _ values: [some Encodable & Sendable]) -> [EventLine] {
            values.map { EventLine(stream: stream, event: $0) }
        }
        return lines(.devicePresence, devicePresence) + lines(.deviceRecording, deviceRecording)
            + lines(.deviceFirmware, deviceFirmware) + lines(.archive, archive) + lines(.license, license)
            + lines(.plan, plan) + lines(.aiSettings, aiSettings) + lines(.role, role) + lines(.revoke, revoke)
            + lines(.device, device) + lines(.organization, organization)
    }

    /// How many values each stream got, as `role 2, revoke 1` (streams with none left out).
    var countsSummary: String {
        let counts: [(StreamName, Int)] = [
            (.devicePresence, devicePresence.count), (.deviceRecording, deviceRecording.count),
            (.deviceFirmware, deviceFirmware.count), (.archive, archive.count), (.license, license.count),
            (.plan, plan.count), (.aiSettings, aiSettings.count), (.role, role.count), (.revoke, revoke.count),
            (.device, device.count), (.organization, organization.count),
        ]
        let nonEmpty = counts.filter { $0.1 > 0 }.map { "\($0.0.rawValue) \($0.1)" }
        return nonEmpty.isEmpty ? "no values" : nonEmpty.joined(separator: ", ")
    }
}

extension FixturePlayer.Report {
    var summary: String {
        let played = "\(linesPlayed) lines played, \(connectAttempts) connect(s)"
        return mismatches.isEmpty ? "\(played), the client behaved as recorded" : "\(played), the client parted from the recording"
    }
}
