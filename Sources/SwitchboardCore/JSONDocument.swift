import Foundation

/// A strict JSON reader for the event hot path: one pass over the bytes, no intermediate objects.
///
/// It records every value as a node (its kind and byte range) on one flat array; strings are
/// unescaped only when asked for, and a value's raw bytes can be handed on as they arrived.
///
/// It is a fast path in front of Foundation's parsers, not a replacement: ``init(_:)`` returns nil
/// not only for invalid JSON but for anything it does not want to judge (keys with escapes,
/// numbers with an exponent or more than 15 digits, `\u` escapes of surrogates, nesting deeper
/// than 32, an object with the same key twice), and callers then use `JSONSerialization` or `JSONDecoder` as before. So whenever it
/// answers, those parsers would have accepted the text and read the same values.
package struct JSONDocument: Sendable {
    /// What a node is.
    package enum Kind: UInt8, Sendable {
        case null, bool, number, string, array, object
    }

    struct Node: Sendable {
        var kind: Kind
        /// A string holds backslash escapes and must be unescaped to be read.
        var escaped: Bool
        /// Byte offsets of the value; for a string, of its contents between the quotes.
        var start: Int
        var end: Int
        /// The index of the node after this value's subtree.
        var next: Int
    }

    /// The document's bytes.
    package let bytes: [UInt8]
    private(set) var nodes: [Node] = []

    /// The top-level value.
    package var root: Index { Index(0) }

    /// A node of the document.
    package struct Index: Hashable, Sendable {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    /// Parses UTF-8 text.
    /// - Parameters:
    ///   - bytes: The JSON text.
    ///   - isValidUTF8: The bytes are known to be valid UTF-8 (they came from a `String`), so
    ///     strings with non-ASCII bytes need no check.
    /// - Returns: nil for invalid JSON and for what the type leaves to the slow path.
    package init?(_ bytes: [UInt8], isValidUTF8: Bool = false) {
        self.bytes = bytes
        nodes.reserveCapacity(16)
        let parsed = bytes.withUnsafeBufferPointer { buffer -> Bool in
            var parser = Parser(buffer: buffer, checksUTF8: !isValidUTF8)
            guard parser.value(into: &nodes, depth: 0) else { return false }
            parser.skipWhitespace()
            return parser.position == buffer.count
        }
        guard parsed else { return nil }
    }

    /// Parses JSON bytes, checking that they are UTF-8.
    package init?(_ data: Data) {
        self.init(Array(data))
    }

    /// Parses a string's UTF-8.
    package init?(_ text: String) {
        self.init(Array(text.utf8), isValidUTF8: true)
    }

    /// The kind of a node.
    package func kind(_ index: Index) -> Kind { nodes[index.value].kind }

    /// The member `key` of an object node; nil when the node is no object or lacks the key.
    package func member(_ key: String, of object: Index) -> Index? {
        guard nodes[object.value].kind == .object else { return nil }
        var keyNode = object.value + 1
        let end = nodes[object.value].next
        var key = key
        return key.withUTF8 { wanted -> Index? in
            bytes.withUnsafeBufferPointer { bytes -> Index? in
                while keyNode < end {
                    let candidate = nodes[keyNode]
                    if candidate.end - candidate.start == wanted.count,
                       wanted.isEmpty || memcmp(bytes.baseAddress! + candidate.start, wanted.baseAddress!, wanted.count) == 0 {
                        return Index(keyNode + 1)
                    }
                    keyNode = nodes[keyNode + 1].next
                }
                return nil
            }
        }
    }

    /// The members of an object node in document order, or nil for another kind.
    package func members(of object: Index) -> [(key: String, value: Index)]? {
        guard nodes[object.value].kind == .object else { return nil }
        var result: [(key: String, value: Index)] = []
        var keyNode = object.value + 1
        while keyNode < nodes[object.value].next {
            let key = nodes[keyNode]
            result.append((String(decoding: bytes[key.start..<key.end], as: UTF8.self), Index(keyNode + 1)))
            keyNode = nodes[keyNode + 1].next
        }
        return result
    }

    /// The elements of an array node in order, or nil for another kind.
    package func elements(of array: Index) -> [Index]? {
        guard nodes[array.value].kind == .array else { return nil }
        var result: [Index] = []
        var node = array.value + 1
        while node < nodes[array.value].next {
            result.append(Index(node))
            node = nodes[node].next
        }
        return result
    }

    /// A string node's value, unescaped; nil for another kind.
    package func string(_ index: Index) -> String? {
        let node = nodes[index.value]
        guard node.kind == .string else { return nil }
        guard node.escaped else { return String(decoding: bytes[node.start..<node.end], as: UTF8.self) }
        return String(decoding: unescaped(node), as: UTF8.self)
    }

    /// A string node's value as UTF-8 bytes, unescaped; nil for another kind.
    package func stringBytes(_ index: Index) -> [UInt8]? {
        let node = nodes[index.value]
        guard node.kind == .string else { return nil }
        return node.escaped ? unescaped(node) : Array(bytes[node.start..<node.end])
    }

    /// A boolean node's value; nil for another kind.
    package func bool(_ index: Index) -> Bool? {
        let node = nodes[index.value]
        guard node.kind == .bool else { return nil }
        return bytes[node.start] == UInt8(ascii: "t")
    }

    /// A number node's value as a `Double`; nil for another kind.
    package func double(_ index: Index) -> Double? {
        let node = nodes[index.value]
        guard node.kind == .number else { return nil }
        return Double(String(decoding: bytes[node.start..<node.end], as: UTF8.self))
    }

    /// A number node's value as an `Int` when it is written as an integer; nil otherwise.
    package func integer(_ index: Index) -> Int? {
        let node = nodes[index.value]
        guard node.kind == .number else { return nil }
        return Int(String(decoding: bytes[node.start..<node.end], as: UTF8.self))
    }

    /// The bytes of a value exactly as they appear in the document (a string with its quotes).
    package func rawBytes(_ index: Index) -> ArraySlice<UInt8> {
        let node = nodes[index.value]
        return node.kind == .string ? bytes[(node.start - 1)..<(node.end + 1)] : bytes[node.start..<node.end]
    }

    /// The string's bytes with its escapes resolved, written straight into the result's storage
    /// (an escaped string is never longer than its source).
    private func unescaped(_ node: Node) -> [UInt8] {
        bytes.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: node.end - node.start) { output, count in
                var position = node.start
                var written = 0
                while position < node.end {
                    let byte = source[position]
                    guard byte == UInt8(ascii: "\\") else {
                        output[written] = byte
                        written += 1
                        position += 1
                        continue
                    }
                    let escape = source[position + 1]
                    position += 2
                    let resolved: UInt8
                    switch escape {
                    case UInt8(ascii: "b"): resolved = 0x08
                    case UInt8(ascii: "f"): resolved = 0x0C
                    case UInt8(ascii: "n"): resolved = 0x0A
                    case UInt8(ascii: "r"): resolved = 0x0D
                    case UInt8(ascii: "t"): resolved = 0x09
                    case UInt8(ascii: "u"):
                        // The parser admitted only escapes outside the surrogate range; the six
                        // source bytes always cover the one to three UTF-8 bytes written.
                        var scalar: UInt32 = 0
                        for offset in 0..<4 { scalar = scalar << 4 | UInt32(Parser.hexValue(source[position + offset])) }
                        position += 4
                        for unit in UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}")! {
                            output[written] = unit
                            written += 1
                        }
                        continue
                    default: resolved = escape
                    }
                    output[written] = resolved
                    written += 1
                }
                count = written
            }
        }
    }
}

extension JSONDocument {
    /// The recursive-descent parser; each value appends its node before its children.
    struct Parser {
        let buffer: UnsafeBufferPointer<UInt8>
        let checksUTF8: Bool
        var position = 0

        init(buffer: UnsafeBufferPointer<UInt8>, checksUTF8: Bool) {
            self.buffer = buffer
            self.checksUTF8 = checksUTF8
        }

        static let maximumDepth = 32
        static let maximumNumberLength = 15

        mutating func skipWhitespace() {
            while position < buffer.count {
                switch buffer[position] {
                case 0x20, 0x0A, 0x0D, 0x09: position += 1
                default: return
                }
            }
        }

        mutating func value(into nodes: inout [Node], depth: Int) -> Bool {
            skipWhitespace()
            guard position < buffer.count, depth <= Self.maximumDepth else { return false }
            let start = position
            switch buffer[position] {
            case UInt8(ascii: "{"): return container(.object, into: &nodes, depth: depth)
            case UInt8(ascii: "["): return container(.array, into: &nodes, depth: depth)
            case UInt8(ascii: "\""):
                guard let (contents, escaped) = string() else { return false }
                nodes.append(Node(kind: .string, escaped: escaped, start: contents.lowerBound, end: contents.upperBound, next: nodes.count + 1))
                return true
            case UInt8(ascii: "t"): return literal("true", kind: .bool, into: &nodes)
            case UInt8(ascii: "f"): return literal("false", kind: .bool, into: &nodes)
            case UInt8(ascii: "n"): return literal("null", kind: .null, into: &nodes)
            default:
                guard number() else { return false }
                nodes.append(Node(kind: .number, escaped: false, start: start, end: position, next: nodes.count + 1))
                return true
            }
        }

        /// Reads an object or an array: its node, then its members' or elements' nodes.
        private mutating func container(_ kind: Kind, into nodes: inout [Node], depth: Int) -> Bool {
            let closing = kind == .object ? UInt8(ascii: "}") : UInt8(ascii: "]")
            let index = nodes.count
            nodes.append(Node(kind: kind, escaped: false, start: position, end: position, next: 0))
            position += 1
            skipWhitespace()
            if position < buffer.count, buffer[position] == closing {
                position += 1
            } else {
                while true {
                    if kind == .object, !key(of: index, into: &nodes) { return false }
                    guard value(into: &nodes, depth: depth + 1), separator(closing: closing) else { return false }
                    if buffer[position - 1] == closing { break }
                }
            }
            nodes[index].end = position
            nodes[index].next = nodes.count
            return true
        }

        /// Reads a member's key and its colon; false for a key with escapes or one the object
        /// already has.
        private mutating func key(of object: Int, into nodes: inout [Node]) -> Bool {
            skipWhitespace()
            guard position < buffer.count, buffer[position] == UInt8(ascii: "\""), let (key, escaped) = string(), !escaped,
                  !Self.contains(key, amongKeysOf: object, in: nodes, buffer: buffer)
            else { return false }
            nodes.append(Node(kind: .string, escaped: false, start: key.lowerBound, end: key.upperBound, next: nodes.count + 1))
            skipWhitespace()
            guard position < buffer.count, buffer[position] == UInt8(ascii: ":") else { return false }
            position += 1
            return true
        }

        /// Whether the object whose node is at `object`, still being read, already has `key`.
        private static func contains(
            _ key: Range<Int>, amongKeysOf object: Int, in nodes: [Node], buffer: UnsafeBufferPointer<UInt8>
        ) -> Bool {
            var keyNode = object + 1
            while keyNode < nodes.count {
                let candidate = nodes[keyNode]
                if candidate.end - candidate.start == key.count,
                   buffer[candidate.start..<candidate.end].elementsEqual(buffer[key]) {
                    return true
                }
                keyNode = nodes[keyNode + 1].next
            }
            return false
        }

        /// Reads `,` or the closing bracket.
        private mutating func separator(closing: UInt8) -> Bool {
            skipWhitespace()
            guard position < buffer.count else { return false }
            let byte = buffer[position]
            guard byte == UInt8(ascii: ",") || byte == closing else { return false }
            position += 1
            return true
        }

        private mutating func literal(_ text: StaticString, kind: Kind, into nodes: inout [Node]) -> Bool {
            let count = text.utf8CodeUnitCount
            guard buffer.count - position >= count else { return false }
            for offset in 0..<count where buffer[position + offset] != text.utf8Start[offset] { return false }
            nodes.append(Node(kind: kind, escaped: false, start: position, end: position + count, next: nodes.count + 1))
            position += count
            return true
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)?`; exponents and long numbers are left to the slow path.
        private mutating func number() -> Bool {
            let start = position
            if buffer[position] == UInt8(ascii: "-") { position += 1 }
            guard position < buffer.count else { return false }
            if buffer[position] == UInt8(ascii: "0") {
                position += 1
            } else {
                guard digits() > 0 else { return false }
            }
            if position < buffer.count, buffer[position] == UInt8(ascii: ".") {
                position += 1
                guard digits() > 0 else { return false }
            }
            if position < buffer.count, buffer[position] | 0x20 == UInt8(ascii: "e") { return false }
            return position - start <= Self.maximumNumberLength
        }

        private mutating func digits() -> Int {
            let start = position
            while position < buffer.count, buffer[position] &- UInt8(ascii: "0") < 10 { position += 1 }
            return position - start
        }

        /// Reads a string; returns the range of its contents and whether it holds escapes.
        private mutating func string() -> (Range<Int>, Bool)? {
            position += 1
            let start = position
            var escaped = false
            var nonASCII = false
            while position < buffer.count {
                let byte = buffer[position]
                switch byte {
                case UInt8(ascii: "\""):
                    let contents = start..<position
                    position += 1
                    if nonASCII, checksUTF8, !Self.isValidUTF8(UnsafeBufferPointer(rebasing: buffer[contents])) { return nil }
                    return (contents, escaped)
                case UInt8(ascii: "\\"):
                    escaped = true
                    guard position + 1 < buffer.count else { return nil }
                    switch buffer[position + 1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        position += 2
                    case UInt8(ascii: "u"):
                        guard position + 5 < buffer.count else { return nil }
                        var scalar: UInt32 = 0
                        for offset in 2..<6 {
                            let digit = Self.hexValue(buffer[position + offset])
                            guard digit < 16 else { return nil }
                            scalar = scalar << 4 | UInt32(digit)
                        }
                        // Surrogates (lone or paired) are left to the slow path.
                        guard !(0xD800...0xDFFF).contains(scalar) else { return nil }
                        position += 6
                    default:
                        return nil
                    }
                case 0..<0x20:
                    return nil
                default:
                    if byte >= 0x80 { nonASCII = true }
                    position += 1
                }
            }
            return nil
        }

        static func hexValue(_ byte: UInt8) -> UInt8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: 16
            }
        }

        /// Whether bytes are well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF).
        static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: return true
                case .error: return false
                }
            }
        }
    }
}
