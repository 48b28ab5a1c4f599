#if SwiftConfiguration
import Configuration
import SwitchboardConfiguration
import SwitchboardCore
import Testing

private let key = AbsoluteConfigKey(["switchboard", "transport"])

@Suite("TransportSelection + swift-configuration")
struct TransportSelectionConfigurationTests {
    @Test("reads switchboard.transport, any case, with the configuration source", arguments: [
        ("graphql", TransportKind.graphql), ("AppSync", .appsync), (" GRAPHQL ", .graphql),
    ])
    func readsValue(value: String, expected: TransportKind) throws {
        let config = ConfigReader(provider: InMemoryProvider(values: [key: ConfigValue(.string(value), isSecret: false)]))
        #expect(try TransportSelection.resolve(config: config)
            == TransportSelection(kind: expected, source: .configuration(key: "switchboard.transport")))
    }

    @Test("an unset key gives the default", arguments: TransportKind.builtIn)
    func unsetGivesDefault(defaultKind: TransportKind) throws {
        let config = ConfigReader(provider: InMemoryProvider(values: [["other"]: "graphql"]))
        #expect(try TransportSelection.resolve(config: config, defaultKind: defaultKind)
            == TransportSelection(kind: defaultKind, source: .default))
    }

    @Test("an invalid string throws our error naming the key")
    func invalidString() {
        let config = ConfigReader(provider: InMemoryProvider(values: [key: "apsync"]))
        #expect(throws: SwitchboardError(
            code: .invalidConfiguration,
            message: #"invalid value "apsync" for switchboard.transport; allowed values: graphql, appsync"#)
        ) { try TransportSelection.resolve(config: config) }
    }

    @Test("a value of another type is an error, not the default", arguments: [
        (ConfigValue(.int(1), isSecret: false), "an integer"),
        (ConfigValue(.bool(true), isSecret: false), "a boolean"),
        (ConfigValue(.double(1.5), isSecret: false), "a double"),
        (ConfigValue(.stringArray(["graphql"]), isSecret: false), "a string array"),
    ])
    func wrongType(value: ConfigValue, found: String) {
        let config = ConfigReader(provider: InMemoryProvider(values: [key: value]))
        #expect(throws: SwitchboardError(
            code: .invalidConfiguration,
            message: "invalid value for switchboard.transport: expected a string (graphql, appsync), found \(found)")
        ) { try TransportSelection.resolve(config: config) }
    }

    @Test("a custom key is read and named")
    func customKey() throws {
        let config = ConfigReader(provider: InMemoryProvider(values: [["app", "events", "transport"]: "graphql"]))
        #expect(try TransportSelection.resolve(config: config, key: "app.events.transport")
            == TransportSelection(kind: .graphql, source: .configuration(key: "app.events.transport")))
    }

    @Test("the first provider that has the key wins")
    func providerPrecedence() throws {
        let config = ConfigReader(providers: [
            InMemoryProvider(values: [["unrelated"]: "x"]),
            InMemoryProvider(values: [key: "graphql"]),
            InMemoryProvider(values: [key: "appsync"]),
        ])
        #expect(try TransportSelection.resolve(config: config).kind == .graphql)
    }

    @Test("the environment provider maps switchboard.transport to SWITCHBOARD_TRANSPORT (upper case only)")
    func environmentProvider() throws {
        let upper = ConfigReader(provider: EnvironmentVariablesProvider(
            environmentVariables: [TransportSelection.environmentVariable: "graphql"]))
        #expect(try TransportSelection.resolve(config: upper).kind == .graphql)
        let lower = ConfigReader(provider: EnvironmentVariablesProvider(
            environmentVariables: ["switchboard_transport": "graphql"]))
        #expect(try TransportSelection.resolve(config: lower) == TransportSelection(kind: .appsync, source: .default))
    }

    @Test("watchTransport delivers the current value, then every change, invalid ones as failures")
    func watch() async throws {
        let provider = MutableInMemoryProvider(initialValues: [key: "graphql"])
        let config = ConfigReader(provider: provider)
        let source = TransportSelection.Source.configuration(key: "switchboard.transport")
        let seen = try await TransportSelection.watchTransport(config: config) { updates in
            var seen: [Result<TransportSelection, SwitchboardError>] = []
            for await update in updates {
                seen.append(update)
                switch seen.count {
                case 1: provider.setValue("appsync", forKey: key)
                case 2: provider.setValue("bogus", forKey: key)
                case 3: provider.setValue(nil, forKey: key)
                default: return seen
                }
            }
            return seen
        }
        #expect(seen.count == 4)
        guard seen.count == 4 else { return }
        #expect(try seen[0].get() == TransportSelection(kind: .graphql, source: source))
        #expect(try seen[1].get() == TransportSelection(kind: .appsync, source: source))
        #expect(throws: SwitchboardError(
            code: .invalidConfiguration,
            message: #"invalid value "bogus" for switchboard.transport; allowed values: graphql, appsync"#)
        ) { try seen[2].get() }
        #expect(try seen[3].get() == TransportSelection(kind: .appsync, source: .default))
    }
}
#endif
