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
            let value = try? JSONValue.parse(frame), case .object = value, let text = try? redact(value).text()
        else { return frame }
        return text
    }

    /// A JSON value with every credential replaced.
    package static func redact(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var result: [String: JSONValue] = [:]
            for (key, inner) in object {
                if secretKeys.contains(key.lowercased()) {
                    result[key] = inner.object.map { .object($0.mapValues { _ in .string("REDACTED") }) } ?? .string("REDACTED")
                } else {
                    result[key] = redact(inner)
                }
            }
            return .object(result)
        case .array(let array):
            return .array(array.map(redact))
        default:
            return value
        }
    }
}
