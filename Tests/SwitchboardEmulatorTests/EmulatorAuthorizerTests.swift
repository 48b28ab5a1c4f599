import Crypto
import Foundation
import SwitchboardCore
import Testing
@testable import SwitchboardEmulator

/// Every way the emulator's authorizer refuses credentials or a channel, one row each. The
/// transports' tests meet these through the wire (AppSyncConnectTests, AppSyncOperationTests,
/// the GraphQL protocol tests, HTTPPublishTests, FaultInjectionTests); here each rule is pinned
/// on its own, with the message a developer sees in the emulator's log and error frames.
@Suite("Emulator authorizer rejections")
struct EmulatorAuthorizerTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let authorizer = EmulatorAuthorizer(auth: .init(apiKeys: ["k"], jwtSecret: testSecret))

    /// A JWT with the given header and claims, signed with `secret`.
    static func token(header: String = #"{"alg":"HS256","typ":"JWT"}"#, claims: String, secret: [UInt8] = testSecret) -> String {
        let head = Base64URL.encode(Data(header.utf8))
        let body = Base64URL.encode(Data(claims.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(head).\(body)".utf8), using: SymmetricKey(data: secret))
        return "\(head).\(body).\(Base64URL.encode(Data(mac)))"
    }

    static let valid = token(claims: #"{"sub":"u1","exp":1800000060}"#)

    struct Rejection: Sendable, CustomTestStringConvertible {
        var name: String
        var headers: [String: String]
        var message: String
        var testDescription: String { name }
    }

    static let rejections: [Rejection] = [
        Rejection(name: "no credentials", headers: ["host": "example"], message: "no credentials"),
        Rejection(name: "unknown API key", headers: ["x-api-key": "nope"], message: "invalid API key"),
        Rejection(name: "empty API key", headers: ["X-Api-Key": ""], message: "invalid API key"),
        Rejection(name: "not three parts", headers: ["authorization": "a.b"], message: "malformed JWT"),
        Rejection(name: "header not base64url", headers: ["authorization": "%%.e30.c2ln"], message: "malformed JWT"),
        Rejection(name: "header not JSON", headers: ["authorization": Base64URL.encode(Data("nope".utf8)) + ".e30.c2ln"],
                  message: "malformed JWT"),
        Rejection(name: "claims not an object", headers: ["authorization": token(claims: "[1]")], message: "malformed JWT"),
        Rejection(name: "alg none", headers: ["authorization": token(header: #"{"alg":"none"}"#, claims: #"{"sub":"u1","exp":1800000060}"#)],
                  message: "unsupported JWT alg"),
        Rejection(name: "alg RS256", headers: ["authorization": token(header: #"{"alg":"RS256"}"#, claims: #"{"sub":"u1","exp":1800000060}"#)],
                  message: "unsupported JWT alg"),
        Rejection(name: "signed with another secret",
                  headers: ["authorization": token(claims: #"{"sub":"u1","exp":1800000060}"#, secret: Array("other".utf8))],
                  message: "bad JWT signature"),
        Rejection(name: "claims changed after signing", headers: ["authorization": tampered()], message: "bad JWT signature"),
        Rejection(name: "no exp", headers: ["authorization": token(claims: #"{"sub":"u1"}"#)], message: "JWT has no exp"),
        Rejection(name: "exp not a number", headers: ["authorization": token(claims: #"{"sub":"u1","exp":"soon"}"#)],
                  message: "JWT has no exp"),
        Rejection(name: "expired", headers: ["authorization": token(claims: #"{"sub":"u1","exp":1799999999}"#)], message: "JWT expired"),
        Rejection(name: "expires this second", headers: ["authorization": token(claims: #"{"sub":"u1","exp":1800000000}"#)],
                  message: "JWT expired"),
        Rejection(name: "no sub", headers: ["authorization": token(claims: #"{"exp":1800000060}"#)], message: "JWT has no sub"),
        Rejection(name: "empty sub", headers: ["authorization": token(claims: #"{"sub":"","exp":1800000060}"#)], message: "JWT has no sub"),
    ]

    /// The valid token with its claims swapped for another user's, keeping the signature.
    static func tampered() -> String {
        let parts = valid.split(separator: ".")
        return "\(parts[0]).\(Base64URL.encode(Data(#"{"sub":"admin","exp":1800000060}"#.utf8))).\(parts[2])"
    }

    @Test("refused credentials", arguments: rejections)
    func refused(_ rejection: Rejection) {
        #expect(Self.authorizer.authenticate(rejection.headers, now: Self.now) == .failure(AuthFailure(message: rejection.message)))
    }

    @Test("accepted credentials: API key (any header case), JWT with or without Bearer")
    func accepted() {
        #expect(Self.authorizer.authenticate(["X-API-KEY": "k"], now: Self.now) == .success(.apiKey))
        #expect(Self.authorizer.authenticate(["Authorization": Self.valid], now: Self.now) == .success(.user("u1")))
        #expect(Self.authorizer.authenticate(["authorization": "Bearer " + Self.valid], now: Self.now) == .success(.user("u1")))
    }

    @Test("an API key is checked before a JWT: a bad key with a good token is refused")
    func apiKeyTakesPrecedence() {
        #expect(Self.authorizer.authenticate(["x-api-key": "bad", "authorization": Self.valid], now: Self.now)
            == .failure(AuthFailure(message: "invalid API key")))
    }

    @Test("an emulator without a JWT secret refuses every JWT")
    func noSecret() {
        let keysOnly = EmulatorAuthorizer(auth: .init(apiKeys: ["k"]))
        #expect(keysOnly.authenticate(["authorization": Self.valid], now: Self.now)
            == .failure(AuthFailure(message: "JWTs are not accepted")))
    }

    @Test("a user may use only channels below its own user segment", arguments: [
        ("vortex-app/user/u1/role", true),
        ("vortex-app/user/u1/device/presence", true),
        ("vortex-app/user/u1", false),
        ("vortex-app/user/u2/role", false),
        ("vortex-app/organization/o1/plan", false),
    ])
    func channelAccess(channel: String, allowed: Bool) throws {
        let path = try ChannelPath(channel, allowWildcard: false)
        #expect(Self.authorizer.mayAccess(.user("u1"), channel: path) == allowed)
        #expect(Self.authorizer.mayAccess(.apiKey, channel: path))
    }
}
