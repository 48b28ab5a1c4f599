/// Something that can deliver what was published after a checkpoint: a ``SyncClient``, or a
/// test double.
///
/// `BackendNotifier` catches up through this protocol after a reconnect, a transport switch or a
/// start with a saved checkpoint (its `Configuration.catchUp`).
public protocol CatchUpSource: Sendable {
    /// Delivers, batch by batch and in order, every event published after the checkpoint in
    /// `store` (or after `since` when the store holds none), saving the checkpoint after each
    /// delivered batch. See ``SyncClient/catchUp(since:store:progress:deliver:)`` for the full
    /// contract.
    func catchUp(
        since: SyncCheckpoint?,
        store: any CheckpointStore,
        progress: @escaping @Sendable (SyncProgress) -> Void,
        deliver: @escaping @Sendable ([SyncEvent]) async throws -> Void
    ) async throws -> SyncSummary
}

extension SyncClient: CatchUpSource {}
