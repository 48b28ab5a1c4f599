/// What the service did with each event of a publish: the ones it accepted and the ones it
/// refused, each with its position in the events you passed.
public struct AppSyncPublishResult: Sendable, Equatable {
    /// An accepted event.
    public struct Accepted: Sendable, Equatable {
        /// The id the service gave the event.
        public var identifier: String
        /// The event's position in the events passed to `publish`.
        public var index: Int

        public init(identifier: String, index: Int) {
            self.identifier = identifier
            self.index = index
        }
    }

    /// A refused event, with the service's reason.
    public struct Refused: Sendable, Equatable {
        /// The id the service gave the event, if it gave one.
        public var identifier: String?
        /// The event's position in the events passed to `publish`.
        public var index: Int
        /// The service's error code, for example `EventTooLargeException` (numbers arrive as text).
        public var code: String
        /// The service's explanation.
        public var message: String

        public init(identifier: String?, index: Int, code: String, message: String) {
            self.identifier = identifier
            self.index = index
            self.code = code
            self.message = message
        }
    }

    public var accepted: [Accepted]
    public var refused: [Refused]

    public init(accepted: [Accepted] = [], refused: [Refused] = []) {
        self.accepted = accepted
        self.refused = refused
    }

    /// `true` when every event was accepted.
    public var allAccepted: Bool { refused.isEmpty }
}
