import SwitchboardCore

/// What a consumer of backend events depends on: the typed value streams, the connection state
/// and the errors of a notifier.
///
/// ``BackendNotifier`` conforms. Write view models and other consumers against
/// `any BackendNotifying` and inject a mock in their tests (`MockNotifier` in the
/// `SwitchboardTesting` product) instead of running a transport:
///
/// ```swift
/// @Observable final class DevicesModel {
///     private let notifier: any BackendNotifying
///     init(notifier: any BackendNotifying) { self.notifier = notifier }
///     func run() async {
///         for await presence in await notifier.devicePresenceValues() { … }
///     }
/// }
/// ```
///
/// Every requirement is `async`, so an actor such as ``BackendNotifier`` satisfies it with its
/// isolated methods and a caller crosses into its isolation with one `await`. Each call returns
/// a new, independent stream for one consumer: never share one stream between consumers.
/// A stream finishes when the notifier shuts down.
public protocol BackendNotifying: Sendable {
    /// Device events of every kind (presence, recording, firmware).
    /// - Returns: A new stream for one consumer.
    func deviceValues() async -> AsyncStream<DeviceStateOutput>
    /// Archive (recorded video) state changes.
    /// - Returns: A new stream for one consumer.
    func archiveValues() async -> AsyncStream<ArchiveStateOutput>
    /// Organization events of every kind (license phase, plan, AI settings).
    /// - Returns: A new stream for one consumer.
    func organizationValues() async -> AsyncStream<OrganizationStateOutput>
    /// Changes of the signed-in user's role.
    /// - Returns: A new stream for one consumer.
    func roleValues() async -> AsyncStream<RoleChangeOutput>
    /// Revocations of the signed-in user's tokens.
    /// - Returns: A new stream for one consumer.
    func revokeValues() async -> AsyncStream<UserTokenRevokeOutput>
    /// Device presence changes.
    /// - Returns: A new stream for one consumer.
    func devicePresenceValues() async -> AsyncStream<DevicePresenceOutput>
    /// Device recording changes.
    /// - Returns: A new stream for one consumer.
    func deviceRecordingValues() async -> AsyncStream<DeviceRecordingOutput>
    /// Device firmware updates.
    /// - Returns: A new stream for one consumer.
    func deviceFirmwareValues() async -> AsyncStream<DeviceFirmwareOutput>
    /// License phase changes.
    /// - Returns: A new stream for one consumer.
    func licenseValues() async -> AsyncStream<LicenseStateOutput>
    /// Plan changes.
    /// - Returns: A new stream for one consumer.
    func planValues() async -> AsyncStream<PlanStateOutput>
    /// AI settings changes.
    /// - Returns: A new stream for one consumer.
    func aiSettingsValues() async -> AsyncStream<AISettingsOutput>
    /// The connection state: the current one first, then every change.
    /// - Returns: A new stream for one consumer.
    func connectionStates() async -> AsyncStream<ConnectionState>
    /// Every error the notifier reports, as ``/SwitchboardCore/SwitchboardError`` with a stable code.
    /// - Returns: A new stream for one consumer.
    func errors() async -> AsyncStream<SwitchboardError>
}

extension BackendNotifier: BackendNotifying {}
