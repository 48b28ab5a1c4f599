import Foundation

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
                   key.isEmpty || memcmp(buffer.baseAddress! + candidate.start, buffer.baseAddress! + key.lowerBound, key.count) == 0 {
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
                skipPlainWords()
                guard position < buffer.count else { break }
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

        /// Skips eight bytes at a time while none of them ends the string or needs a look of
        /// its own (a quote, a backslash, a control character or a non-ASCII byte).
        private mutating func skipPlainWords() {
            guard let base = buffer.baseAddress else { return }
            while buffer.count - position >= 8 {
                let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
                guard Self.isPlain(word) else { return }
                position += 8
            }
        }

        /// Whether none of the eight bytes of `word` is a quote, a backslash, below 0x20 or
        /// above 0x7F.
        static func isPlain(_ word: UInt64) -> Bool {
            word & 0x8080_8080_8080_8080 == 0 && !hasByte(below: 0x20, in: word)
                && !hasByte(UInt8(ascii: "\""), in: word) && !hasByte(UInt8(ascii: "\\"), in: word)
        }

        /// Whether a byte of `word` is below `limit` (at most 0x80): such a byte, and only
        /// such a byte, leaves its high bit set in `(word - limit) & ~word`, counting from
        /// the lowest byte up to the first one found.
        static func hasByte(below limit: UInt8, in word: UInt64) -> Bool {
            (word &- 0x0101_0101_0101_0101 &* UInt64(limit)) & ~word & 0x8080_8080_8080_8080 != 0
        }

        /// Whether one of the bytes of `word` is `byte`.
        static func hasByte(_ byte: UInt8, in word: UInt64) -> Bool {
            hasByte(below: 1, in: word ^ 0x0101_0101_0101_0101 &* UInt64(byte))
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
