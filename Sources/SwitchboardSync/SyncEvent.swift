import Foundation
import SwitchboardCore

/// One entry of the backend's event log, as the sync stream and the REST fallback carry it
/// (contract §6): `{"id", "channel", "event", "publishedAt"}`.
public struct SyncEvent: Hashable, Sendable, Codable {
    /// The event's unique id in the log.
    public var id: String
    /// The channel it was published on, such as `vortex-app/user/42/roleChanged`.
    public var channel: String
    /// The event's payload: JSON text, exactly as published.
    public var event: String
    /// When the log recorded it.
    public var publishedAt: Date

    /// Creates an event.
    /// - Parameters:
    ///   - id: The unique id.
    ///   - channel: The channel it was published on.
    ///   - event: The payload's JSON text.
    ///   - publishedAt: When it was logged.
    public init(id: String, channel: String, event: String, publishedAt: Date) {
        self.id = id
        self.channel = channel
        self.event = event
        self.publishedAt = publishedAt
    }

    private enum CodingKeys: String, CodingKey { case id, channel, event, publishedAt }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        channel = try container.decode(String.self, forKey: .channel)
        event = try container.decode(String.self, forKey: .event)
        let text = try container.decode(String.self, forKey: .publishedAt)
        guard let date = ISO8601Timestamp.date(from: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .publishedAt, in: container, debugDescription: "'\(text)' is not an RFC 3339 timestamp")
        }
        publishedAt = date
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(channel, forKey: .channel)
        try container.encode(event, forKey: .event)
        try container.encode(ISO8601Timestamp.string(from: publishedAt) ?? "", forKey: .publishedAt)
    }
}
