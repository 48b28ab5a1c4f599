import Foundation
import Testing

@testable import Switchboard

/// Event ids: kept as the process's counter and made into text only when read.
@Suite("Event metadata ids")
struct EventMetadataTests {
    @Test("a new id is UUID-shaped, the same text every time it is read, and different from the next one")
    func countedIds() throws {
        let first = EventMetadata(stream: "plan")
        let second = EventMetadata(stream: "plan")
        #expect(first.eventId == first.eventId)
        #expect(first.eventId != second.eventId)
        let uuid = try #require(UUID(uuidString: first.eventId), "\(first.eventId) is not UUID-shaped")
        #expect(uuid.uuidString == first.eventId, "upper-case hex, as UUID writes it")
        // Version 4, RFC 4122 variant.
        let characters = Array(first.eventId)
        #expect(characters[14] == "4")
        #expect("89AB".contains(characters[19]))
    }

    @Test("metadata is equal and hashes alike by its id's text, whichever way the id is kept")
    func equality() {
        let counted = EventMetadata(receivedAt: Date(timeIntervalSince1970: 0), stream: "plan")
        let text = EventMetadata(eventId: counted.eventId, receivedAt: Date(timeIntervalSince1970: 0), stream: "plan")
        #expect(counted == text)
        #expect(counted.hashValue == text.hashValue)
        #expect(Set([counted, text]).count == 1)
        let other = EventMetadata(receivedAt: Date(timeIntervalSince1970: 0), stream: "plan")
        #expect(counted != other)
        var renamed = counted
        renamed.eventId = "evt-1"
        #expect(renamed.eventId == "evt-1")
        #expect(renamed != counted)
        #expect(renamed == EventMetadata(eventId: "evt-1", receivedAt: Date(timeIntervalSince1970: 0), stream: "plan"))
    }
}
