/// The contract's `eventType` names (contract.md §4), kept as shared strings: a type read from a
/// payload becomes one of these instead of a new `String` per event (each is longer than a small
/// string's 15 bytes, so each new copy would be an allocation).
package enum ContractEventTypes {
    /// Every `eventType` of the contract.
    package static let all: [String] = [
        "device/presenceChanged", "device/recordingStateChanged", "device/firmwareUpdated", "archive/stateChanged",
        "organization/licensePhaseChanged", "organization/planChanged", "organization/aiSettingsChanged",
        "user/roleChanged", "user/tokenRevoked",
    ]
    /// Each name alone in an array, for an envelope's ``EventEnvelope/eventTypes``.
    private static let singles: [[String]] = all.map { [$0] }
    private static let utf8: [[UInt8]] = all.map { Array($0.utf8) }

    /// Which name `bytes` spell.
    private static func index(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        utf8.firstIndex { $0.count == bytes.count && $0.elementsEqual(bytes) }
    }

    /// The shared name that `bytes` spell; nil for anything else.
    package static func name(_ bytes: UnsafeBufferPointer<UInt8>) -> String? { index(of: bytes).map { all[$0] } }

    /// The shared one-name array of the name that `bytes` spell; nil for anything else.
    package static func single(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? { index(of: bytes).map { singles[$0] } }
}
