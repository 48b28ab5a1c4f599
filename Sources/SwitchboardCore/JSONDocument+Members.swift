import Foundation

extension JSONDocument {
    /// One member of an object node: its key's node and its value's node. The key is read in place
    /// (`key(_:is:)`, ``keyString(_:)``), not copied out.
    package struct Member: Hashable, Sendable {
        /// The key's node: a string node, never escaped (the parser declines escaped keys).
        package let key: Index
        /// The value's node.
        package let value: Index
    }

    /// The members of an object node in document order, walked over the nodes in place: no array
    /// of members, no `String` per key.
    package struct Members: Sequence, IteratorProtocol, Sendable {
        let nodes: [Node]
        var keyNode: Int
        let end: Int

        package mutating func next() -> Member? {
            guard keyNode < end else { return nil }
            let member = Member(key: Index(keyNode), value: Index(keyNode + 1))
            keyNode = nodes[keyNode + 1].next
            return member
        }

        /// The number of members left, counted by walking them (for reserving capacity).
        package var underestimatedCount: Int {
            var count = 0
            var keyNode = keyNode
            while keyNode < end {
                count += 1
                keyNode = nodes[keyNode + 1].next
            }
            return count
        }
    }

    /// The members of an object node, in document order, walked in place; nil for another kind.
    package func memberNodes(of object: Index) -> Members? {
        let node = nodes[object.value]
        guard node.kind == .object else { return nil }
        return Members(nodes: nodes, keyNode: object.value + 1, end: node.next)
    }

    /// The one member of an object node: nil when the node is no object or has not exactly one.
    package func onlyMemberNode(of object: Index) -> Member? {
        let node = nodes[object.value]
        // One member: its key node, then its value's subtree, and nothing after it.
        guard node.kind == .object, object.value + 1 < node.next, nodes[object.value + 2].next == node.next else { return nil }
        return Member(key: Index(object.value + 1), value: Index(object.value + 2))
    }

    /// The one member of an object node, its key as a `String`: nil when the node is no object or
    /// has not exactly one.
    package func onlyMember(of object: Index) -> (key: String, value: Index)? {
        onlyMemberNode(of: object).map { (keyString($0), $0.value) }
    }

    /// A member's key as a `String`.
    package func keyString(_ member: Member) -> String {
        let key = nodes[member.key.value]
        return String(decoding: bytes[key.start..<key.end], as: UTF8.self)
    }

    /// Whether a member's key is `name`, compared as UTF-8 bytes in place.
    package func key(_ member: Member, is name: StaticString) -> Bool {
        name.withUTF8Buffer { key(member, equals: $0) }
    }

    /// Whether a member's key is the UTF-8 text `name`, compared as bytes in place.
    package func key(_ member: Member, is name: [UInt8]) -> Bool {
        name.withUnsafeBufferPointer { key(member, equals: $0) }
    }

    private func key(_ member: Member, equals name: UnsafeBufferPointer<UInt8>) -> Bool {
        let key = nodes[member.key.value]
        // Keys are never escaped (the parser declines them), so their bytes are their text.
        guard key.end - key.start == name.count else { return false }
        guard let base = name.baseAddress, !name.isEmpty else { return true }
        return bytes.withUnsafeBufferPointer { memcmp($0.baseAddress! + key.start, base, name.count) == 0 }
    }

    /// An object node as a document of its own with some keys renamed: the same document parsing
    /// `{"name":value,...}` would make, written compactly (no space between members; values as
    /// they appear), without parsing again. Its nodes are this document's, moved.
    /// - Parameters:
    ///   - object: An object node.
    ///   - newName: A key's new name, or nil to keep it. New names must need no escaping, and must
    ///     not make two members share a key.
    package func renamingMembers(of object: Index, _ newName: (String) -> String?) -> JSONDocument {
        renamingMembers(of: object) { member, output in
            guard let renamed = newName(keyString(member)) else { return false }
            output.append(contentsOf: renamed.utf8)
            return true
        }
    }

    /// The same renaming with the new names as static text, chosen by looking at each member's
    /// key in place (`key(_:is:)`): no `String` per key.
    package func renamingMembers(of object: Index, _ newName: (Member) -> StaticString?) -> JSONDocument {
        renamingMembers(of: object) { member, output in
            guard let renamed = newName(member) else { return false }
            renamed.withUTF8Buffer { output.append(contentsOf: $0) }
            return true
        }
    }

    /// Writes the renamed object once into storage reserved up front: `rename` appends a member's
    /// new key to the output and returns true, or returns false to keep the key.
    private func renamingMembers(of object: Index, _ rename: (Member, inout [UInt8]) -> Bool) -> JSONDocument {
        let objectNode = nodes[object.value]
        precondition(objectNode.kind == .object, "renamingMembers(of:) needs an object")
        var output: [UInt8] = []
        output.reserveCapacity(objectNode.end - objectNode.start + 64)
        var moved: [Node] = []
        moved.reserveCapacity(objectNode.next - object.value)
        moved.append(Node(kind: .object, escaped: false, start: 0, end: 0, next: 0))
        output.append(UInt8(ascii: "{"))
        var keyNode = object.value + 1
        while keyNode < objectNode.next {
            if keyNode > object.value + 1 { output.append(UInt8(ascii: ",")) }
            let key = nodes[keyNode]
            output.append(UInt8(ascii: "\""))
            let keyStart = output.count
            if !rename(Member(key: Index(keyNode), value: Index(keyNode + 1)), &output) {
                output.append(contentsOf: bytes[key.start..<key.end])
            }
            moved.append(Node(kind: .string, escaped: false, start: keyStart, end: output.count, next: moved.count + 1))
            output.append(contentsOf: "\":".utf8)
            // The value's subtree, shifted to where its bytes now start.
            let valueIndex = keyNode + 1
            let value = nodes[valueIndex]
            let rawStart = value.kind == .string ? value.start - 1 : value.start
            let byteShift = output.count - rawStart
            let nodeShift = moved.count - valueIndex
            for index in valueIndex..<value.next {
                var node = nodes[index]
                node.start += byteShift
                node.end += byteShift
                node.next += nodeShift
                moved.append(node)
            }
            output.append(contentsOf: rawBytes(Index(valueIndex)))
            keyNode = value.next
        }
        output.append(UInt8(ascii: "}"))
        moved[0].end = output.count
        moved[0].next = moved.count
        return JSONDocument(bytes: output, nodes: moved)
    }
}
