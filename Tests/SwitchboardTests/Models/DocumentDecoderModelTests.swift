import Foundation
import Switchboard
import SwitchboardCore
import Testing

extension ModelTests {
    /// The notifier's fast path (``JSONDocument`` read by its decoder) must give exactly what
    /// `JSONDecoder` gives; where it declines, `JSONDecoder` decides, errors included.
    @Suite("EventPayloadDecoder fast path")
    struct DocumentDecoding {
        @Test("models decode to the same values as with JSONDecoder", arguments: [
            #"{"eventType":"archive/stateChanged","timestamp":"2024-05-01T12:00:00.5Z","orgId":"o","deviceGroupID":"g","archiveId":"a","status":"Ready","videoLength":12.5,"videoSize":5.0,"cloudSize":7,"hasH265":false,"createdAt":"2024-05-01T11:00:00Z"}"#,
            #"{"archiveId":"a","status":"SOMETHING_NEW","videoSize":null,"extra":{"nested":[1,2]}}"#,
            #"{"archiveId":"\u0041\n","siteId":null,"deviceGroupID":"g"}"#,
        ])
        func archive(json: String) throws {
            let data = Data(json.utf8)
            #expect(JSONDocument(data) != nil, "the fast path reads this payload")
            let fast = try EventPayloadDecoder.decode(ArchiveStateOutput.self, from: data)
            #expect(fast == (try JSONDecoder().decode(ArchiveStateOutput.self, from: data)))
        }

        @Test("a value the fast path declines still fails with JSONDecoder's error naming the field")
        func declinedError() {
            let data = Data(#"{"archiveId":"a","videoSize":1.5}"#.utf8)
            do {
                _ = try EventPayloadDecoder.decode(ArchiveStateOutput.self, from: data)
                Issue.record("expected a decoding failure")
            } catch {
                #expect(error.code == .decodingFailed)
                #expect(error.message.contains("videoSize"))
            }
        }
    }
}
