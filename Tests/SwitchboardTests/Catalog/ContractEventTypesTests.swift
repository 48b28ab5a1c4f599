import Foundation
@testable import Switchboard
import SwitchboardCore
import Testing

/// The event path reads an event's type and payload without copying them: the contract's names
/// are shared strings, and an envelope's payload is its parsed document's bytes until asked for.
@Suite("Contract eventTypes and envelope payloads, shared rather than copied")
struct ContractEventTypesTests {
    @Test("the shared names are exactly the catalog's eventTypes")
    func namesMatchTheCatalog() {
        let catalog = StreamCatalog.all.reduce(into: Set<String>()) { $0.formUnion($1.eventTypes) }
        #expect(Set(ContractEventTypes.all) == catalog)
        #expect(ContractEventTypes.all.count == catalog.count)
    }

    @Test("an envelope names the payload's eventType: a contract name, an escaped one, or any other text",
          arguments: [
            (#"{"eventType":"archive/stateChanged","x":1}"#, ["archive/stateChanged"]),
            (#"{"eventType":"archive\/stateChanged"}"#, ["archive/stateChanged"]),
            (#"{"eventType":"vendor/somethingNew"}"#, ["vendor/somethingNew"]),
            (#"{"eventType":7}"#, []),
            (#"{"other":"archive/stateChanged"}"#, []),
          ])
    func envelopeTypes(json: String, expected: [String]) throws {
        let document = try #require(JSONDocument(json))
        let envelope = EventEnvelope(subscription: "s", document: document, receivedAt: Date(), transport: .appsync)
        #expect(envelope.eventTypes == expected)
    }

    @Test("an envelope made from a document has the document's bytes as its payload, until a payload is set")
    func payloadFromTheDocument() throws {
        let json = #"{"eventType":"user/roleChanged","reason":"r"}"#
        var envelope = EventEnvelope(
            subscription: "s", document: try #require(JSONDocument(json)), receivedAt: Date(timeIntervalSince1970: 1), transport: .appsync)
        #expect(envelope.payload == Data(json.utf8))
        #expect(envelope.payloadByteCount == json.utf8.count)
        #expect(envelope == EventEnvelope(
            subscription: "s", eventTypes: ["user/roleChanged"], payload: Data(json.utf8), receivedAt: Date(timeIntervalSince1970: 1),
            transport: .appsync))
        envelope.payload = Data("{}".utf8)
        #expect(envelope.document == nil, "a new payload is not the old document's")
        #expect(envelope.payload == Data("{}".utf8))
        #expect(envelope.payloadByteCount == 2)
    }

    @Test("a model's eventType and timestamps read from the document, escaped or not")
    func modelFields() throws {
        let json = #"{"eventType":"archive\/stateChanged","timestamp":"2024-05-01T03:34:56.789\u005a","createdAt":"2024-05-01T03:34:56Z","archiveId":"a"}"#
        let value = try EventPayloadDecoder.decode(ArchiveStateOutput.self, from: Data(json.utf8))
        #expect(value.eventType == "archive/stateChanged")
        #expect(value.timestamp == Date(timeIntervalSince1970: 1_714_534_496.789))
        #expect(value.createdAt == Date(timeIntervalSince1970: 1_714_534_496))
        let plain = try EventPayloadDecoder.decode(ArchiveStateOutput.self, from: Data(#"{"eventType":"archive/stateChanged","archiveId":"a"}"#.utf8))
        #expect(plain.eventType == "archive/stateChanged")
    }
}
