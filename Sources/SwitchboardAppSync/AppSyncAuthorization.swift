import Foundation
import SwitchboardCore

/// How the AppSync Events transport authorizes its connection and every subscription.
///
/// The headers travel base64url-encoded in a `header-…` WebSocket subprotocol beside
/// `aws-appsync-event-ws`, and again in every `subscribe`'s `authorization`, always with `host`
/// set to the API's HTTP host.
public enum AppSyncAuthorization: Sendable, Hashable, CustomStringConvertible {
    /// An API key (`x-api-key`).
    case apiKey(String)
    /// A Cognito user pool or OIDC JWT, or a Lambda authorizer token (`Authorization`), taken
    /// from the session's token provider for every connect and subscribe.
    case sessionToken

    /// The headers for one connect or subscribe.
    func headers(host: String, token: () async throws -> String) async throws -> [String: String] {
        switch self {
        case .apiKey(let key): ["host": host, "x-api-key": key]
        case .sessionToken: ["host": host, "Authorization": try await token()]
        }
    }

    /// The mode only; never the key.
    public var description: String {
        switch self {
        case .apiKey: "apiKey"
        case .sessionToken: "sessionToken"
        }
    }

    /// The `header-<base64url without padding>` subprotocol carrying `headers`.
    static func subprotocol(for headers: [String: String]) -> String {
        let json = AppSyncCodec.compactJSON(headers)
        let base64 = Data(json.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "header-\(base64)"
    }

    /// The HTTP host AppSync expects in `host`: for `*.amazonaws.com` realtime endpoints, the
    /// (and `*.amazonaws.com.cn`) `appsync-realtime-api` part becomes `appsync-api`; otherwise the URL's host (and port).
    static func httpHost(forRealtime url: URL) -> String? {
        guard let host = url.host else { return nil }
        let derived =
            (host.hasSuffix(".amazonaws.com") || host.hasSuffix(".amazonaws.com.cn")) ? host.replacingOccurrences(of: "appsync-realtime-api", with: "appsync-api") : host
        return url.port.map { "\(derived):\($0)" } ?? derived
    }
}
