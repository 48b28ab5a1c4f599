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
    package private(set) var bytes: [UInt8]
    private(set) var nodes: [Node] = []

    /// The top-level value.
    package var root: Index { Index(0) }

    /// About what the document keeps in memory, in bytes: its text and its index of values (by
    /// count, not capacity, so that equal documents count the same).
    package var retainedBytes: Int { bytes.count + nodes.count * MemoryLayout<Node>.stride }

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
        self.init(bytes, reusing: [], isValidUTF8: isValidUTF8)
    }

    /// Parses UTF-8 text into `nodes`' storage (emptied first, its capacity kept).
    private init?(_ bytes: [UInt8], reusing nodes: consuming [Node], isValidUTF8: Bool) {
        self.bytes = bytes
        self.nodes = consume nodes
        self.nodes.removeAll(keepingCapacity: true)
        // About one node per eight bytes in events; within bounds for large documents.
        self.nodes.reserveCapacity(min(max(16, bytes.count / 8), 512))
        let parsed = bytes.withUnsafeBufferPointer { buffer -> Bool in
            var parser = Parser(buffer: buffer, checksUTF8: !isValidUTF8)
            guard parser.value(into: &self.nodes, depth: 0) else { return false }
            parser.skipWhitespace()
            return parser.position == buffer.count
        }
        guard parsed else { return nil }
    }

    /// A document of nodes already read (for ``subdocument(_:)`` and
    /// ``renamingMembers(of:_:)``).
    init(bytes: [UInt8], nodes: [Node]) {
        self.bytes = bytes
        self.nodes = nodes
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
                    // Lengths, then first bytes, before comparing the whole key.
                    if candidate.end - candidate.start == wanted.count,
                       wanted.isEmpty
                        || bytes[candidate.start] == wanted[0]
                        && memcmp(bytes.baseAddress! + candidate.start, wanted.baseAddress!, wanted.count) == 0 {
                        return Index(keyNode + 1)
                    }
                    keyNode = nodes[keyNode + 1].next
                }
                return nil
            }
        }
    }

    /// The members of an object node in document order, or nil for another kind.
    /// (``memberNodes(of:)`` walks them without making an array or the keys' `String`s.)
    package func members(of object: Index) -> [(key: String, value: Index)]? {
        guard let members = memberNodes(of: object) else { return nil }
        var result: [(key: String, value: Index)] = []
        result.reserveCapacity(members.underestimatedCount)
        for member in members { result.append((keyString(member), member.value)) }
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

    /// Calls `body` with a string node's value as UTF-8 bytes, unescaped: in place, without a
    /// copy, unless the string holds escapes. Nil for another kind.
    package func withStringBytes<Result>(_ index: Index, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result? {
        let node = nodes[index.value]
        guard node.kind == .string else { return nil }
        if node.escaped { return try unescaped(node).withUnsafeBufferPointer(body) }
        return try bytes.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[node.start..<node.end])) }
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

    /// A value as a document of its own, as parsing its ``rawBytes(_:)`` would make it, without
    /// parsing them again: its bytes and nodes are copied out of this document.
    package func subdocument(_ index: Index) -> JSONDocument {
        let node = nodes[index.value]
        let start = node.kind == .string ? node.start - 1 : node.start
        var copied = Array(nodes[index.value..<node.next])
        for position in copied.indices {
            copied[position].start -= start
            copied[position].end -= start
            copied[position].next -= index.value
        }
        return JSONDocument(bytes: Array(rawBytes(index)), nodes: copied)
    }

    /// The bytes of a value exactly as they appear in the document (a string with its quotes).
    package func rawBytes(_ index: Index) -> ArraySlice<UInt8> {
        let node = nodes[index.value]
        return node.kind == .string ? bytes[(node.start - 1)..<(node.end + 1)] : bytes[node.start..<node.end]
    }

    /// The bytes of a value exactly as they appear in the document, as `Data` (copied once, with
    /// no intermediate buffer).
    package func rawData(_ index: Index) -> Data {
        rawBytes(index).withUnsafeBytes { Data($0) }
    }

    /// Takes a string node's text out of the document, unescaped, and parses it as JSON of its
    /// own (JSON carried in a JSON string, as an AppSync Events `data` frame's `event`), in this
    /// document's storage: the text is unescaped in place, at the front of the bytes, and parsed
    /// into the same node buffer, so no new buffer is made. The document is left empty. Nil for
    /// another kind (the document is then unchanged).
    /// - Parameter index: A string node.
    /// - Returns: The text as UTF-8 bytes, and its parse (sharing them), nil when
    ///   ``JSONDocument`` leaves the text to the slow path.
    package mutating func takeString(_ index: Index) -> (text: [UInt8], document: JSONDocument?)? {
        let node = nodes[index.value]
        guard node.kind == .string else { return nil }
        var text: [UInt8] = []
        var nodes: [Node] = []
        swap(&text, &bytes)
        swap(&nodes, &self.nodes)
        let count = text.withUnsafeMutableBufferPointer { buffer in
            // The output never runs ahead of the input: an escape is never shorter than what it
            // stands for, and the contents start after the opening quote.
            Self.unescape(node, from: UnsafeBufferPointer(buffer), into: buffer.baseAddress!)
        }
        text.removeLast(text.count - count)
        guard let document = JSONDocument(text, reusing: consume nodes, isValidUTF8: true) else { return (text, nil) }
        return (document.bytes, document)
    }

    /// The string's bytes with its escapes resolved, written straight into the result's storage
    /// (an escaped string is never longer than its source).
    private func unescaped(_ node: Node) -> [UInt8] {
        bytes.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: node.end - node.start) { output, count in
                count = Self.unescape(node, from: source, into: output.baseAddress!)
            }
        }
    }

    /// Writes a string node's contents from `source` to `output` with its escapes resolved;
    /// returns how many bytes it wrote. `output` may be `source`'s own storage at or before the
    /// node's start (the writes never overtake the reads).
    private static func unescape(
        _ node: Node, from source: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>
    ) -> Int {
        var position = node.start
        var written = 0
        while position < node.end {
            // Eight bytes at a time up to the next backslash.
            while node.end - position >= 8 {
                let word = UnsafeRawPointer(source.baseAddress! + position).loadUnaligned(as: UInt64.self)
                guard !Parser.hasByte(UInt8(ascii: "\\"), in: word) else { break }
                UnsafeMutableRawPointer(output + written).storeBytes(of: word, as: UInt64.self)
                written += 8
                position += 8
            }
            guard position < node.end else { break }
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
        return written
    }
}
