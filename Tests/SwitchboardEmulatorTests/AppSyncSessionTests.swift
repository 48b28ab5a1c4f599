import Foundation
import HTTPTypes
import SwitchboardCore
import Testing
@testable import SwitchboardEmulator

@Suite("AppSyncSession state machine", .timeLimit(.minutes(1)))
struct AppSyncSessionTests {
    func makeSession(max: Int = 2) -> AppSyncSession {
        AppSyncSession(
            authorizer: EmulatorAuthorizer(auth: .init(apiKeys: ["k"], jwtSecret: testSecret)),
            namespaces: ["vortex-app"], connectionTimeoutMs: 1234, maximumSubscriptions: max)
    }

    func frame(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    func sent(_ actions: [AppSyncSession.Action]) -> [[String: Any]] {
        actions.compactMap { if case .send(let text) = $0 { JSONText.decodeObject(text) } else { nil } }
    }

    @Test func ackCarriesConfiguredTimeout() {
        var session = makeSession()
        let out = sent(session.received(frame(["type": "connection_init"]), now: Date(), identifiers: []))
        #expect(out.first?["type"] as? String == "connection_ack")
        #expect(out.first?["connectionTimeoutMs"] as? Int == 1234)
    }

    @Test func subscriptionLimitGivesMaxSubscriptionsReached() {
        var session = makeSession(max: 2)
        var types: [String?] = []
        for n in 1...3 {
            let actions = session.received(
                frame(["type": "subscribe", "id": "s\(n)", "channel": "vortex-app/c\(n)", "authorization": ["x-api-key": "k"]]),
                now: Date(), identifiers: [])
            types.append(sent(actions).first?.firstErrorType ?? sent(actions).first?["type"] as? String)
        }
        #expect(types == ["subscribe_success", "subscribe_success", "MaxSubscriptionsReachedError"])
        #expect(session.subscriptions.count == 2)
    }

    @Test func publishActionsListAcceptedEventsInOrderAfterTheReply() throws {
        var session = makeSession()
        let actions = session.received(
            frame(["type": "publish", "id": "p", "channel": "vortex-app/a", "events": ["1", "{", "2"],
                   "authorization": ["x-api-key": "k"]]),
            now: Date(), identifiers: ["i0", "i1", "i2", "i3", "i4"])
        let channel = try ChannelPath("vortex-app/a", allowWildcard: false)
        #expect(Array(actions.dropFirst()) == [.publish(channel: channel, event: "1"), .publish(channel: channel, event: "2")])
        let reply = try #require(sent(actions).first)
        #expect((reply["failed"] as? [[String: Any]])?.first?["identifier"] as? String == "i1")
    }

    @Test func invalidOperationIdIsRejected() {
        var session = makeSession()
        let out = sent(session.received(
            frame(["type": "subscribe", "id": "bad id!", "channel": "vortex-app/a", "authorization": ["x-api-key": "k"]]),
            now: Date(), identifiers: []))
        #expect(out.first?["type"] as? String == "subscribe_error")
    }

    @Test func authorizerAcceptsBearerAndChecksExpiryAgainstGivenTime() {
        let authorizer = EmulatorAuthorizer(auth: .init(jwtSecret: testSecret))
        let token = makeJWT(sub: "u9", expiresIn: 60)
        #expect(authorizer.authenticate(["authorization": "Bearer " + token], now: Date()) == .success(.user("u9")))
        #expect(authorizer.authenticate(["Authorization": token], now: Date().addingTimeInterval(120))
            == .failure(AuthFailure(message: "JWT expired")))
        #expect(authorizer.authenticate(["x-api-key": "k"], now: Date()) == .failure(AuthFailure(message: "invalid API key")))
    }
}

@Suite("Connect-time credentials", .timeLimit(.minutes(1)))
struct ConnectHeadersTests {
    @Test func headerSubprotocolWinsOverRequestHeaders() {
        var headers = HTTPFields()
        headers[.secWebSocketProtocol] = "aws-appsync-event-ws, " + headerSubprotocol(["x-api-key": "from-subprotocol", "host": "h"])
        headers[HTTPField.Name("x-api-key")!] = "from-header"
        let auth = AppSyncConnectionDriver.connectHeaders(headers)
        #expect(auth["x-api-key"] == "from-subprotocol")
        #expect(auth["host"] == "h")
    }

    @Test func undecodableHeaderSubprotocolGivesNoCredentials() {
        var headers = HTTPFields()
        headers[.secWebSocketProtocol] = "aws-appsync-event-ws, header-%%%"
        headers[HTTPField.Name("x-api-key")!] = "k"
        #expect(AppSyncConnectionDriver.connectHeaders(headers).isEmpty)
    }

    @Test func requestHeadersAreUsedWithoutAHeaderSubprotocol() {
        var headers = HTTPFields()
        headers[.secWebSocketProtocol] = "aws-appsync-event-ws"
        headers[HTTPField.Name("Authorization")!] = "Bearer t"
        let authorizer = EmulatorAuthorizer(auth: .init(apiKeys: ["k"]))
        #expect(authorizer.authenticate(AppSyncConnectionDriver.connectHeaders(headers), now: Date())
            == .failure(AuthFailure(message: "JWTs are not accepted")))
    }
}
