extension JSONDocument {
    /// The one member of an object node: nil when the node is no object or has not exactly one.
    package func onlyMember(of object: Index) -> (key: String, value: Index)? {
        let node = nodes[object.value]
        // One member: its key node, then its value's subtree, and nothing after it.
        guard node.kind == .object, object.value + 1 < node.next, nodes[object.value + 2].next == node.next else { return nil }
        let key = nodes[object.value + 1]
        return (String(decoding: bytes[key.start..<key.end], as: UTF8.self), Index(object.value + 2))
    }

    /// An object node as a document of its own with some keys renamed: the same document parsing
    /// `{"name":value,...}` would make, written compactly (no space between members; values as
    /// they appear), without parsing again. Its nodes are this document's, moved.
    /// - Parameters:
    ///   - object: An object node.
    ///   - newName: A key's new name, or nil to keep it. New names must need no escaping, and must
    ///     not make two members share a key.
    package func renamingMembers(of object: Index, _ newName: (String) -> String?) -> JSONDocument {
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
            let original = bytes[key.start..<key.end]
            if let renamed = newName(String(decoding: original, as: UTF8.self)) {
                output.append(contentsOf: renamed.utf8)
            } else {
                output.append(contentsOf: original)
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
