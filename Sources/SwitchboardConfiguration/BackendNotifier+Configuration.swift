#if SwiftConfiguration
import Configuration
import Switchboard
import SwitchboardCore

/// Following the transport setting through swift-configuration (trait `SwiftConfiguration`).
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
extension BackendNotifier {
    /// Switches the transport whenever the configuration's transport setting changes, until the
    /// notifier shuts down or the calling task is cancelled.
    ///
    /// It watches `key` with ``TransportSelection/watchTransport(config:key:defaultKind:registered:updatesHandler:)``:
    /// the current value is applied at once (nothing happens when it names the active transport),
    /// then every change, one after another, with ``/Switchboard/BackendNotifier/switchTransport(to:)-(TransportSelection)``.
    /// A value that is not `graphql` or `appsync`, or a switch that fails, is reported on
    /// ``/Switchboard/BackendNotifier/errors()`` and the broker as ``/SwitchboardCore/SwitchboardError/Code/invalidConfiguration`` and the
    /// current transport stays; the watch goes on. An unset key means `defaultKind`.
    ///
    /// The notifier needs a transport factory
    /// (``/Switchboard/BackendNotifier/init(selection:session:configuration:broker:filter:logger:metricsFactory:transportFactory:)``).
    /// Run it next to ``/Switchboard/BackendNotifier/run()``:
    ///
    /// ```swift
    /// let provider = try await ReloadingFileProvider<JSONSnapshot>(filePath: "/etc/app/config.json")
    /// let config = ConfigReader(provider: provider)
    /// let notifier = try BackendNotifier(
    ///     selection: TransportSelection.resolve(config: config), session: session, transportFactory: makeTransport)
    /// try await withThrowingDiscardingTaskGroup { group in
    ///     group.addTask { try await provider.run() }
    ///     group.addTask { try await notifier.run() }
    ///     group.addTask { try await notifier.followTransport(config: config) }
    ///     …
    /// }
    /// ```
    /// - Parameters:
    ///   - config: The reader to watch.
    ///   - key: The key to watch; `switchboard.transport` by default.
    ///   - defaultKind: The transport while no provider sets the key.
    ///   - registered: The names that may be selected: the kinds of the
    ///     ``/SwitchboardCore/TransportRegistry`` the notifier was made with; the built-in
    ///     `graphql` and `appsync` by default.
    /// - Throws: What the providers' watch throws. Invalid values and failed switches are
    ///   reported, not thrown; it returns normally when the notifier shuts down or the task is
    ///   cancelled.
    public nonisolated func followTransport(
        config: ConfigReader,
        key: ConfigKey = TransportSelection.configurationKey,
        defaultKind: TransportKind = .appsync,
        registered: [TransportKind] = TransportKind.builtIn
    ) async throws {
        // Finishes when the notifier shuts down (at once if it already has).
        let states = await connectionStates()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in states {}
            }
            group.addTask {
                try await TransportSelection.watchTransport(
                    config: config, key: key, defaultKind: defaultKind, registered: registered
                ) { updates in
                    for await update in updates {
                        guard try await self.follow(update) else { return }
                    }
                }
            }
            defer { group.cancelAll() }
            do {
                try await group.next()
            } catch is CancellationError {
                return
            }
        }
    }

    /// Applies one watched value; false once the notifier has shut down.
    private func follow(_ update: Result<TransportSelection, SwitchboardError>) async throws -> Bool {
        switch update {
        case .success(let selection):
            do {
                try await switchTransport(to: selection)
            } catch let error as SwitchboardError where error.code == .shutDown {
                return false
            } catch let error as SwitchboardError where error.code == .invalidConfiguration {
                // Already reported by switchTransport; the current transport stays.
            }
        case .failure(let error):
            rejectTransportSetting(error)
        }
        return true
    }
}
#endif
