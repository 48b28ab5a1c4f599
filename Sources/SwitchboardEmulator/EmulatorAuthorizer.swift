import Crypto
import Foundation
import SwitchboardCore

/// Who made a request, once its credentials are accepted.
enum EmulatorIdentity: Sendable, Equatable {
    /// An API key: full access.
    case apiKey
    /// A JWT whose `sub` is this user id.
    case user(String)
}

/// Why credentials were refused.
struct AuthFailure: Error, Equatable {
    var message: String
}

/// Checks credentials (API key or HS256 JWT) and channel access, like the backend's authorizer.
/// Pure: the current time is passed in.
struct EmulatorAuthorizer: Sendable {
    var auth: SwitchboardEmulator.Auth

    /// Authenticates an auth header object (keys compared case-insensitively).
    func authenticate(_ headers: [String: String], now: Date) -> Result<EmulatorIdentity, AuthFailure> {
        var lowered: [String: String] = [:]
        for (key, value) in headers { lowered[key.lowercased()] = value }
        if let key = lowered["x-api-key"] {
            return auth.apiKeys.contains(key) ? .success(.apiKey) : .failure(AuthFailure(message: "invalid API key"))
        }
        if var token = lowered["authorization"] {
            if token.hasPrefix("Bearer ") { token.removeFirst("Bearer ".count) }
            return verifyJWT(token, now: now)
        }
        return .failure(AuthFailure(message: "no credentials"))
    }

    /// Whether `identity` may use `channel`: an API key may use any channel; a user only channels
    /// `<namespace>/user/<sub>/…` (at least one segment after the user id).
    func mayAccess(_ identity: EmulatorIdentity, channel: ChannelPath) -> Bool {
        switch identity {
        case .apiKey:
            return true
        case .user(let userId):
            let segments = channel.segments
            return segments.count >= 4 && segments[1] == "user" && segments[2] == userId
        }
    }

    private func verifyJWT(_ token: String, now: Date) -> Result<EmulatorIdentity, AuthFailure> {
        guard let secret = auth.jwtSecret else { return .failure(AuthFailure(message: "JWTs are not accepted")) }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let headerData = Base64URL.decode(parts[0]),
            let payloadData = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let header = try? JSONSerialization.jsonObject(with: headerData) as? [String: Any],
            let payload = try? JSONSerialization.jsonObject(with: payloadData) as? [String: Any]
        else { return .failure(AuthFailure(message: "malformed JWT")) }
        guard header["alg"] as? String == "HS256" else { return .failure(AuthFailure(message: "unsupported JWT alg")) }
        let signed = Data("\(parts[0]).\(parts[1])".utf8)
        let key = SymmetricKey(data: secret)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signed, using: key) else {
            return .failure(AuthFailure(message: "bad JWT signature"))
        }
        guard let exp = (payload["exp"] as? NSNumber)?.doubleValue else {
            return .failure(AuthFailure(message: "JWT has no exp"))
        }
        guard exp > now.timeIntervalSince1970 else { return .failure(AuthFailure(message: "JWT expired")) }
        guard let sub = payload["sub"] as? String, !sub.isEmpty else {
            return .failure(AuthFailure(message: "JWT has no sub"))
        }
        return .success(.user(sub))
    }
}

/// Base64url (RFC 4648 §5) with optional padding.
enum Base64URL {
    static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64.append("=") }
        return Data(base64Encoded: base64)
    }

    static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
