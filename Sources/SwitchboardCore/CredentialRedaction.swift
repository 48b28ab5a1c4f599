import Foundation

/// Replaces credentials in JSON frames before they are logged or recorded: the value of every
/// key that names a credential, at any depth, compared case-insensitively (an object under such
/// a key has each of its values replaced).
package enum CredentialRedaction {
    /// Keys whose values are credentials.
    package static let secretKeys: Set<String> = ["authorization", "authtoken", "token", "x-api-key", "apikey", "x-amz-security-token"]

    /// The frame with every credential value replaced by `"REDACTED"`, keys sorted; a frame
    /// without credentials, or that is not a JSON object, comes back unchanged.
    package static func redacted(_ frame: String) -> String {
        guard secretKeys.contains(where: { frame.range(of: $0, options: .caseInsensitive) != nil }),
            let object = (try? JSONSerialization.jsonObject(with: Data(frame.utf8))) as? [String: Any],
            let redacted = redact(object) as? [String: Any],
            let data = try? JSONSerialization.data(withJSONObject: redacted, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return frame }
        return String(decoding: data, as: UTF8.self)
    }

    /// A decoded JSON value with every credential replaced.
    package static func redact(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, inner) in object {
                if secretKeys.contains(key.lowercased()) {
                    result[key] = (inner as? [String: Any]).map { $0.mapValues { _ in "REDACTED" } } ?? "REDACTED"
                } else {
                    result[key] = redact(inner)
                }
            }
            return result
        }
        if let array = value as? [Any] { return array.map(redact) }
        return value
    }
}
