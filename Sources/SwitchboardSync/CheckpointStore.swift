import SwitchboardCore

/// Where a ``SyncClient`` keeps the position up to which events have been delivered.
///
/// ``SyncClient/catchUp(since:store:progress:deliver:)`` loads the checkpoint before it starts
/// and saves a new one only after the events before it were delivered, so a catch-up that stops
/// (an error, a crash) resumes where delivery stopped.
///
/// Implementations throw ``/SwitchboardCore/SwitchboardError`` with ``/SwitchboardCore/SwitchboardError/Code/checkpointStorageFailed``
/// when they cannot read or write.
public protocol CheckpointStore: Sendable {
    /// The checkpoint saved last, or nil when none was ever saved.
    func load() async throws -> SyncCheckpoint?
    /// Replaces the saved checkpoint. When it returns, ``load()`` answers `checkpoint`.
    func save(_ checkpoint: SyncCheckpoint) async throws
}

/// A ``CheckpointStore`` in memory: it lasts as long as the process. For tests, and for apps that
/// keep the checkpoint elsewhere and only need one for a run.
public final class InMemoryCheckpointStore: CheckpointStore {
    private let saved: LockedValue<SyncCheckpoint?>

    /// Creates a store.
    /// - Parameter checkpoint: The checkpoint it starts with, if any.
    public init(_ checkpoint: SyncCheckpoint? = nil) { saved = LockedValue(checkpoint) }

    /// The checkpoint saved last, or nil.
    public func load() -> SyncCheckpoint? { saved.withLock { $0 } }

    /// Replaces the checkpoint.
    public func save(_ checkpoint: SyncCheckpoint) { saved.withLock { $0 = checkpoint } }
}
