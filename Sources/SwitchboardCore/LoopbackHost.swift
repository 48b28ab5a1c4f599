/// Whether a host name or address is this machine, for the rule that credentials travel in
/// plaintext (`ws://`, `http://`) only to loopback unless explicitly allowed.
package enum LoopbackHost {
    /// True for `localhost` (and names under `.localhost`), an IPv4 address in 127.0.0.0/8 and
    /// `::1` (bracketed or not); case-insensitive.
    package static func contains(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        if name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return false }
        let values = octets.compactMap { octet in octet.allSatisfy(\.isASCII) ? UInt8(octet) : nil }
        return values.count == 4 && values[0] == 127
    }
}
