import Foundation
import SwitchboardCore
import Testing

@testable import SwitchboardAppSync

@Suite("AppSync Events codec")
struct AppSyncCodecTests {
    @Test("connection_ack carries connectionTimeoutMs at the top level or in payload")
    func ack() throws {
        #expect(try AppSyncCodec.decode(#"{"type":"connection_ack","connectionTimeoutMs":300000}"#) == .connectionAck(connectionTimeoutMs: 300_000))
        #expect(try AppSyncCodec.decode(#"{"type":"connection_ack","payload":{"connectionTimeoutMs":"5000"}}"#) == .connectionAck(connectionTimeoutMs: 5000))
        #expect(try AppSyncCodec.decode(#"{"type":"connection_ack"}"#) == .connectionAck(connectionTimeoutMs: nil))
    }

    @Test("data events arrive as one JSON string, an array of strings, or an object")
    func data() throws {
        #expect(try AppSyncCodec.decode(#"{"type":"data","id":"s1","event":"{\"a\":1}"}"#) == .data(id: "s1", events: [#"{"a":1}"#]))
        #expect(try AppSyncCodec.decode(#"{"type":"data","id":"s1","event":["{\"a\":1}","{\"b\":2}"]}"#) == .data(id: "s1", events: [#"{"a":1}"#, #"{"b":2}"#]))
        #expect(try AppSyncCodec.decode(#"{"type":"data","id":"s1","event":{"a":"x/y"}}"#) == .data(id: "s1", events: [#"{"a":"x/y"}"#]))
        // An element that is not a string is kept as its JSON text (the notifier then reports it
        // undeliverable, not an object), never dropped without a word.
        #expect(try AppSyncCodec.decode(#"{"type":"data","id":"s1","event":[1,"{\"a\":1}",null,{"b":true}]}"#)
            == .data(id: "s1", events: ["1", #"{"a":1}"#, "null", #"{"b":true}"#]))
        #expect(throws: SwitchboardError.self) { try AppSyncCodec.decode(#"{"type":"data","id":"s1"}"#) }
        #expect(throws: SwitchboardError.self) { try AppSyncCodec.decode(#"{"type":"data","event":"{}"}"#) }
    }

    @Test("a frame's events: one held inline, several in order, none; equal however they were made")
    func frameEvents() {
        let one = AppSyncEvents(AppSyncEvent("{}"))
        #expect(Array(one) == ["{}"])
        #expect(one == AppSyncEvents(["{}"]))
        let several: AppSyncEvents = ["1", "2", "3"]
        #expect(several.map(\.text) == ["1", "2", "3"])
        #expect(several.count == 3 && several[2] == "3")
        #expect(AppSyncEvents([]).isEmpty)
    }

    @Test("errors: numeric codes become text, an error may lack its id")
    func errors() throws {
        #expect(try AppSyncCodec.decode(#"{"type":"subscribe_error","id":"s1","errors":[{"errorType":"UnauthorizedException","message":"no"}]}"#)
            == .subscribeError(id: "s1", [AppSyncError(errorType: "UnauthorizedException", message: "no")]))
        #expect(try AppSyncCodec.decode(#"{"type":"error","errors":[{"code":401,"message":"denied"}]}"#)
            == .error(id: nil, [AppSyncError(errorType: "401", message: "denied")]))
        #expect(try AppSyncCodec.decode(#"{"type":"connection_error","errors":[{"errorType":"UnauthorizedException"}]}"#)
            == .connectionError([AppSyncError(errorType: "UnauthorizedException")]))
        #expect(AppSyncError(errorType: "401").isAuthorizationFailure)
        #expect(!AppSyncError(errorType: "LimitExceededError").isAuthorizationFailure)
    }

    @Test("every other server message decodes")
    func others() throws {
        #expect(try AppSyncCodec.decode(#"{"type":"ka"}"#) == .keepAlive)
        #expect(try AppSyncCodec.decode(#"{"type":"subscribe_success","id":"a"}"#) == .subscribeSuccess(id: "a"))
        #expect(try AppSyncCodec.decode(#"{"type":"unsubscribe_success","id":"a"}"#) == .unsubscribeSuccess(id: "a"))
        #expect(try AppSyncCodec.decode(#"{"type":"unsubscribe_error","id":"a","errors":[]}"#) == .unsubscribeError(id: "a", []))
        #expect(try AppSyncCodec.decode(#"{"type":"broadcast_error","id":"a","errors":[{"errorType":"X"}]}"#) == .broadcastError(id: "a", [AppSyncError(errorType: "X")]))
        #expect(try AppSyncCodec.decode(#"{"type":"publish_success","id":"p","successful":[{"identifier":"a","index":0}],"failed":[{"identifier":"b","index":1,"code":"EventTooLargeException","message":"big"},{"identifier":"c","index":2,"code":401,"message":"no"}]}"#)
            == .publishSuccess(id: "p", AppSyncPublishResult(
                accepted: [.init(identifier: "a", index: 0)],
                refused: [.init(identifier: "b", index: 1, code: "EventTooLargeException", message: "big"), .init(identifier: "c", index: 2, code: "401", message: "no")])))
        #expect(AppSyncCodec.encode(.publish(id: "p", channel: "/ns/a", events: [#"{"u":"a/b"}"#], authorization: ["x-api-key": "k"]))
            == #"{"authorization":{"x-api-key":"k"},"channel":"/ns/a","events":["{\"u\":\"a/b\"}"],"id":"p","type":"publish"}"#)
        #expect(try AppSyncCodec.decode(#"{"type":"publish_error","id":"p","errors":[]}"#) == .publishError(id: "p", []))
    }

    @Test("malformed frames are protocol violations", arguments: ["not json", "[1]", #"{"id":"x"}"#, #"{"type":"surprise"}"#])
    func malformed(text: String) {
        do {
            _ = try AppSyncCodec.decode(text)
            Issue.record("expected an error")
        } catch let error as SwitchboardError {
            #expect(error.code == .protocolViolation)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("client frames are compact, with unescaped slashes and the authorization object")
    func encode() {
        #expect(AppSyncCodec.encode(.connectionInit) == #"{"type":"connection_init"}"#)
        #expect(AppSyncCodec.encode(.subscribe(id: "s1", channel: "/vortex-app/user/u1/device/*", authorization: ["host": "h", "x-api-key": "k"]))
            == #"{"authorization":{"host":"h","x-api-key":"k"},"channel":"/vortex-app/user/u1/device/*","id":"s1","type":"subscribe"}"#)
        #expect(AppSyncCodec.encode(.unsubscribe(id: "s1")) == #"{"id":"s1","type":"unsubscribe"}"#)
    }

    @Test("the header subprotocol is base64url without padding; hosts derive for AWS endpoints")
    func authorization() throws {
        let subprotocol = AppSyncAuthorization.subprotocol(for: ["host": "a.appsync-api.eu-west-1.amazonaws.com", "x-api-key": "da2-?>"])
        #expect(subprotocol.hasPrefix("header-"))
        let encoded = String(subprotocol.dropFirst("header-".count))
        #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
        var base64 = encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let decoded = try #require(Data(base64Encoded: base64))
        #expect(String(decoding: decoded, as: UTF8.self) == #"{"host":"a.appsync-api.eu-west-1.amazonaws.com","x-api-key":"da2-?>"}"#)
        #expect(AppSyncAuthorization.httpHost(forRealtime: URL(string: "wss://a.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime")!)
            == "a.appsync-api.eu-west-1.amazonaws.com")
        #expect(AppSyncAuthorization.httpHost(forRealtime: URL(string: "wss://a.appsync-realtime-api.cn-north-1.amazonaws.com.cn/event/realtime")!)
            == "a.appsync-api.cn-north-1.amazonaws.com.cn")
        #expect(AppSyncAuthorization.httpHost(forRealtime: URL(string: "wss://events.example.com/event/realtime")!) == "events.example.com")
        #expect(AppSyncAuthorization.httpHost(forRealtime: URL(string: "ws://127.0.0.1:8080/event/realtime")!) == "127.0.0.1:8080")
        #expect("\(AppSyncAuthorization.apiKey("secret"))" == "apiKey")
    }
}
