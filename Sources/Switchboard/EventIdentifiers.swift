import SwitchboardCore

/// Event ids without a system call per id.
///
/// `UUID()` reads the system's random source on every call, which cost more than the rest of a
/// broker dispatch. Ids here are UUID-shaped text, `XXXXXXXX-XXXX-4XXX-YXXX-NNNNNNNNNNNN`: the
/// first 20 hex digits (74 random bits) are drawn once per process, the last 12 count up. They
/// are unique within the process (a 48-bit counter) and unlikely to repeat across processes.
/// ``EventMetadata`` keeps the counter's number and makes the text only when its id is read.
enum EventIdentifiers {
    private static let counter = LockedValue<UInt64>(0)

    /// The process's prefix: the random digits and their hyphens, 24 ASCII bytes.
    private static let prefix: [UInt8] = {
        var random = SystemRandomNumberGenerator()
        let high = random.next() as UInt64
        let low = random.next() as UInt64
        var text: [UInt8] = []
        appendHex(high >> 32, digits: 8, to: &text)
        text.append(UInt8(ascii: "-"))
        appendHex((high >> 16) & 0xFFFF, digits: 4, to: &text)
        text.append(UInt8(ascii: "-"))
        appendHex(0x4000 | (high & 0x0FFF), digits: 4, to: &text)
        text.append(UInt8(ascii: "-"))
        appendHex(0x8000 | (low & 0x3FFF), digits: 4, to: &text)
        text.append(UInt8(ascii: "-"))
        return text
    }()

    /// The next number of the process's counter: an id not yet made into text (``text(_:)``).
    static func next() -> UInt64 {
        counter.withLock { value -> UInt64 in
            value &+= 1
            return value
        }
    }

    /// The id of counter value `number`.
    static func text(_ number: UInt64) -> String {
        String(unsafeUninitializedCapacity: prefix.count + 12) { buffer in
            var count = 0
            for byte in prefix {
                buffer[count] = byte
                count += 1
            }
            for shift in stride(from: 44, through: 0, by: -4) {
                buffer[count] = hexDigits[Int((number >> UInt64(shift)) & 0xF)]
                count += 1
            }
            return count
        }
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func appendHex(_ value: UInt64, digits: Int, to text: inout [UInt8]) {
        for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
            text.append(hexDigits[Int((value >> UInt64(shift)) & 0xF)])
        }
    }
}
