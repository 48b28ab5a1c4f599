import Foundation
import Switchboard
import SwitchboardCore
import Testing

/// The typed event models: decoding both wire contracts, encoding, and the payload decoder.
/// Each file adds one nested suite, so `swift test --filter ModelTests` runs them all.
@Suite("Event models")
struct ModelTests {}

/// Decodes a JSON text through the notifier's entry point.
func decodePayload<T: Decodable>(_ type: T.Type, _ json: String) throws(SwitchboardError) -> T {
    try EventPayloadDecoder.decode(type, from: Data(json.utf8))
}

/// Decodes a payload that must fail and returns the error.
func decodingError<T: Decodable>(_ type: T.Type, _ json: String) -> SwitchboardError? {
    do {
        _ = try decodePayload(type, json)
        return nil
    } catch {
        return error
    }
}

/// Encodes a value and decodes the bytes again.
func roundTrip<T: Codable>(_ value: T) throws -> T {
    try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
}

/// The top-level keys of an encoded value.
func encodedKeys<T: Encodable>(_ value: T) throws -> Set<String> {
    let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value))
    return Set((object as? [String: Any])?.keys.map { $0 } ?? [])
}

/// An instant built with Foundation's calendar, independent of the parser under test.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int, _ second: Int, milliseconds: Int = 0) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
    let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    let whole = calendar.date(from: components) ?? .distantPast
    return Date(timeIntervalSinceReferenceDate: whole.timeIntervalSinceReferenceDate + Double(milliseconds) / 1000)
}

/// `2024-05-01T12:34:56.789+09:00`, the instant most AppSync fixtures carry.
let fixtureTimestamp = utc(2024, 5, 1, 3, 34, 56, milliseconds: 789)

/// Reads the deprecated `deviceGroupID` alias without a deprecation warning at every use.
protocol LegacySiteNamed {
    var deviceGroupID: String? { get }
}

extension DeviceStateOutput: LegacySiteNamed {}
extension DevicePresenceOutput: LegacySiteNamed {}
extension DeviceRecordingOutput: LegacySiteNamed {}
extension DeviceFirmwareOutput: LegacySiteNamed {}
extension ArchiveStateOutput: LegacySiteNamed {}

/// Reads the deprecated `AIControlSetting` alias without a deprecation warning at every use.
protocol LegacyAISettingsNamed {
    var AIControlSetting: Switchboard.AIControlSetting? { get }
}

extension OrganizationStateOutput: LegacyAISettingsNamed {}
extension AISettingsOutput: LegacyAISettingsNamed {}

/// The deprecated `deviceGroupID` of a model, read through ``LegacySiteNamed``.
func legacySiteID(of value: some LegacySiteNamed) -> String? {
    value.deviceGroupID
}

/// The deprecated `AIControlSetting` of a model, read through ``LegacyAISettingsNamed``.
func legacyAISettings(of value: some LegacyAISettingsNamed) -> Switchboard.AIControlSetting? {
    value.AIControlSetting
}
