import Foundation

/// Where a catch-up starts when its checkpoint store holds nothing yet.
public enum SyncStart: Sendable, Equatable {
    /// From a checkpoint: one the server issued, or one made from a time the backend's clock
    /// gave (``SyncCheckpoint/init(publishedAfter:)``).
    case checkpoint(SyncCheckpoint)
    /// From the backend's time at moment `moment` of the catch-up's ``BackendClock`` (such as
    /// when a session began): the source works out that time from the server's clock
    /// (`serverTime`), never from this device's.
    case backendTime(at: Duration)
}

/// Something that can deliver what was published after a checkpoint: a ``SyncClient``, or a
/// test double.
///
/// `BackendNotifier` catches up through this protocol after a reconnect, a transport switch or a
/// start with a saved checkpoint (its `Configuration.catchUp`).
public protocol CatchUpSource: Sendable {
    /// Delivers, batch by batch and in order, every event published after the checkpoint in
    /// `store` (or after `start` when the store holds none), saving the checkpoint after each
    /// delivered batch, and records the server's time of each answer that carries it in
    /// `backendClock`. See ``SyncClient/catchUp(from:store:backendClock:progress:deliver:)`` for
    /// the full contract.
    func catchUp(
        from start: SyncStart?,
        store: any CheckpointStore,
        backendClock: BackendClock,
        progress: @escaping @Sendable (SyncProgress) -> Void,
        deliver: @escaping @Sendable ([SyncEvent]) async throws -> Void
    ) async throws -> SyncSummary
}

extension SyncClient: CatchUpSource {}
