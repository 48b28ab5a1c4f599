import Foundation

/// What recognises one delivered value again: its stream and typed fields without the metadata
/// only AppSync Events carries, plus its `timestamp` when it has one. Two values match when
/// their keys are equal and their timestamps are equal or one is missing (the legacy transport
/// sends none), so equal events published at different times stay distinct on AppSync Events.
struct Fingerprint: Equatable {
    var key: FingerprintKey
    var timestamp: Date?
    /// What remembering it costs, in bytes: the size of the payload it was decoded from plus
    /// ``Fingerprints/entryOverhead`` (the model's fields take about what their JSON took).
    var bytes: Int = Fingerprints.entryOverhead
}

/// A value's stream and typed fields, compared by the model's own `Hashable` conformance (not
/// by a description of the value).
struct FingerprintKey: Hashable {
    var stream: StreamID
    var fields: AnyHashable
}

/// A multiset of fingerprints, which knows what it holds in bytes.
struct Fingerprints {
    /// The bytes counted for each fingerprint on top of its payload's: the dictionary entry,
    /// the boxed key and the timestamp.
    static let entryOverhead = 64

    private var entries: [FingerprintKey: [(timestamp: Date?, bytes: Int)]] = [:]
    /// How many fingerprints it holds.
    private(set) var count = 0
    /// What they cost, in bytes (the sum of their ``Fingerprint/bytes``).
    private(set) var bytes = 0

    mutating func add(_ mark: Fingerprint) {
        entries[mark.key, default: []].append((mark.timestamp, mark.bytes))
        count += 1
        bytes += mark.bytes
    }

    /// Removes one entry that matches `mark`; false when none does.
    mutating func take(_ mark: Fingerprint) -> Bool {
        guard var timestamps = entries[mark.key] else { return false }
        let index = timestamps.firstIndex { $0.timestamp == mark.timestamp }
            ?? timestamps.firstIndex { $0.timestamp == nil || mark.timestamp == nil }
        guard let index else { return false }
        remove(at: index, of: &timestamps)
        entries[mark.key] = timestamps.isEmpty ? nil : timestamps
        return true
    }

    /// Forgets fingerprints, whichever come first, until they cost at most `limit` bytes;
    /// returns how many went.
    mutating func evict(downTo limit: Int) -> Int {
        var evicted = 0
        while bytes > limit, let (key, timestamps) = entries.first {
            var remaining = timestamps
            remove(at: remaining.startIndex, of: &remaining)
            entries[key] = remaining.isEmpty ? nil : remaining
            evicted += 1
        }
        return evicted
    }

    private mutating func remove(at index: Int, of timestamps: inout [(timestamp: Date?, bytes: Int)]) {
        bytes -= timestamps[index].bytes
        timestamps.remove(at: index)
        count -= 1
    }
}
