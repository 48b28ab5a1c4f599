import SwitchboardCore

/// One event of an AppSync Events `data` frame: its JSON text (unescaped from the frame's
/// string), parsed once, where the frame is decoded.
///
/// The connection machine compares and counts events by their text (a replacement socket's late
/// copies); the dialect hands the parsed ``JSONDocument`` on in the envelope, so the notifier
/// decodes it without parsing again and no copy of the text is made on the way.
package struct AppSyncEvent: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The event's JSON text as UTF-8.
    package let bytes: [UInt8]
    /// The text parsed (sharing ``bytes``); nil when ``JSONDocument`` leaves it to the slow path.
    package let document: JSONDocument?

    /// An event from its UTF-8 text, which must be valid UTF-8 (it came from a `String` or was
    /// unescaped from one).
    package init(utf8 bytes: [UInt8]) {
        let document = JSONDocument(bytes, isValidUTF8: true)
        // The document holds the same storage: one buffer for both.
        self.bytes = document?.bytes ?? bytes
        self.document = document
    }

    /// An event from its UTF-8 text and that text's parse, which holds the same storage
    /// (``JSONDocument/takeString(_:)``).
    package init(text: [UInt8], document: JSONDocument?) {
        self.bytes = text
        self.document = document
    }

    /// An event from its text.
    package init(_ text: String) { self.init(utf8: Array(text.utf8)) }

    package init(stringLiteral value: String) { self.init(value) }

    /// The event's text.
    package var text: String { String(decoding: bytes, as: UTF8.self) }

    package var description: String { text }

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.bytes == rhs.bytes }

    package func hash(into hasher: inout Hasher) { hasher.combine(bytes) }
}

/// The events of one `data` frame: almost always one, held inline (no array per event), or
/// several in frame order.
package struct AppSyncEvents: RandomAccessCollection, Hashable, Sendable, ExpressibleByArrayLiteral {
    private enum Storage: Hashable, Sendable {
        case none
        case one(AppSyncEvent)
        case many([AppSyncEvent])
    }

    private let storage: Storage

    /// The events, in frame order.
    package init(_ events: [AppSyncEvent]) {
        storage = switch events.count {
        case 0: .none
        case 1: .one(events[0])
        default: .many(events)
        }
    }

    /// One event.
    package init(_ event: AppSyncEvent) { storage = .one(event) }

    package init(arrayLiteral elements: AppSyncEvent...) { self.init(elements) }

    package var startIndex: Int { 0 }

    package var endIndex: Int {
        switch storage {
        case .none: 0
        case .one: 1
        case .many(let events): events.count
        }
    }

    package subscript(position: Int) -> AppSyncEvent {
        switch storage {
        case .one(let event) where position == 0: event
        case .many(let events): events[position]
        default: preconditionFailure("index \(position) out of range")
        }
    }
}
