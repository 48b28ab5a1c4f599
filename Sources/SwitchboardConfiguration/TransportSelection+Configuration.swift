@_exported import Switchboard

#if SwiftConfiguration
import Configuration
import SwitchboardCore

/// Reading the transport setting through swift-configuration (trait `SwiftConfiguration`).
///
/// Keys (relative to the reader passed in):
///
/// | key | type | values | default |
/// |---|---|---|---|
/// | `switchboard.transport` | string | `graphql`, `appsync` (case-insensitive, whitespace ignored) | `appsync` |
///
/// With `EnvironmentVariablesProvider`, the key `switchboard.transport` is read from the
/// upper-case variable `SWITCHBOARD_TRANSPORT` (the same name as
/// ``/Switchboard/TransportSelection/environmentVariable``); the provider ignores lower-case names. In a JSON
/// `FileProvider`, write `{"switchboard": {"transport": "graphql"}}`.
///
/// A value that is present but invalid (an unknown string, or a number, boolean or array) is an
/// error, never a silent fall-back to the default.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
extension TransportSelection {
    /// The key the configuration-based resolution reads by default.
    public static let configurationKey: ConfigKey = "switchboard.transport"

    /// Resolves the transport from a configuration reader, or the default when the key is unset.
    ///
    /// Precedence between sources is the reader's: its first provider that has the key wins.
    /// - Parameters:
    ///   - config: The reader to read from.
    ///   - key: The key to read; `switchboard.transport` by default.
    ///   - defaultKind: The transport when no provider sets the key.
    ///   - registered: The names that may be selected: the app's
    ///     ``/SwitchboardCore/TransportRegistry/kinds``; the built-in `graphql` and `appsync` by default.
    /// - Returns: The selection, with source ``/Switchboard/TransportSelection/Source/configuration(key:)``, or
    ///   ``/Switchboard/TransportSelection/Source/default``.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` when the
    ///   value is not a registered name, or is not a string; the message names the key and lists
    ///   the registered names.
    public static func resolve(
        config: ConfigReader,
        key: ConfigKey = TransportSelection.configurationKey,
        defaultKind: TransportKind = .appsync,
        registered: [TransportKind] = TransportKind.builtIn
    ) throws -> TransportSelection {
        try selection(
            for: config.string(forKey: key), config: config, key: key, defaultKind: defaultKind, registered: registered)
    }

    /// Watches the transport setting: `updatesHandler` receives the current selection at once,
    /// then a new one whenever a provider reports a change, until it returns.
    ///
    /// An invalid value arrives as a `.failure` so that a bad edit does not end the watch; keep
    /// running the previous transport until a valid value arrives.
    ///
    /// ```swift
    /// try await TransportSelection.watchTransport(config: config) { updates in
    ///     for await update in updates {
    ///         switch update {
    ///         case .success(let selection): await switchTo(selection.kind)
    ///         case .failure(let error): logger.info("ignoring \(error)")
    ///         }
    ///     }
    /// }
    /// ```
    /// - Parameters:
    ///   - config: The reader to watch.
    ///   - key: The key to watch; `switchboard.transport` by default.
    ///   - defaultKind: The transport while no provider sets the key.
    ///   - registered: The names that may be selected; the built-in `graphql` and `appsync` by default.
    ///   - updatesHandler: Receives the updates; the watch ends when it returns.
    /// - Returns: What `updatesHandler` returns.
    /// - Throws: What `updatesHandler` or the providers' watch throws. Invalid values are not
    ///   thrown; they arrive as ``/SwitchboardCore/SwitchboardError`` with
    ///   ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` in the sequence.
    public static func watchTransport<Return: ~Copyable>(
        config: ConfigReader,
        key: ConfigKey = TransportSelection.configurationKey,
        defaultKind: TransportKind = .appsync,
        registered: [TransportKind] = TransportKind.builtIn,
        updatesHandler: (
            _ updates: ConfigUpdatesAsyncSequence<Result<TransportSelection, SwitchboardError>, Never>
        ) async throws -> Return
    ) async throws -> Return {
        try await config.watchString(forKey: key) { values in
            try await updatesHandler(
                ConfigUpdatesAsyncSequence(
                    values.map { value in
                        Result { () throws(SwitchboardError) in
                            try selection(
                                for: value, config: config, key: key, defaultKind: defaultKind, registered: registered)
                        }
                    }))
        }
    }

    /// Turns a string read (nil when missing or not a string) into a selection.
    private static func selection(
        for value: String?, config: ConfigReader, key: ConfigKey, defaultKind: TransportKind, registered: [TransportKind]
    ) throws(SwitchboardError) -> TransportSelection {
        let source = Source.configuration(key: key.description)
        if let value {
            return TransportSelection(kind: try parseValue(value, key: key.description, registered: registered), source: source)
        }
        if let type = nonStringType(config: config, key: key) {
            throw SwitchboardError(
                code: .invalidConfiguration,
                message: "invalid value for \(key.description): expected a string (\(allowedValues(registered))), found \(type)")
        }
        return TransportSelection(kind: defaultKind, source: .default)
    }

    /// `string(forKey:)` returns nil both when the key is missing and when its value has another
    /// type. To tell them apart, look the key up as every other type: exactly one can match.
    private static func nonStringType(config: ConfigReader, key: ConfigKey) -> String? {
        if config.int(forKey: key) != nil { return "an integer" }
        if config.double(forKey: key) != nil { return "a double" }
        if config.bool(forKey: key) != nil { return "a boolean" }
        if config.bytes(forKey: key) != nil { return "bytes" }
        if config.stringArray(forKey: key) != nil { return "a string array" }
        if config.intArray(forKey: key) != nil { return "an integer array" }
        if config.doubleArray(forKey: key) != nil { return "a double array" }
        if config.boolArray(forKey: key) != nil { return "a boolean array" }
        if config.byteChunkArray(forKey: key) != nil { return "a byte chunk array" }
        return nil
    }
}
#endif
