import Foundation

/// An event, or an event payload, that could not be handled.
///
/// ``EventBroker`` keeps the most recent dead letters in a bounded queue
/// (``EventBroker/Configuration/deadLetterCapacity``); read them with ``EventBroker/deadLetters``.
/// There are two sources: a subscriber's handler threw (``event`` is set, ``payload`` is nil), or
/// ``EventBroker/reportUndeliverable(payload:eventName:error:metadata:)`` was called because a
/// payload could not be decoded (``payload`` is set, ``event`` is nil).
public struct DeadLetter: Sendable {
    /// The metadata of the event or payload.
    public var metadata: EventMetadata
    /// The event name, such as `device.presence`.
    public var eventName: String
    /// The event a handler failed on; nil for undeliverable payloads.
    public var event: (any SwitchboardEvent)?
    /// The raw payload that could not be delivered; nil when a handler failed.
    public var payload: Data?
    /// The error the handler threw, or the decoding error that was reported.
    public var error: any Error
    /// When the dead letter was recorded (wall-clock time, for people reading it).
    public var recordedAt: Date

    /// Creates a dead letter.
    /// - Parameters:
    ///   - metadata: The metadata of the event or payload.
    ///   - eventName: The event name.
    ///   - event: The event a handler failed on, if any.
    ///   - payload: The raw payload, if any.
    ///   - error: The error that made the delivery fail.
    ///   - recordedAt: When it was recorded; now by default.
    public init(
        metadata: EventMetadata,
        eventName: String,
        event: (any SwitchboardEvent)? = nil,
        payload: Data? = nil,
        error: any Error,
        recordedAt: Date = Date()
    ) {
        self.metadata = metadata
        self.eventName = eventName
        self.event = event
        self.payload = payload
        self.error = error
        self.recordedAt = recordedAt
    }
}
