import Foundation
import SwitchboardCore
import Testing

@Suite("JSONDocument")
struct JSONDocumentTests {
    @Test("reads members, strings with escapes, numbers and raw bytes")
    func reads() throws {
        let document = try #require(JSONDocument(#" {"a":[1,-2.5,{"b":null}],"c":true,"s":"x\u00e9\n\"\/","o":{}} "#))
        let root = document.root
        #expect(document.kind(root) == .object)
        #expect(document.members(of: root)?.map(\.key) == ["a", "c", "s", "o"])
        let a = try #require(document.member("a", of: root))
        let elements = try #require(document.elements(of: a))
        #expect(elements.map(document.kind) == [.number, .number, .object])
        #expect(document.integer(elements[0]) == 1 && document.double(elements[1]) == -2.5)
        #expect(String(decoding: document.rawBytes(a), as: UTF8.self) == #"[1,-2.5,{"b":null}]"#)
        #expect(document.member("c", of: root).flatMap(document.bool) == true)
        let s = try #require(document.member("s", of: root))
        #expect(document.string(s) == "xé\n\"/")
        #expect(String(decoding: document.rawBytes(s), as: UTF8.self) == #""x\u00e9\n\"\/""#)
        #expect(document.member("missing", of: root) == nil)
    }

    @Test("declines invalid JSON and what it leaves to Foundation's parsers", arguments: [
        "", "nul", #"{"a":1,}"#, "[1,]", #"{"a":01}"#, #"{"a":1.}"#, #"{"a":"\x"}"#, "{\"a\":\"\u{01}\"}",
        #"{"a":1,"a":2}"#, #"{"a\"b":1}"#, #"{"a":1e5}"#, #"{"a":123456789012345678}"#, #"{"a":"\ud83d\ude00"}"#,
        #"{"a":1} x"#, String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
    ])
    func declines(text: String) {
        #expect(JSONDocument(text) == nil)
    }

    @Test("bytes that are not UTF-8 are declined")
    func invalidUTF8() {
        var bytes = Array(#"{"a":"xx"}"#.utf8)
        bytes[6] = 0xC3
        bytes[7] = 0x28
        #expect(JSONDocument(Data(bytes)) == nil)
        #expect(JSONDocument(Data(#"{"a":"é"}"#.utf8)) != nil)
    }

    @Test("unescapes what JSONSerialization escapes: runs of escapes, escapes at both ends, two- and three-byte \\u escapes")
    func unescapesLikeFoundation() throws {
        // Strings of quotes, backslashes, control characters and non-ASCII text in every order.
        let alphabet: [String] = ["\"", "\\", "/", "\n", "\t", "\u{01}", "\u{1F}", "a", "Z", " ", "é", "€", "日", "{"]
        var random = SplitMix(seed: 19)
        for length in [0, 1, 2, 3, 17, 64, 300] {
            let value = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
            let text = String(decoding: try JSONSerialization.data(withJSONObject: ["s": value]), as: UTF8.self)
            let document = try #require(JSONDocument(text), "\(text)")
            let node = try #require(document.member("s", of: document.root))
            #expect(document.string(node) == value, "\(text)")
            #expect(document.stringBytes(node) == Array(value.utf8))
        }
        let escapes = try #require(JSONDocument(#"{"s":"\u00e9\u20ac\"x\"\\"}"#))
        #expect(escapes.string(try #require(escapes.member("s", of: escapes.root))) == "é€\"x\"\\")
    }

    @Test("strings are read eight bytes at a time: a special byte at every offset of every length is still seen")
    func specialBytesAtEveryOffset() throws {
        // An escape, a non-ASCII character and a raw control character (declined) at each position.
        for length in 0..<40 {
            for position in 0...length {
                for special in ["\\\"", "\\\\", "\\n", "é", "\\u00e9"] {
                    let value = String(repeating: "a", count: position) + special + String(repeating: "b", count: length - position)
                    let text = #"{"s":""# + value + #"","t":1}"#
                    let document = try #require(JSONDocument(text), "\(text)")
                    let expected = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                    #expect(document.member("s", of: document.root).flatMap(document.string) == expected?["s"] as? String, "\(text)")
                    #expect(document.member("t", of: document.root).flatMap(document.integer) == 1)
                }
                let control = String(repeating: "a", count: position) + "\u{1F}" + String(repeating: "b", count: length - position)
                #expect(JSONDocument(#"{"s":""# + control + #""}"#) == nil)
            }
        }
    }

    @Test("taking a string unescapes it in the document's own storage and parses it as its own document, as unescaping and parsing a copy would")
    func takeString() throws {
        // JSON carried in a JSON string (an AppSync Events event), with escapes of every kind at
        // every offset, so the in-place writes run both eight bytes at a time and byte by byte.
        var random = SplitMix(seed: 23)
        let alphabet: [String] = ["\"", "\\", "/", "\n", "\t", "a", "Z", " ", "é", "€", "日"]
        for length in [0, 1, 7, 8, 9, 31, 200] {
            let inner = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
            let event = String(decoding: try JSONSerialization.data(withJSONObject: ["k": inner, "n": length]), as: UTF8.self)
            let frame = String(decoding: try JSONSerialization.data(withJSONObject: ["type": "data", "id": "x", "event": event]), as: UTF8.self)
            var document = try #require(JSONDocument(frame), "\(frame)")
            let node = try #require(document.member("event", of: document.root))
            let expected = try #require(document.stringBytes(node))
            let result = document.takeString(node)
            let taken = try #require(result)
            #expect(taken.text == expected, "\(frame)")
            #expect(taken.text == Array(event.utf8))
            let parsed = try #require(taken.document, "\(event)")
            #expect(parsed.bytes == taken.text)
            #expect(parsed.member("k", of: parsed.root).flatMap(parsed.string) == inner)
            #expect(parsed.member("n", of: parsed.root).flatMap(parsed.integer) == length)
            #expect(document.bytes.isEmpty, "the storage was taken")
        }
        // Text that is not JSON comes back without a parse; another kind of node gives nil.
        var notJSON = try #require(JSONDocument(#"{"event":"not \"json\""}"#))
        let notJSONNode = try #require(notJSON.member("event", of: notJSON.root))
        let result = notJSON.takeString(notJSONNode)
        let taken = try #require(result)
        #expect(String(decoding: taken.text, as: UTF8.self) == #"not "json""#)
        #expect(taken.document == nil)
        var number = try #require(JSONDocument(#"{"event":1}"#))
        let numberNode = try #require(number.member("event", of: number.root))
        let none = number.takeString(numberNode)
        #expect(none == nil)
        #expect(number.member("event", of: number.root).flatMap(number.integer) == 1, "unchanged")
    }

    @Test("a subdocument reads as its raw bytes parsed on their own")
    func subdocument() throws {
        let text = #"{"a":[1,-2.5,{"b":null,"c":"x\"y"}],"d":true,"s":"é\u00e9","o":{"p":{"q":[]}},"n":0}"#
        let document = try #require(JSONDocument(text))
        var pending = [document.root]
        var checked = 0
        while let index = pending.popLast() {
            let sub = document.subdocument(index)
            let parsed = try #require(JSONDocument(Array(document.rawBytes(index))))
            #expect(Self.describe(sub, sub.root) == Self.describe(parsed, parsed.root))
            #expect(Self.describe(sub, sub.root) == Self.describe(document, index))
            pending += document.members(of: index)?.map(\.value) ?? document.elements(of: index) ?? []
            checked += 1
        }
        #expect(checked == 13)
    }

    @Test("an object with renamed keys reads as its compact text parsed on its own; onlyMember finds a lone member")
    func renamingMembers() throws {
        let text = #"{"r": {"a" : [1, {"b":null}], "long-name":"x\"y", "k":{"p":{"q":[]}} , "n":0}}"#
        let document = try #require(JSONDocument(text))
        let (name, object) = try #require(document.onlyMember(of: document.root))
        #expect(name == "r")
        #expect(document.onlyMember(of: object) == nil)
        let renamed = document.renamingMembers(of: object) { ["a": "alpha", "long-name": "s", "n": "number"][$0] }
        let expected = #"{"alpha":[1, {"b":null}],"s":"x\"y","k":{"p":{"q":[]}},"number":0}"#
        #expect(String(decoding: renamed.bytes, as: UTF8.self) == expected)
        let parsed = try #require(JSONDocument(Array(expected.utf8)))
        #expect(Self.describe(renamed, renamed.root) == Self.describe(parsed, parsed.root))
        #expect(renamed.retainedBytes == parsed.retainedBytes)
    }

    @Test("members are walked in place, in order, over nested values; keys compare as exact bytes, never by prefix or case")
    func memberNodes() throws {
        let text = #"{"a":{"a":1,"ab":[]},"ab":[{"a":2},"a"],"A":null,"":4,"a b":"x\"y","é":true,"abc":{}}"#
        let document = try #require(JSONDocument(text))
        let members = Array(try #require(document.memberNodes(of: document.root)))
        let names: [StaticString] = ["a", "ab", "A", "", "a b", "é", "abc"]
        #expect(members.map(document.keyString) == names.map { "\($0)" })
        #expect(document.memberNodes(of: document.root)?.underestimatedCount == names.count)
        #expect(members.map(\.value) == document.members(of: document.root)?.map(\.value))
        #expect(members.map { document.kind($0.value) } == [.object, .array, .null, .number, .string, .bool, .object])
        for (position, member) in members.enumerated() {
            // Each key is its own name and no other: not a prefix ("a" of "ab"), an extension, another case.
            #expect(names.map { document.key(member, is: $0) } == names.indices.map { $0 == position }, "\(names[position])")
            #expect(names.map { document.key(member, is: Array("\($0)".utf8)) } == names.indices.map { $0 == position })
        }
        let nested = try #require(document.memberNodes(of: members[0].value))
        #expect(nested.map(document.keyString) == ["a", "ab"])
        #expect(document.memberNodes(of: members[1].value) == nil, "an array has no members")
        #expect(document.onlyMemberNode(of: document.root) == nil)
    }

    @Test("an empty object has no members and no only member; a lone member is found, even with an empty key")
    func emptyAndLoneObjects() throws {
        let empty = try #require(JSONDocument(" { } "))
        let members = try #require(empty.memberNodes(of: empty.root))
        #expect(members.underestimatedCount == 0 && Array(members).isEmpty)
        #expect(empty.onlyMemberNode(of: empty.root) == nil && empty.onlyMember(of: empty.root) == nil)
        #expect(empty.renamingMembers(of: empty.root) { (_: JSONDocument.Member) -> StaticString? in "x" }.bytes == Array("{}".utf8))
        let lone = try #require(JSONDocument(#"{"":{}}"#))
        let member = try #require(lone.onlyMemberNode(of: lone.root))
        #expect(lone.key(member, is: "") && !lone.key(member, is: " ") && lone.keyString(member) == "")
        let inner = try #require(lone.memberNodes(of: member.value))
        #expect(lone.kind(member.value) == .object && Array(inner).isEmpty)
    }

    @Test("escaped keys never reach a byte comparison: the document declines them, whatever they spell")
    func escapedKeys() throws {
        // `\u0061` is "a" and `\/` is "/": compared as raw bytes they would not match "a" or "/".
        for text in [#"{"\u0061":1}"#, #"{"a\/b":1}"#, #"{"a":{"\u0062":1}}"#, #"{"x":1,"\"":2}"#] {
            #expect(JSONDocument(text) == nil, "\(text)")
        }
        // An escaped string value is fine; only keys are compared in place.
        let document = try #require(JSONDocument(#"{"a":"\u0061"}"#))
        let member = try #require(document.onlyMemberNode(of: document.root))
        #expect(document.key(member, is: "a") && document.string(member.value) == "a")
    }

    @Test("renaming by static names, chosen by looking at keys in place, writes what renaming by String does")
    func renamingMembersByStaticName() throws {
        let text = #"{"r": {"a" : [1, {"b":null}], "ab":"x\"y", "A":{"p":{"q":[]}} , "n":0, "":1}}"#
        let document = try #require(JSONDocument(text))
        let object = try #require(document.onlyMemberNode(of: document.root)).value
        let renames: [(StaticString, StaticString)] = [("a", "alpha"), ("", "empty"), ("n", "number")]
        let byName = document.renamingMembers(of: object) { member in renames.first { document.key(member, is: $0.0) }?.1 }
        let byString = document.renamingMembers(of: object) { key in renames.first { "\($0.0)" == key }.map { "\($0.1)" } }
        let expected = #"{"alpha":[1, {"b":null}],"ab":"x\"y","A":{"p":{"q":[]}},"number":0,"empty":1}"#
        #expect(String(decoding: byName.bytes, as: UTF8.self) == expected)
        #expect(Self.describe(byName, byName.root) == Self.describe(byString, byString.root))
        let parsed = try #require(JSONDocument(Array(expected.utf8)))
        #expect(Self.describe(byName, byName.root) == Self.describe(parsed, parsed.root))
        #expect(byName.retainedBytes == parsed.retainedBytes)
        #expect(byName.rawData(byName.root) == Data(expected.utf8))
        #expect(document.rawData(object) == Data(document.rawBytes(object)))
    }

    /// Everything the document says of a value, recursively.
    private static func describe(_ document: JSONDocument, _ index: JSONDocument.Index) -> String {
        let raw = String(decoding: document.rawBytes(index), as: UTF8.self)
        switch document.kind(index) {
        case .object:
            let members = document.members(of: index) ?? []
            return "{" + members.map { "\($0.key):\(describe(document, $0.value))" }.joined(separator: ",") + "}" + raw
        case .array:
            return "[" + (document.elements(of: index) ?? []).map { describe(document, $0) }.joined(separator: ",") + "]" + raw
        case .string: return "s(\(document.string(index) ?? "?"))" + raw
        case .number: return "n(\(document.double(index) ?? .nan))" + raw
        case .bool: return "b(\(document.bool(index) ?? false))" + raw
        case .null: return "null" + raw
        }
    }

    /// A small seeded generator, so a failure names a reproducible input.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
