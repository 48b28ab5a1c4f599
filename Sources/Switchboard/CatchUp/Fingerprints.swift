import Foundation

/// What recognises one delivered value again: its stream and typed fields without the metadata
/// only AppSync Events carries, plus its `timestamp` when it has one. Two values match when
/// their keys are equal and their timestamps are equal or one is missing (the legacy transport
/// sends none), so equal events published at different times stay distinct on AppSync Events.
struct Fingerprint: Equatable {
    var key: FingerprintKey
    var timestamp: Date?
}

/// A value's stream and typed fields, compared by the model's own `Hashable` conformance (not
/// by a description of the value).
struct FingerprintKey: Hashable {
    var stream: StreamID
    var fields: AnyHashable
}

/// A multiset of fingerprints.
struct Fingerprints {
    private var entries: [FingerprintKey: [Date?]] = [:]
    /// How many fingerprints it holds.
    private(set) var count = 0

    mutating func add(_ mark: Fingerprint) {
        entries[mark.key, default: []].append(mark.timestamp)
        count += 1
    }

    /// Removes one entry that matches `mark`; false when none does.
    mutating func take(_ mark: Fingerprint) -> Bool {
        guard var timestamps = entries[mark.key] else { return false }
        let index = timestamps.firstIndex { $0 == mark.timestamp }
            ?? timestamps.firstIndex { $0 == nil || mark.timestamp == nil }
        guard let index else { return false }
        timestamps.remove(at: index)
        entries[mark.key] = timestamps.isEmpty ? nil : timestamps
        count -= 1
        return true
    }
}
