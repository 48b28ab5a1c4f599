import Foundation
import SwitchboardCore
import Testing

@Suite("JSONValue: control frames and everything the client writes")
struct JSONValueTests {
    @Test("text the fast parser reads and text it leaves to JSONDecoder parse to the same values")
    func bothRoads() throws {
        // Plain: read through JSONDocument. With an exponent and an escaped key: JSONDecoder.
        let plain = try JSONValue.parse(#"{"a":[1,2.5,"x",true,null],"b":{"c":"d"}}"#)
        #expect(plain == .object(["a": .array([.integer(1), .number(2.5), .string("x"), .bool(true), .null]), "b": .object(["c": .string("d")])]))
        #expect(JSONDocument(#"{"a\u0062":2.5e0}"#) == nil, "the fast parser leaves this one alone")
        let slow = try JSONValue.parse(#"{"a\u0062":2.5e0}"#)
        #expect(slow == .object(["ab": .number(2.5)]))
        #expect(throws: (any Error).self) { try JSONValue.parse("{") }
    }

    @Test("integer: whole numbers within 2^53, from numbers or text; nothing else")
    func integers() throws {
        #expect(JSONValue.integer(401).integer == 401)
        #expect(JSONValue.number(5000).integer == 5000)
        #expect(JSONValue.string("403").integer == 403)
        #expect(JSONValue.number(1.5).integer == nil)
        #expect(JSONValue.bool(true).integer == nil)
        #expect(JSONValue.integer(1 << 53).integer == 1 << 53)
        #expect(JSONValue.integer((1 << 53) + 1).integer == nil)
    }

    @Test("written compactly, keys sorted, slashes unescaped")
    func written() throws {
        let value = JSONValue.object(["z": .string("a/b"), "a": .array([.integer(1), .null])])
        #expect(try value.text() == #"{"a":[1,null],"z":"a/b"}"#)
        #expect(try JSONValue.parse(value.text()) == value)
    }
}
