import Foundation
import SwitchboardCore
import Testing

@testable import SwitchboardGraphQL

/// Legacy results become transport-neutral envelopes inside the GraphQL transport: unwrapped,
/// renamed to the new contract's fields, and named by the contract `eventType`s they carry.
@Suite("Legacy results as neutral envelopes")
struct LegacyResultsTests {
    let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)

    func envelope(_ data: String) throws -> EventEnvelope {
        let outcome = LegacyResults.envelope(from: Data(data.utf8), subscription: "graphql/x", receivedAt: receivedAt)
        guard case .event(let envelope) = outcome else {
            Issue.record("no event for \(data): \(outcome)")
            throw CancellationError()
        }
        return envelope
    }

    func json(_ envelope: EventEnvelope) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: envelope.payload) as? NSDictionary)
    }

    @Test("a DeviceState carries one eventType per change it sets, in contract order; deviceGroupID becomes siteId")
    func deviceChanges() throws {
        let both = try envelope(#"{"subscribeDeviceState":{"recording":false,"deviceGroupID":"s1","online":true,"fwUpdateState":null}}"#)
        #expect(both.eventTypes == ["device/presenceChanged", "device/recordingStateChanged"])
        #expect(try json(both) == ["recording": false, "siteId": "s1", "online": true, "fwUpdateState": NSNull()])
        #expect(both.transport == .graphql && both.subscription == "graphql/x" && both.receivedAt == receivedAt)
        #expect(both.document != nil, "parsed once, for the notifier")
        let firmware = try envelope(#"{"subscribeDeviceState":{"fwUpdateState":-1}}"#)
        #expect(firmware.eventTypes == ["device/firmwareUpdated"])
        #expect(String(decoding: firmware.payload, as: UTF8.self) == #"{"fwUpdateState":-1}"#, "no rename: the bytes as they arrived")
    }

    @Test("an OrganizationState names license, plan and AI settings changes; AIControlSetting becomes aiControlSetting")
    func organizationChanges() throws {
        let ai = try envelope(#"{"subscribeOrganizationState":{"orgId":"o1","AIControlSetting":{"uuid":"x","options":[{"key":"k","enabled":true}]}}}"#)
        #expect(ai.eventTypes == ["organization/aiSettingsChanged"])
        let fields = try json(ai)
        #expect(fields["aiControlSetting"] as? NSDictionary == ["uuid": "x", "options": [["key": "k", "enabled": true]]])
        #expect(fields["AIControlSetting"] == nil)
        #expect(try envelope(#"{"subscribeOrganizationState":{"isFreePlan":false,"licensePhase":"Valid"}}"#).eventTypes
            == ["organization/licensePhaseChanged", "organization/planChanged"])
    }

    @Test("archive, role and token revoke results carry their one eventType whatever they set")
    func singleKinds() throws {
        let archive = try envelope(#"{"subscribeArchiveState":{"deviceGroupID":"s","videoSize":1.5E9,"hasH265":true,"videoLength":null}}"#)
        #expect(archive.eventTypes == ["archive/stateChanged"])
        let text = String(decoding: archive.payload, as: UTF8.self)
        #expect(text.contains(#""hasH265":true"#) && text.contains(#""videoLength":null"#), "booleans and nulls survive the slow path: \(text)")
        let fields = try json(archive)
        #expect(fields["siteId"] as? String == "s")
        #expect((fields["videoSize"] as? NSNumber)?.doubleValue == 1.5e9, "an exponent takes the slow path, value intact")
        #expect(try envelope(#"{"subscribeRoleChange":{"reason":null}}"#).eventTypes == ["user/roleChanged"])
        #expect(try envelope(#"{"subscribeUserTokenRevoke":{"userId":"u","revokedAt":"2026-01-01T00:00:00Z"}}"#).eventTypes
            == ["user/tokenRevoked"])
    }

    @Test("a null result, or one that sets no change field, carries no event")
    func nothing() {
        for data in [#"{"subscribeDeviceState":null}"#, #"{"subscribeDeviceState":{"deviceGroupID":"s","online":null}}"#,
                     #"{"subscribeOrganizationState":{"orgId":"o1"}}"#] {
            let outcome = LegacyResults.envelope(from: Data(data.utf8), subscription: "k", receivedAt: receivedAt)
            guard case .nothing(let reason) = outcome else {
                Issue.record("\(data) became \(outcome)")
                continue
            }
            #expect(reason.contains("subscribe"), "the reason names the field: \(reason)")
        }
    }

    @Test("the frame's own parse of a result maps to the same envelope and document as parsing the result's bytes")
    func frameParse() throws {
        let results = [
            #"{"subscribeDeviceState":{"recording":false,"deviceGroupID":"s1","online":true}}"#,
            #"{"subscribeArchiveState":{"archiveId":"a","deviceGroupID":"s","status":"Ready","size":[1, {"x":"y\"z"}]}}"#,
            #"{"subscribeRoleChange":{"reason":"promoted"}}"#, #"{"subscribeDeviceState":null}"#, #"{"somethingElse":{"a":1}}"#,
        ]
        for data in results {
            let frame = #"{"type":"data","id":"1","payload":{"data":"# + data + "}}"
            guard case .next(_, let result?, _) = try GraphQLCodec(.graphQLWS).decode(frame), result.parse != nil else {
                Issue.record("no one-pass parse of \(frame)")
                continue
            }
            #expect(result.bytes == Data(data.utf8), "the bytes as they arrived: \(data)")
            let madeFromBytes = ResultData(Data(data.utf8))
            #expect(result == madeFromBytes && result.hashValue == madeFromBytes.hashValue && "\(result)" == data, "\(data)")
            let fromFrame = LegacyResults.envelope(from: result, subscription: "k", receivedAt: receivedAt)
            let fromBytes = LegacyResults.envelope(from: Data(data.utf8), subscription: "k", receivedAt: receivedAt)
            #expect(fromFrame == fromBytes, "\(data)")
            if case .event(let lhs) = fromFrame, case .event(let rhs) = fromBytes, let expected = rhs.document {
                let document = try #require(lhs.document, "\(data)")
                #expect(document.bytes == expected.bytes && document.retainedBytes == expected.retainedBytes, "\(data)")
            }
        }
    }

    @Test("keys compared as bytes in place map every mix of change fields, renames and nulls as the JSONValue slow path does")
    func fastPathAgreesWithSlowPath() throws {
        var checked = 0
        for field in LegacyResults.schema {
            let name = "\(field.name)"
            // An escaped root key is declined by JSONDocument: the same result through JSONValue.
            let escapedName = #"\u00"# + String(name.utf8.first!, radix: 16) + name.dropFirst()
            let keys = field.changes.map { "\($0.field)" } + field.renames.map { "\($0.legacy)" } + ["orgId"]
            let values = [nil, "null", #""v""#, "0", #"{"k":[1,{"n":null}]}"#]
            // Each key absent, null or set to a value of some kind; the members in both orders.
            for combination in 0..<Int(pow(3, Double(keys.count))) {
                var members: [String] = []
                var digits = combination
                for (position, key) in keys.enumerated() {
                    let choice = digits % 3
                    digits /= 3
                    if choice > 0, let value = values[choice == 1 ? 1 : 2 + position % 3] { members.append(#"""# + key + #"":"# + value) }
                }
                // A legacy name beside its new one makes two members of one key: no mapping is right.
                let present = Set(members.map { $0.prefix { $0 != ":" } })
                if field.renames.contains(where: { present.contains(#"""# + "\($0.legacy)" + #"""#) && present.contains(#"""# + "\($0.new)" + #"""#) }) {
                    continue
                }
                for order in [members, members.reversed()] {
                    let result = "{" + order.joined(separator: ",") + "}"
                    let fast = LegacyResults.envelope(
                        from: Data(("{\"" + name + "\":" + result + "}").utf8), subscription: "k", receivedAt: receivedAt)
                    let slow = LegacyResults.envelope(
                        from: Data(("{\"" + escapedName + "\":" + result + "}").utf8), subscription: "k", receivedAt: receivedAt)
                    switch (fast, slow) {
                    case (.nothing(let lhs), .nothing(let rhs)):
                        #expect(lhs == rhs, "\(name): \(result)")
                    case (.event(let lhs), .event(let rhs)):
                        #expect(lhs.eventTypes == rhs.eventTypes && !lhs.eventTypes.isEmpty, "\(name): \(result)")
                        #expect(try json(lhs) == json(rhs), "\(name): \(result)")
                        #expect(lhs.document != nil && rhs.document == nil, "\(name): \(result)")
                    default:
                        Issue.record("\(name): \(result) is \(fast) on the fast path, \(slow) on the slow one")
                    }
                    checked += 1
                }
            }
        }
        #expect(checked == 2 * (243 + 243 * 5 / 9 + 9 + 3 + 3))
    }

    @Test("a result outside the schema is handed on unchanged, with no eventType")
    func unknownField() throws {
        for data in [#"{"somethingElse":{"a":1}}"#, #"{"a":1,"b":2}"#, #"[1]"#, #"not json"#] {
            let envelope = try envelope(data)
            #expect(envelope.eventTypes.isEmpty)
            #expect(envelope.payload == Data(data.utf8))
        }
    }
}
