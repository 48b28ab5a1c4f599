import Foundation

/// Parses and formats the ISO 8601 timestamps event payloads carry.
///
/// Accepted input: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of any length (digits beyond the
/// ninth are ignored), then `Z`, `z` or a numeric offset `±HH:MM` / `±HHMM`. The separator may be
/// `T`, `t` or a space. Output is UTC with `Z` and fractional seconds: three digits when that
/// reproduces the value exactly, otherwise six or nine, so `parse(format(date)) == date` for every
/// date that came from a timestamp.
///
/// The parser is hand-written: it keeps no formatter, so it is thread-safe, and it avoids the
/// precision loss `Date.ISO8601FormatStyle` shows on Linux (it reads `.002` as 0.00199997 s).
package enum ISO8601Timestamp {
    /// Seconds from 1970-01-01 to 2001-01-01, Foundation's reference date.
    private static let unixToReference: Int64 = 978_307_200

    /// Parses a timestamp.
    /// - Parameter text: The timestamp text.
    /// - Returns: The instant, or nil when the text is not a valid timestamp.
    package static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { date(fromUTF8: $0) }
    }

    /// Parses a timestamp's UTF-8 bytes where they lie (in a parsed document's text, say),
    /// without making a `String`.
    /// - Parameter bytes: The timestamp's bytes.
    /// - Returns: The instant, or nil when the bytes are not a valid timestamp.
    package static func date(fromUTF8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var scanner = TimestampScanner(bytes)
        return scanner.timestamp()
    }

    /// Formats a date in UTC with fractional seconds, such as `2024-05-01T12:34:56.789Z`.
    /// - Parameter date: The date to format.
    /// - Returns: The timestamp text, or nil when the year falls outside 0000…9999.
    package static func string(from date: Date) -> String? {
        var closest: String?
        for digits in [3, 6, 9] {
            guard let text = format(date, fractionDigits: digits) else { return nil }
            if Self.date(from: text) == date { return text }
            closest = text
        }
        return closest
    }

    private static func format(_ date: Date, fractionDigits: Int) -> String? {
        // Seconds and fraction apart: the whole interval in nanoseconds overflows Int64 after 2262.
        let interval = date.timeIntervalSinceReferenceDate
        let whole = interval.rounded(.down)
        guard abs(whole) < 1e15 else { return nil }
        let unitsPerSecond = Int64(pow(10, Double(fractionDigits)))
        var seconds = Int64(whole)
        var fraction = Int64(((interval - whole) * Double(unitsPerSecond)).rounded())
        if fraction == unitsPerSecond { (seconds, fraction) = (seconds + 1, 0) }
        let (days, secondOfDay) = floorDivide(seconds + unixToReference, 86_400)
        let (year, month, day) = civilDate(fromDaysSinceEpoch: days)
        guard (0...9999).contains(year) else { return nil }
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay % 3600 / 60, 2) + ":"
            + pad(secondOfDay % 60, 2) + "." + pad(fraction, fractionDigits) + "Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = ((value % divisor) + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    fileprivate static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilDate(fromDaysSinceEpoch days: Int64) -> (Int64, Int64, Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    fileprivate static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11:
            return 30
        default:
            return 31
        }
    }

    fileprivate static func makeDate(unixSeconds: Int64, nanoseconds: Int64) -> Date {
        let referenceSeconds = unixSeconds - unixToReference
        return Date(timeIntervalSinceReferenceDate: Double(referenceSeconds) + Double(nanoseconds) / 1e9)
    }
}

/// A cursor over the UTF-8 bytes of one timestamp.
private struct TimestampScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func timestamp() -> Date? {
        guard let year = number(digits: 4), literal("-"),
              let month = number(digits: 2), literal("-"),
              let day = number(digits: 2), literal("T") || literal("t") || literal(" "),
              let hour = number(digits: 2), literal(":"),
              let minute = number(digits: 2), literal(":"),
              let second = number(digits: 2)
        else { return nil }
        guard (1...12).contains(month),
              (1...ISO8601Timestamp.daysInMonth(year: year, month: month)).contains(day),
              (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        var nanoseconds: Int64 = 0
        if literal(".") {
            guard let fraction = fractionNanoseconds() else { return nil }
            nanoseconds = fraction
        }
        guard let offset = offsetSeconds(), index == bytes.count else { return nil }
        let days = ISO8601Timestamp.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return ISO8601Timestamp.makeDate(unixSeconds: seconds, nanoseconds: nanoseconds)
    }

    private mutating func literal(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    private mutating func digit() -> Int64? {
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else {
            return nil
        }
        defer { index += 1 }
        return Int64(bytes[index] - UInt8(ascii: "0"))
    }

    private mutating func number(digits: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<digits {
            guard let next = digit() else { return nil }
            value = value * 10 + next
        }
        return value
    }

    /// Reads one or more fraction digits and returns them as nanoseconds.
    private mutating func fractionNanoseconds() -> Int64? {
        var value: Int64 = 0
        var count = 0
        while let next = digit() {
            if count < 9 { value = value * 10 + next }
            count += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 9) { value *= 10 }
        return value
    }

    /// Reads `Z`, `z`, `±HH:MM` or `±HHMM` and returns the offset east of UTC in seconds.
    private mutating func offsetSeconds() -> Int64? {
        if literal("Z") || literal("z") { return 0 }
        let sign: Int64
        if literal("+") {
            sign = 1
        } else if literal("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hours = number(digits: 2) else { return nil }
        _ = literal(":")
        guard let minutes = number(digits: 2), (0...23).contains(hours), (0...59).contains(minutes) else {
            return nil
        }
        return sign * (hours * 3600 + minutes * 60)
    }
}
