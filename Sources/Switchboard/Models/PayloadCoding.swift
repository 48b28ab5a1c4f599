import Foundation
import SwitchboardCore

/// A wire field name. The models decode through string keys so that the new and the legacy name
/// of a field can both be read, and so the shared fields are decoded by one piece of code.
package struct PayloadKey: CodingKey, Hashable, Sendable {
    package let stringValue: String
    package var intValue: Int? { nil }

    init(_ name: String) { self.stringValue = name }
    package init?(stringValue: String) { self.stringValue = stringValue }
    package init?(intValue: Int) { nil }

    // Metadata every AppSync Events payload carries.
    static let eventType = PayloadKey("eventType")
    static let timestamp = PayloadKey("timestamp")

    // Fields shared by device and archive payloads.
    static let orgId = PayloadKey("orgId")
    static let siteId = PayloadKey("siteId")
    static let deviceGroupID = PayloadKey("deviceGroupID")
    static let thingName = PayloadKey("thingName")
    static let derivant = PayloadKey("derivant")
    static let mac = PayloadKey("mac")

    // Device fields.
    static let online = PayloadKey("online")
    static let recording = PayloadKey("recording")
    static let fwUpdateState = PayloadKey("fwUpdateState")

    // Archive fields.
    static let archiveId = PayloadKey("archiveId")
    static let status = PayloadKey("status")
    static let videoLength = PayloadKey("videoLength")
    static let videoSize = PayloadKey("videoSize")
    static let cloudSize = PayloadKey("cloudSize")
    static let hasH265 = PayloadKey("hasH265")
    static let createdAt = PayloadKey("createdAt")

    // Organization fields.
    static let licensePhase = PayloadKey("licensePhase")
    static let isFreePlan = PayloadKey("isFreePlan")
    static let aiControlSetting = PayloadKey("aiControlSetting")
    static let legacyAIControlSetting = PayloadKey("AIControlSetting")

    // User fields.
    static let reason = PayloadKey("reason")
    static let userId = PayloadKey("userId")
    static let revokedAt = PayloadKey("revokedAt")
    static let requestId = PayloadKey("requestId")

    /// The names of some keys, as a set.
    static func names(_ keys: PayloadKey...) -> Set<String> {
        Set(keys.map(\.stringValue))
    }

    /// The metadata and shared device fields, including the legacy `deviceGroupID`.
    static let deviceFieldNames = names(
        .eventType, .timestamp, .orgId, .siteId, .deviceGroupID, .thingName, .derivant, .mac
    )
}

extension KeyedDecodingContainer where Key == PayloadKey {
    /// Decodes an integer that may be written as a JSON integer or as an integral float
    /// (`5.0`, `3.0E9`). A fraction or a value outside `T`'s range is an error naming the field.
    package func decodeIntegerIfPresent<T: FixedWidthInteger & Decodable>(_ type: T.Type, forKey key: PayloadKey) throws -> T? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        if let value = try? decode(T.self, forKey: key) {
            return value
        }
        guard let number = try? decode(Double.self, forKey: key) else {
            throw DecodingError.typeMismatch(
                T.self,
                DecodingError.Context(
                    codingPath: codingPath + [key],
                    debugDescription: "Expected an integer for '\(key.stringValue)'"
                )
            )
        }
        guard let value = T(exactly: number) else {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: self,
                debugDescription: "Expected an integer for '\(key.stringValue)' within the range of \(T.self), found \(number)"
            )
        }
        return value
    }

    /// Decodes an optional ISO 8601 timestamp; text that is not one is an error naming the field.
    package func decodeDateIfPresent(forKey key: PayloadKey) throws -> Date? {
        guard let text = try decodeIfPresent(String.self, forKey: key) else { return nil }
        return try parseDate(text, forKey: key)
    }

    /// Decodes a required ISO 8601 timestamp.
    package func decodeDate(forKey key: PayloadKey) throws -> Date {
        try parseDate(decode(String.self, forKey: key), forKey: key)
    }

    private func parseDate(_ text: String, forKey key: PayloadKey) throws -> Date {
        guard let date = ISO8601Timestamp.date(from: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key,
                in: self,
                debugDescription: "Expected an ISO 8601 date for '\(key.stringValue)', found \"\(text)\""
            )
        }
        return date
    }
}

extension KeyedEncodingContainer where Key == PayloadKey {
    /// Encodes a date as an ISO 8601 timestamp in UTC with fractional seconds; nil is omitted.
    /// A date whose year has no four-digit form is an `EncodingError` naming the field.
    mutating func encodeDateIfPresent(_ date: Date?, forKey key: PayloadKey) throws {
        guard let date else { return }
        guard let text = ISO8601Timestamp.string(from: date) else {
            throw EncodingError.invalidValue(
                date,
                EncodingError.Context(
                    codingPath: codingPath + [key],
                    debugDescription: "'\(key.stringValue)' is outside the years 0000...9999"
                )
            )
        }
        try encode(text, forKey: key)
    }
}
