import Foundation

/// Compact JSON encoding and decoding of untyped frames.
enum JSONText {
    /// Encodes a JSON object as compact text without escaped slashes.
    static func encode(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes, .sortedKeys])
        else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Decodes text as a JSON object, or nil.
    static func decodeObject(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    /// Decodes bytes as a JSON object, or nil.
    static func decodeObject(_ data: Data) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// An `errors` array with one entry.
    static func errors(_ errorType: String, _ message: String, code: Int? = nil) -> [[String: Any]] {
        var error: [String: Any] = ["errorType": errorType, "message": message]
        if let code { error["errorCode"] = code }
        return [error]
    }
}
