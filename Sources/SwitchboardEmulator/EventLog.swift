import DequeModule
import Foundation
import SwitchboardCore
import SwitchboardSync

/// The bounded log of every event published, in publication order, behind the sync endpoints
/// (contract §6).
///
/// Each entry gets the next sequence number; its id and checkpoint are made from that number
/// and the log's ``epoch`` (a random token per emulator run), so both are unique and a
/// checkpoint from another run is never mistaken for one of this run. Publication times never go
/// backwards: an entry is stamped no earlier than the one before it.
///
/// When the log holds ``capacity`` entries, the oldest is dropped. A request whose `since` lies
/// before the oldest entry still held is refused as ``SyncErrorBody/checkpointExpired`` rather
/// than answered with a silently shortened list; a request without `since` starts at the oldest
/// entry held.
final class EventLog: Sendable {
    struct Entry: Sendable {
        var sequence: UInt64
        var channel: String
        var event: String
        var publishedAt: Date
    }

    /// Where a read starts, parsed from a `since` value.
    enum Position: Equatable {
        /// The oldest entry held.
        case oldest
        /// The entry after the one with this sequence number (a checkpoint).
        case after(sequence: UInt64)
        /// The first entry published strictly after this time (an RFC 3339 timestamp).
        case publishedAfter(Date)
    }

    /// A refused read: its code and message as the sync endpoints report them.
    struct Refusal: Error, Equatable {
        var body: SyncErrorBody
        var isExpired: Bool { body.code == SyncErrorBody.checkpointExpired }
    }

    /// Entries read from the log and the checkpoint after the last of them.
    struct Slice {
        var events: [SyncEvent]
        var checkpoint: String
        var hasMore: Bool
    }

    private struct State {
        var entries: Deque<Entry> = []
        var nextSequence: UInt64 = 1
        /// The newest entry dropped for capacity, if any.
        var newestDropped: (sequence: UInt64, publishedAt: Date)?
        var lastPublishedAt: Date = .distantPast
    }

    /// A token unique to this log, part of every id and checkpoint.
    let epoch: String
    /// The most entries kept.
    let capacity: Int
    private let state = LockedValue(State())
    private let now: @Sendable () -> Date

    init(capacity: Int, epoch: String = EventLog.makeEpoch(), now: @escaping @Sendable () -> Date) {
        precondition(capacity > 0, "the event log needs room for at least one event")
        self.capacity = capacity
        self.epoch = epoch
        self.now = now
    }

    static func makeEpoch() -> String { String(UUID().uuidString.lowercased().prefix(8)) }

    /// Appends an event, dropping the oldest when full.
    @discardableResult
    func append(channel: String, event: String) -> SyncEvent {
        let time = now()
        let entry = state.withLock { state in
            state.lastPublishedAt = max(state.lastPublishedAt, time)
            let entry = Entry(sequence: state.nextSequence, channel: channel, event: event, publishedAt: state.lastPublishedAt)
            state.nextSequence += 1
            state.entries.append(entry)
            if state.entries.count > capacity, let dropped = state.entries.popFirst() {
                state.newestDropped = (dropped.sequence, dropped.publishedAt)
            }
            return entry
        }
        return syncEvent(entry)
    }

    /// Every entry held, oldest first.
    var events: [SyncEvent] { state.withLock { Array($0.entries) }.map(syncEvent) }

    /// Reads at most `limit` entries from `since`.
    /// - Parameters:
    ///   - since: A checkpoint this log issued, an RFC 3339 timestamp, or nil/empty for the
    ///     oldest entry held.
    ///   - limit: The most entries to return; nil for all.
    /// - Throws: ``Refusal`` for an expired or unreadable `since`.
    func read(since: String?, limit: Int?) throws(Refusal) -> Slice {
        let position = try position(of: since)
        let read = state.withLock { state -> Result<([Entry], UInt64, Bool), Refusal> in
            Result { () throws(Refusal) in
                let start = try Self.startIndex(of: position, in: state)
                let end = limit.map { min(state.entries.count, start + $0) } ?? state.entries.count
                let firstSequence = state.entries.first?.sequence ?? state.nextSequence
                let lastSequence = end > start ? state.entries[end - 1].sequence : firstSequence + UInt64(start) - 1
                return (Array(state.entries[start..<end]), lastSequence, end < state.entries.count)
            }
        }
        let (entries, checkpointSequence, hasMore) = try read.get()
        return Slice(events: entries.map(syncEvent), checkpoint: checkpoint(after: checkpointSequence), hasMore: hasMore)
    }

    /// The checkpoint that resumes after the entry with `sequence`.
    func checkpoint(after sequence: UInt64) -> String { "v1.\(epoch).\(sequence)" }

    /// The checkpoint after the last of `events` (which this log issued).
    func checkpoint(after event: SyncEvent) -> String? {
        sequence(ofID: event.id).map { checkpoint(after: $0) }
    }

    func position(of since: String?) throws(Refusal) -> Position {
        guard let since, !since.isEmpty else { return .oldest }
        if since.hasPrefix("v1.") {
            let parts = since.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, let sequence = UInt64(parts[2]) else {
                throw Self.invalid("'\(since)' is not a checkpoint this server issued")
            }
            guard parts[1] == epoch else {
                throw Refusal(body: SyncErrorBody(
                    error: "checkpoint '\(since)' is from an earlier run of the server; its events are gone",
                    code: SyncErrorBody.checkpointExpired))
            }
            return .after(sequence: sequence)
        }
        guard let date = ISO8601Timestamp.date(from: since) else {
            throw Self.invalid("since must be a checkpoint or an RFC 3339 timestamp, not '\(since)'")
        }
        return .publishedAfter(date)
    }

    private static func startIndex(of position: Position, in state: State) throws(Refusal) -> Int {
        let expired = Refusal(body: SyncErrorBody(
            error: "events after this checkpoint were dropped from the log (it holds \(state.entries.count)); a full resynchronisation is needed",
            code: SyncErrorBody.checkpointExpired))
        switch position {
        case .oldest:
            return 0
        case .after(let sequence):
            if let dropped = state.newestDropped, sequence < dropped.sequence { throw expired }
            guard sequence < state.nextSequence else {
                throw invalid("checkpoint \(sequence) is ahead of the log (last event \(state.nextSequence - 1))")
            }
            let firstSequence = state.entries.first?.sequence ?? state.nextSequence
            return Int(sequence + 1 - firstSequence)
        case .publishedAfter(let date):
            if let dropped = state.newestDropped, dropped.publishedAt > date { throw expired }
            return Self.firstIndex(publishedAfter: date, in: state.entries)
        }
    }

    /// Binary search: publication times never decrease along the log.
    private static func firstIndex(publishedAfter date: Date, in entries: Deque<Entry>) -> Int {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].publishedAt > date { high = middle } else { low = middle + 1 }
        }
        return low
    }

    private static func invalid(_ message: String) -> Refusal {
        Refusal(body: SyncErrorBody(error: message, code: SyncErrorBody.invalidCheckpoint))
    }

    private func syncEvent(_ entry: Entry) -> SyncEvent {
        SyncEvent(id: "\(epoch)-\(entry.sequence)", channel: entry.channel, event: entry.event, publishedAt: entry.publishedAt)
    }

    private func sequence(ofID id: String) -> UInt64? {
        guard id.hasPrefix("\(epoch)-") else { return nil }
        return UInt64(id.dropFirst(epoch.count + 1))
    }
}
