import Foundation
import Switchboard
import SwitchboardCore
import Testing

/// A fresh temporary directory, removed when the test body returns.
private func withTemporaryDirectory<R>(_ body: (URL) throws -> R) throws -> R {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("switchboard-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// Writes `contents` to `name` inside `directory`.
private func write(_ contents: String, to name: String, in directory: URL) throws -> URL {
    let url = directory.appendingPathComponent(name)
    try Data(contents.utf8).write(to: url)
    return url
}

private let variable = TransportSelection.environmentVariable

@Suite("TransportSelection")
struct TransportSelectionTests {
    /// Every combination of sources: which are set, and which wins.
    @Test("precedence: code › environment › config file › default", arguments: 0..<16)
    func precedenceMatrix(mask: Int) throws {
        let code: TransportKind? = mask & 1 != 0 ? .graphql : nil
        let environment = mask & 2 != 0 ? [variable: "appsync"] : [:]
        let fileHasKey = mask & 4 != 0
        let defaultKind: TransportKind = mask & 8 != 0 ? .graphql : .appsync
        try withTemporaryDirectory { directory in
            let file = try write(
                fileHasKey ? #"{"transport": "graphql", "other": 1}"# : #"{"other": "appsync"}"#,
                to: "config.json", in: directory)
            let selection = try TransportSelection.resolve(
                code: code, environment: environment, configFile: file, defaultKind: defaultKind)
            let expected: TransportSelection =
                if let code { TransportSelection(kind: code, source: .code) }
                else if !environment.isEmpty { TransportSelection(kind: .appsync, source: .environment(variable: variable)) }
                else if fileHasKey { TransportSelection(kind: .graphql, source: .configFile(path: file.path)) }
                else { TransportSelection(kind: defaultKind, source: .default) }
            #expect(selection == expected)
        }
    }

    @Test("no sources at all gives the appsync default")
    func defaults() throws {
        #expect(try TransportSelection.resolve(environment: [:]) == TransportSelection(kind: .appsync, source: .default))
        #expect(try TransportSelection.resolve(environment: ["OTHER": "graphql"], defaultKind: .graphql)
            == TransportSelection(kind: .graphql, source: .default))
    }

    @Test("parse accepts both values, any case, surrounding whitespace", arguments: [
        ("graphql", TransportKind.graphql), ("GraphQL", .graphql), ("  graphql\n", .graphql),
        ("appsync", .appsync), ("APPSYNC", .appsync), ("\tAppSync ", .appsync),
    ])
    func parseValid(value: String, expected: TransportKind) throws {
        #expect(try TransportSelection.parse(value, key: "k") == expected)
        #expect(try TransportSelection.resolve(environment: [variable: value]).kind == expected)
    }

    @Test("parse rejects anything else, naming key, value and allowed values", arguments: [
        "apsync", "", "   ", "graph ql", "graphql-ws", "appsync-events", "1",
    ])
    func parseInvalid(value: String) {
        let expected = SwitchboardError(
            code: .invalidConfiguration,
            message: "invalid value \(value.debugDescription) for \(variable); allowed values: graphql, appsync")
        #expect(throws: expected) { try TransportSelection.parse(value, key: variable) }
        #expect(throws: expected) { try TransportSelection.resolve(environment: [variable: value]) }
    }

    @Test("the documented example message")
    func exampleMessage() {
        #expect(throws: SwitchboardError(
            code: .invalidConfiguration,
            message: #"invalid value "apsync" for SWITCHBOARD_TRANSPORT; allowed values: graphql, appsync"#)
        ) { try TransportSelection.resolve(environment: [variable: "apsync"]) }
    }

    @Test("an invalid environment value is an error even when a config file would be valid")
    func invalidEnvironmentDoesNotFallThrough() throws {
        try withTemporaryDirectory { directory in
            let file = try write(#"{"transport": "graphql"}"#, to: "config.json", in: directory)
            #expect(throws: SwitchboardError.self) {
                try TransportSelection.resolve(environment: [variable: "nope"], configFile: file)
            }
        }
    }

    @Test("an invalid value in the config file names the key and the file")
    func invalidFileValue() throws {
        try withTemporaryDirectory { directory in
            let file = try write(#"{"transport": "apsync"}"#, to: "config.json", in: directory)
            #expect(throws: SwitchboardError(
                code: .invalidConfiguration,
                message: #"invalid value "apsync" for transport in config file \#(file.path); allowed values: graphql, appsync"#)
            ) { try TransportSelection.resolve(environment: [:], configFile: file) }
        }
    }

    @Test("broken config files are errors naming the file and the problem", arguments: [
        ("{", "is not valid JSON"),
        ("", "is not valid JSON"),
        (#"["graphql"]"#, "must hold a JSON object at the top level, not an array"),
        (#""graphql""#, "must hold a JSON object at the top level, not a string"),
        ("null", "must hold a JSON object at the top level, not null"),
    ])
    func brokenFile(contents: String, problem: String) throws {
        try withTemporaryDirectory { directory in
            let file = try write(contents, to: "config.json", in: directory)
            #expect(throws: SwitchboardError(code: .invalidConfiguration, message: "config file \(file.path) \(problem)")) {
                try TransportSelection.resolve(environment: [:], configFile: file)
            }
        }
    }

    @Test("a non-string transport in the file is an error", arguments: [
        ("1", "a number"), ("true", "a boolean"), ("null", "null"), (#"["graphql"]"#, "an array"),
        (#"{"kind": "graphql"}"#, "an object"),
    ])
    func nonStringTransport(json: String, found: String) throws {
        try withTemporaryDirectory { directory in
            let file = try write(#"{"transport": \#(json)}"#, to: "config.json", in: directory)
            #expect(throws: SwitchboardError(
                code: .invalidConfiguration,
                message: "transport in config file \(file.path) must be a string (graphql, appsync), not \(found)")
            ) { try TransportSelection.resolve(environment: [:], configFile: file) }
        }
    }

    @Test("a missing file, or a directory, is an error")
    func missingOrDirectory() throws {
        try withTemporaryDirectory { directory in
            let missing = directory.appendingPathComponent("absent.json")
            #expect(throws: SwitchboardError(
                code: .invalidConfiguration, message: "config file \(missing.path) does not exist")
            ) { try TransportSelection.resolve(environment: [:], configFile: missing) }
            #expect(throws: SwitchboardError(
                code: .invalidConfiguration, message: "config file \(directory.path) is a directory, not a file")
            ) { try TransportSelection.resolve(environment: [:], configFile: directory) }
        }
    }

    @Test("a file without the key falls through to the default; nested keys do not count")
    func fileWithoutKey() throws {
        try withTemporaryDirectory { directory in
            let file = try write(#"{"switchboard": {"transport": "graphql"}}"#, to: "config.json", in: directory)
            #expect(try TransportSelection.resolve(environment: [:], configFile: file, defaultKind: .appsync)
                == TransportSelection(kind: .appsync, source: .default))
        }
    }

    @Test("a broken file is not read when a higher source wins")
    func brokenFileIgnoredWhenOverridden() throws {
        try withTemporaryDirectory { directory in
            let file = try write("not json", to: "config.json", in: directory)
            #expect(try TransportSelection.resolve(environment: [variable: "graphql"], configFile: file).kind == .graphql)
            #expect(try TransportSelection.resolve(code: .appsync, environment: [:], configFile: file).kind == .appsync)
        }
    }

    @Test("descriptions say where the value came from")
    func descriptions() {
        #expect(TransportSelection(kind: .graphql, source: .environment(variable: variable)).description
            == "graphql (from environment variable SWITCHBOARD_TRANSPORT)")
        #expect(TransportSelection(kind: .appsync, source: .default).description == "appsync (from default)")
    }
}
