import Foundation
import SwitchboardCore

/// The resolved `transport = <name>` setting (`graphql`, `appsync`, or the name of a transport the
/// app registered), and where it came from.
///
/// ``resolve(code:environment:configFile:defaultKind:registered:)`` reads the setting with the precedence
/// code › environment › config file › default. Only the winning source is read: when code sets
/// the transport, the environment and the file are not looked at. A source that *is* read and
/// holds a bad value is an error, never a silent fall-back to the default.
///
/// | source | key | example |
/// |---|---|---|
/// | code | the `code:` argument | `.graphql` |
/// | environment | ``environmentVariable`` (`SWITCHBOARD_TRANSPORT`) | `SWITCHBOARD_TRANSPORT=graphql` |
/// | config file | ``configFileKey`` (`transport`) in a JSON object | `{"transport": "graphql"}` |
///
/// Values are the names of the registered transports (``/SwitchboardCore/TransportRegistry/kinds``;
/// `graphql` and `appsync` when no list is given), case-insensitive, surrounding whitespace
/// ignored. Another name is an error that lists the registered ones.
public struct TransportSelection: Sendable, Equatable, CustomStringConvertible {
    /// Where a ``TransportSelection`` came from.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        /// Passed in code.
        case code
        /// Read from this environment variable.
        case environment(variable: String)
        /// Read from the `transport` key of the JSON config file at this path.
        case configFile(path: String)
        /// Read from swift-configuration under this key (the `SwitchboardConfiguration` product,
        /// trait `SwiftConfiguration`).
        case configuration(key: String)
        /// No source set it; the default applies.
        case `default`

        /// Describes the source, for logs, such as `environment variable SWITCHBOARD_TRANSPORT`.
        public var description: String {
            switch self {
            case .code: "code"
            case .environment(let variable): "environment variable \(variable)"
            case .configFile(let path): "config file \(path)"
            case .configuration(let key): "configuration key \(key)"
            case .default: "default"
            }
        }
    }

    /// The transport to run.
    public var kind: TransportKind
    /// Where ``kind`` came from.
    public var source: Source

    /// Creates a selection.
    /// - Parameters:
    ///   - kind: The transport to run.
    ///   - source: Where the choice came from.
    public init(kind: TransportKind, source: Source) {
        self.kind = kind
        self.source = source
    }

    /// The environment variable that selects the transport.
    public static let environmentVariable = "SWITCHBOARD_TRANSPORT"

    /// The key of a config file's top-level JSON object that selects the transport.
    public static let configFileKey = "transport"

    /// Describes the selection, such as `graphql (from environment variable SWITCHBOARD_TRANSPORT)`.
    public var description: String { "\(kind) (from \(source))" }

    /// Resolves the transport with the precedence code › environment › config file › default.
    ///
    /// Only the first source that sets a value is read. A config file without a `transport` key
    /// falls through to the default; a file that is given but broken is an error.
    /// - Parameters:
    ///   - code: A transport chosen in code; wins over everything else.
    ///   - environment: The environment to read ``environmentVariable`` from.
    ///   - configFile: A JSON file whose top-level object may hold ``configFileKey``; other keys
    ///     are ignored.
    ///   - defaultKind: The transport when no source sets one.
    ///   - registered: The names the environment and the file may select: the app's
    ///     ``/SwitchboardCore/TransportRegistry/kinds``; the built-in `graphql` and `appsync` by default.
    /// - Returns: The selection and where it came from.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` when the
    ///   environment variable or the file's `transport` is not a registered name, or the file is
    ///   missing, unreadable, not JSON, not a JSON object, or its `transport` is not a string. The
    ///   message names the variable or file and the problem.
    public static func resolve(
        code: TransportKind? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        configFile: URL? = nil,
        defaultKind: TransportKind = .appsync,
        registered: [TransportKind] = TransportKind.builtIn
    ) throws -> TransportSelection {
        if let code {
            return TransportSelection(kind: code, source: .code)
        }
        if let value = environment[environmentVariable] {
            return TransportSelection(
                kind: try parse(value, key: environmentVariable, registered: registered),
                source: .environment(variable: environmentVariable))
        }
        if let configFile, let kind = try readConfigFile(configFile, registered: registered) {
            return TransportSelection(kind: kind, source: .configFile(path: configFile.path))
        }
        return TransportSelection(kind: defaultKind, source: .default)
    }

    /// Parses a transport setting: one of the registered names, case-insensitive, with
    /// surrounding whitespace ignored.
    /// - Parameters:
    ///   - value: The raw setting.
    ///   - key: What the value was read from, for the error message (for example
    ///     `SWITCHBOARD_TRANSPORT`).
    ///   - registered: The names that may be selected; the built-in `graphql` and `appsync` by default.
    /// - Returns: The transport kind.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` for any
    ///   other value, including an empty one, for example
    ///   `invalid value "apsync" for SWITCHBOARD_TRANSPORT; allowed values: graphql, appsync`.
    public static func parse(_ value: String, key: String, registered: [TransportKind] = TransportKind.builtIn) throws -> TransportKind {
        try parseValue(value, key: key, registered: registered)
    }

    /// ``parse(_:key:registered:)`` with a typed error, for code in this package.
    package static func parseValue(
        _ value: String, key: String, registered: [TransportKind] = TransportKind.builtIn
    ) throws(SwitchboardError) -> TransportKind {
        let normalised = value.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard let kind = TransportKind(rawValue: normalised), registered.contains(kind) else {
            throw SwitchboardError(
                code: .invalidConfiguration,
                message: "invalid value \(value.debugDescription) for \(key); allowed values: \(allowedValues(registered))")
        }
        return kind
    }

    /// The allowed values, comma-separated: `graphql, appsync` for the built-in kinds.
    package static func allowedValues(_ registered: [TransportKind] = TransportKind.builtIn) -> String {
        registered.isEmpty ? "none (no transport is registered)" : registered.map(\.rawValue).joined(separator: ", ")
    }
}

// MARK: - Config file

extension TransportSelection {
    /// Reads ``configFileKey`` from a JSON config file; nil when the object has no such key.
    private static func readConfigFile(_ url: URL, registered: [TransportKind]) throws -> TransportKind? {
        let path = url.path
        func failure(_ problem: String, cause: (any Error & Sendable)? = nil) -> SwitchboardError {
            SwitchboardError(code: .invalidConfiguration, message: "config file \(path) \(problem)", cause: cause)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw failure("does not exist")
        }
        guard !isDirectory.boolValue else {
            throw failure("is a directory, not a file")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw failure("cannot be read", cause: error)
        }
        let document: ConfigFileValue
        do {
            document = try JSONDecoder().decode(ConfigFileValue.self, from: data)
        } catch {
            throw failure("is not valid JSON", cause: error)
        }
        guard case .object(let object) = document else {
            throw failure("must hold a JSON object at the top level, not \(document.kindDescription)")
        }
        switch object[configFileKey] {
        case nil:
            return nil
        case .string(let value):
            return try parse(value, key: "\(configFileKey) in config file \(path)", registered: registered)
        case let other?:
            throw SwitchboardError(
                code: .invalidConfiguration,
                message: "\(configFileKey) in config file \(path) must be a string "
                    + "(\(allowedValues(registered))), not \(other.kindDescription)")
        }
    }

    /// Any JSON value, kept only as far as the config file check needs it.
    private indirect enum ConfigFileValue: Decodable {
        case null, bool, number, string(String), array, object([String: ConfigFileValue])

        init(from decoder: any Decoder) throws {
            if var array = try? decoder.unkeyedContainer() {
                while !array.isAtEnd { _ = try array.decode(ConfigFileValue.self) }
                self = .array
                return
            }
            if let keyed = try? decoder.container(keyedBy: AnyKey.self) {
                var object: [String: ConfigFileValue] = [:]
                for key in keyed.allKeys { object[key.stringValue] = try keyed.decode(ConfigFileValue.self, forKey: key) }
                self = .object(object)
                return
            }
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let string = try? single.decode(String.self) {
                self = .string(string)
            } else if (try? single.decode(Bool.self)) != nil {
                self = .bool
            } else {
                _ = try single.decode(Double.self)
                self = .number
            }
        }

        var kindDescription: String {
            switch self {
            case .null: "null"
            case .bool: "a boolean"
            case .number: "a number"
            case .string: "a string"
            case .array: "an array"
            case .object: "an object"
            }
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
