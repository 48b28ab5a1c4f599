import Foundation

/// One typed event as `listen` and `demo` print it: `{"stream":"role","event":{…}}` on one line,
/// with the event in the new contract's field names (`siteId`, `aiControlSetting`).
struct EventLine: Sendable {
    var stream: StreamName
    var event: any Encodable & Sendable

    /// The line's JSON text, without a trailing newline. Keys are sorted so the output is
    /// stable for scripts and tests.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(Wire(stream: stream.rawValue, event: AnyEncodable(event)))
        return String(decoding: data, as: UTF8.self)
    }

    private struct Wire: Encodable {
        var stream: String
        var event: AnyEncodable
    }

    private struct AnyEncodable: Encodable {
        var base: any Encodable
        init(_ base: any Encodable) { self.base = base }
        func encode(to encoder: any Encoder) throws { try base.encode(to: encoder) }
    }
}
