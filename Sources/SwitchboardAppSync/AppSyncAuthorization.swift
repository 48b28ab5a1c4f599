import Foundation
import SwitchboardCore

/// How the AppSync Events transport and publisher authorize the connection, every subscribe and
/// every publish.
///
/// The connect headers travel base64url-encoded in a `header-…` WebSocket subprotocol beside
/// `aws-appsync-event-ws`; every `subscribe` and `publish` carries its own `authorization`
/// object. Each is built afresh for its message, always with `host` set to the API's HTTP host:
/// tokens and credentials come from their providers every time and are never cached.
///
/// ```swift
/// .apiKey("da2-…")                                   // API key
/// .sessionToken                                      // Cognito / OIDC JWT or Lambda token from the session
/// .token(TokenProvider { _ in try await lambdaToken() })   // a token of your own, independent of the session
/// .iam(region: "eu-west-1") { try await credentials() }    // IAM, SigV4-signed per message
/// ```
public struct AppSyncAuthorization: Sendable, CustomStringConvertible, CustomReflectable {
    /// What one set of headers is for. IAM signs a different body for each.
    enum Operation: Equatable {
        case connect
        case subscribe(channel: String)
        case publish(channel: String, events: [String])
        /// An HTTP request whose body is already made.
        case httpRequest(body: String)

        /// The body AppSync rebuilds and checks the signature against: compact JSON, `channel`
        /// before `events`, slashes unescaped.
        var signedBody: String {
            switch self {
            case .connect: AppSyncSigV4.body(channel: nil, events: nil)
            case .subscribe(let channel): AppSyncSigV4.body(channel: channel, events: nil)
            case .publish(let channel, let events): AppSyncSigV4.body(channel: channel, events: events)
            case .httpRequest(let body): body
            }
        }
    }

    private enum Mode: Sendable {
        case apiKey(String)
        case sessionToken
        case token(TokenProvider)
        case iam(region: String, credentials: @Sendable () async throws -> AWSCredentials)
    }

    private let mode: Mode

    /// An API key (`x-api-key`).
    public static func apiKey(_ key: String) -> AppSyncAuthorization { AppSyncAuthorization(mode: .apiKey(key)) }

    /// A Cognito user pool or OIDC JWT, or a Lambda authorizer token (`Authorization`), taken
    /// from the session's token provider for every connect, subscribe and publish.
    public static var sessionToken: AppSyncAuthorization { AppSyncAuthorization(mode: .sessionToken) }

    /// A token (`Authorization`) from a provider of its own, for example a Lambda authorizer
    /// token that is not the user's session token. Asked for every connect, subscribe and publish.
    public static func token(_ provider: TokenProvider) -> AppSyncAuthorization { AppSyncAuthorization(mode: .token(provider)) }

    /// IAM: every connect, subscribe and publish is signed with Signature Version 4 (service
    /// `appsync`) over the synthetic `POST https://<host>/event` request AppSync expects, with
    /// credentials fetched for each message (temporary credentials add `X-Amz-Security-Token`).
    /// - Parameters:
    ///   - region: The API's region, for example `eu-west-1`.
    ///   - credentials: Returns current credentials; called for every message.
    public static func iam(
        region: String, credentials: @escaping @Sendable () async throws -> AWSCredentials
    ) -> AppSyncAuthorization {
        AppSyncAuthorization(mode: .iam(region: region, credentials: credentials))
    }

    /// The headers for one message.
    /// - Parameters:
    ///   - operation: What the headers authorize.
    ///   - host: The API's HTTP host.
    ///   - reason: Why a session token is needed (connect, a refresh after rejection, subscribe, publish).
    ///   - sessionToken: The session's token provider.
    ///   - date: The signing time (IAM only).
    func headers(
        for operation: Operation, host: String, reason: TokenRequestReason, sessionToken: TokenProvider?, date: Date = Date()
    ) async throws -> [String: String] {
        switch mode {
        case .apiKey(let key):
            return ["host": host, "x-api-key": key]
        case .sessionToken:
            guard let sessionToken else {
                throw SwitchboardError(code: .sessionExpired, message: "no session token provider: sign in first")
            }
            return ["host": host, "Authorization": try await sessionToken.token(for: reason)]
        case .token(let provider):
            return ["host": host, "Authorization": try await provider.token(for: reason)]
        case .iam(let region, let credentials):
            let signer = AppSyncSigV4(region: region)
            return signer.headers(body: operation.signedBody, host: host, credentials: try await credentials(), date: date)
        }
    }

    /// The mode only; never the key, token or credentials.
    public var description: String {
        switch mode {
        case .apiKey: "apiKey"
        case .sessionToken: "sessionToken"
        case .token: "token"
        case .iam(let region, _): "iam(\(region))"
        }
    }

    /// The mode only, so `dump` shows no key either.
    public var customMirror: Mirror { Mirror(self, children: ["mode": description], displayStyle: .struct) }

    /// The `header-<base64url without padding>` subprotocol carrying `headers`.
    static func subprotocol(for headers: [String: String]) -> String {
        let json = AppSyncCodec.compactJSON(.object(headers.mapValues(JSONValue.string)))
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
