import Observation
import Switchboard

/// A view model as an app writes it: it shows which cameras are online, whether events are
/// live, and a banner when something went wrong. It depends only on `any BackendNotifying`, so
/// the app hands it the real `BackendNotifier` and its tests hand it a `MockNotifier`
/// (`DevicesViewModelTests`). It uses nothing but Switchboard and Observation, so it builds on
/// every platform; a SwiftUI view reads it directly:
///
/// ```swift
/// struct DevicesView: View {
///     @State var model: DevicesViewModel
///     var body: some View {
///         List(model.devices) { device in Label(device.name, systemImage: device.isOnline ? "video" : "video.slash") }
///             .overlay(alignment: .top) { if let banner = model.banner { Text(banner) } }
///             .task { await model.run() }      // stops when the view goes away
///     }
/// }
/// ```
@MainActor
@Observable
public final class DevicesViewModel {
    /// One camera as the list shows it.
    public struct Device: Identifiable, Equatable, Sendable {
        /// The camera's thing name.
        public var name: String
        /// Whether it was last reported online.
        public var isOnline: Bool
        /// The list identifies a camera by its name.
        public var id: String { name }

        /// Creates a row.
        /// - Parameters:
        ///   - name: The camera's thing name.
        ///   - isOnline: Whether it is online.
        public init(name: String, isOnline: Bool) {
            self.name = name
            self.isOnline = isOnline
        }
    }

    /// The cameras reported so far, sorted by name.
    public private(set) var devices: [Device] = []
    /// Events are arriving live: the notifier is connected.
    public private(set) var isLive = false
    /// A message for the user after an error; cleared once connected again.
    public private(set) var banner: String?
    /// The session expired: the app should ask the user to sign in again.
    public private(set) var needsSignIn = false

    private let notifier: any BackendNotifying

    /// Creates the model; nothing is requested until ``run()``.
    /// - Parameter notifier: The notifier to read (the app's `BackendNotifier`, a mock in tests).
    public init(notifier: any BackendNotifying) {
        self.notifier = notifier
    }

    /// Reads presence changes, the connection state and errors until the calling task is
    /// cancelled (SwiftUI's `.task` does that when the view goes away) or the notifier stops.
    public func run() async {
        let presence = await notifier.devicePresenceValues()
        let states = await notifier.connectionStates()
        let errors = await notifier.errors()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.show(presence) }
            group.addTask { await self.show(states) }
            group.addTask { await self.show(errors) }
        }
    }

    private func show(_ presence: AsyncStream<DevicePresenceOutput>) async {
        for await change in presence {
            guard let name = change.thingName, let online = change.online else { continue }
            if let index = devices.firstIndex(where: { $0.name == name }) {
                devices[index].isOnline = online
            } else {
                devices.append(Device(name: name, isOnline: online))
                devices.sort { $0.name < $1.name }
            }
        }
    }

    private func show(_ states: AsyncStream<ConnectionState>) async {
        for await state in states {
            isLive = state == .connected
            if isLive { banner = nil }
        }
    }

    private func show(_ errors: AsyncStream<SwitchboardError>) async {
        for await error in errors {
            switch error.code {
            case .sessionExpired:
                needsSignIn = true
                banner = "Please sign in again."
            case .network:
                banner = "Connection lost. Reconnecting…"
            default:
                banner = "Some updates could not be shown."
            }
        }
    }
}
