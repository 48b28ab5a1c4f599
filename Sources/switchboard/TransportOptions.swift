import ArgumentParser
import Foundation
import Switchboard
import SwitchboardGraphQL

/// The options every command that runs a transport shares. Flags win over `--config FILE`;
/// the transport follows ``TransportSelection``: flag, `SWITCHBOARD_TRANSPORT`, the file, then
/// the command's default.
struct TransportOptions: ParsableArguments {
    @Option(help: "graphql or appsync (default: SWITCHBOARD_TRANSPORT, then --config, then appsync).")
    var transport: String?

    @Option(help: "A JSON file with defaults for these options (keys: transport, url, httpUrl, auth, graphqlProtocol, userId, orgId, reconnectDelay, namespace).")
    var config: String?

    @Option(name: .customLong("graphql-protocol"), help: "graphql-ws, graphql-transport-ws or appsync-graphql (legacy transport only).")
    var graphQLProtocol: String?

    @Option(name: .customLong("reconnect-delay"), help: "Seconds to wait before reconnecting (default: 10).")
    var reconnectDelay: Double?

    /// The file's contents, or an empty configuration.
    func file() throws -> ConfigFile { try ConfigFile.load(config) }

    /// The chosen transport and where the choice came from.
    func selection(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> TransportSelection {
        do {
            let code = try transport.map { try TransportSelection.parse($0, key: "--transport") }
            return try TransportSelection.resolve(
                code: code, environment: environment, configFile: config.map { URL(fileURLWithPath: $0) })
        } catch let error as SwitchboardError {
            throw ValidationError(error.message)
        }
    }

    /// The legacy dialect: flag, then file, then `graphql-ws`.
    func wireProtocol(_ file: ConfigFile) throws -> GraphQLProtocol {
        let raw = graphQLProtocol ?? file.graphqlProtocol ?? GraphQLProtocol.graphQLWS.rawValue
        do {
            return try GraphQLProtocol(parsing: raw)
        } catch let error as SwitchboardError {
            throw ValidationError(error.message)
        }
    }

    /// The reconnect policy: a fixed delay from the flag or the file, else the standard 10 s.
    func reconnectPolicy(_ file: ConfigFile) throws -> ReconnectPolicy {
        guard let seconds = reconnectDelay ?? file.reconnectDelay else { return .standard }
        guard seconds >= 0, seconds.isFinite else { throw ValidationError("--reconnect-delay must be 0 or more seconds") }
        return .fixedDelay(.milliseconds(Int64(seconds * 1000)))
    }
}
