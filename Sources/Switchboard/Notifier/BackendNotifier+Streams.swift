import CoreMetrics
import Logging
import SwitchboardCore

extension BackendNotifier {
    // MARK: The five existing methods (unchanged signatures)

    /// Device events of every kind (presence, recording, firmware): `…/device/*` on AppSync
    /// Events, `subscribeDeviceState` on GraphQL.
    public func deviceValues() -> AsyncStream<DeviceStateOutput> { values(DeviceStateOutput.self) }

    /// Archive (recorded video) state changes.
    public func archiveValues() -> AsyncStream<ArchiveStateOutput> { values(ArchiveStateOutput.self) }

    /// Organization events of every kind (license phase, plan, AI settings): `…/organization/*`
    /// on AppSync Events, `subscribeOrganizationState` on GraphQL.
    public func organizationValues() -> AsyncStream<OrganizationStateOutput> { values(OrganizationStateOutput.self) }

    /// Changes of the signed-in user's role.
    public func roleValues() -> AsyncStream<RoleChangeOutput> { values(RoleChangeOutput.self) }

    /// Revocations of the signed-in user's tokens.
    public func revokeValues() -> AsyncStream<UserTokenRevokeOutput> { values(UserTokenRevokeOutput.self) }

    // MARK: Per-channel methods

    /// Device presence changes (`device/presenceChanged`; on GraphQL, device states with `online` set).
    public func devicePresenceValues() -> AsyncStream<DevicePresenceOutput> { values(DevicePresenceOutput.self) }

    /// Device recording changes (`device/recordingStateChanged`; on GraphQL, `recording` set).
    public func deviceRecordingValues() -> AsyncStream<DeviceRecordingOutput> { values(DeviceRecordingOutput.self) }

    /// Device firmware updates (`device/firmwareUpdated`; on GraphQL, `fwUpdateState` set).
    public func deviceFirmwareValues() -> AsyncStream<DeviceFirmwareOutput> { values(DeviceFirmwareOutput.self) }

    /// License phase changes (`organization/licensePhaseChanged`; on GraphQL, `licensePhase` set).
    public func licenseValues() -> AsyncStream<LicenseStateOutput> { values(LicenseStateOutput.self) }

    /// Plan changes (`organization/planChanged`; on GraphQL, `isFreePlan` set).
    public func planValues() -> AsyncStream<PlanStateOutput> { values(PlanStateOutput.self) }

    /// AI settings changes (`organization/aiSettingsChanged`; on GraphQL, `AIControlSetting` set).
    public func aiSettingsValues() -> AsyncStream<AISettingsOutput> { values(AISettingsOutput.self) }

    // MARK: State and errors

    /// The connection state: the current one first, then every change. Each call returns an
    /// independent stream.
    public func connectionStates() -> AsyncStream<ConnectionState> {
        observers.observeStates(
            current: connectionState, policy: configuration.bufferingPolicy, open: lifecycle != .shutDown,
            overflow: overflowReporter(for: "connectionStates"), ended: observerEnded)
    }

    /// Every error the notifier reports: rejected subscriptions (with the server's message),
    /// an expired session, network failures and timeouts, undecodable payloads, invalid channels.
    /// Each call returns an independent stream.
    public func errors() -> AsyncStream<SwitchboardError> {
        observers.observeErrors(
            policy: configuration.bufferingPolicy, open: lifecycle != .shutDown,
            overflow: overflowReporter(for: "errors"), ended: observerEnded)
    }

    /// The connection state and the errors in one stream, in the order they happened: the
    /// current state first, then every change and every error. For ``NotifierStatus``, which
    /// must know whether an error came before or after a connect.
    package func statusChanges() -> AsyncStream<StatusChange> {
        observers.observeChanges(
            current: connectionState, policy: configuration.bufferingPolicy, open: lifecycle != .shutDown,
            overflow: overflowReporter(for: "statusChanges"), ended: observerEnded)
    }

    /// The current connection state.
    public var currentConnectionState: ConnectionState { connectionState }

    // MARK: Plumbing

    func takeConsumerID() -> Int {
        defer { nextConsumerID += 1 }
        return nextConsumerID
    }

    /// Tells the input loop that an observer's consumer stopped iterating.
    var observerEnded: @Sendable (Int) -> Void {
        let inputs = inputContinuation
        return { inputs.yield(.observerEnded($0)) }
    }

    /// Counts, logs and publishes the overflows of the consumer stream `stream`.
    func overflowReporter(for stream: String) -> OverflowReporter {
        OverflowReporter(
            monitor: OverflowMonitor(stream: stream, policy: configuration.bufferingPolicy),
            dropped: metrics.consumerDropped(stream: stream), broker: broker, logger: logger)
    }

    /// A new consumer stream of `Output`, fed from the broker, counted as demand for its stream.
    func values<Output: CatalogEvent>(_ type: Output.Type) -> AsyncStream<Output> {
        let descriptor = StreamCatalog.descriptor(for: type)
        let (stream, continuation) = AsyncStream<Output>.makeStream(
            bufferingPolicy: configuration.bufferingPolicy.streamPolicy(of: Output.self))
        guard lifecycle != .shutDown else {
            continuation.finish()
            return stream
        }
        let name = descriptor.id.rawValue
        let overflow = overflowReporter(for: name)
        let subscription = broker.subscribe(Output.self, where: { $0.metadata.stream == name }) { record in
            overflow.record(continuation.yield(record.event))
        }
        let id = takeConsumerID()
        consumers[id] = Consumer(stream: descriptor.id, subscription: subscription, finish: { continuation.finish() })
        let inputs = inputContinuation
        continuation.onTermination = { _ in
            subscription.cancel()
            inputs.yield(.consumerEnded(id))
        }
        reconcile()
        publishStreamStatuses()
        return stream
    }
}
