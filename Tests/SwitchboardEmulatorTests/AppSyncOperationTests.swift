import Foundation
import Testing
@testable import SwitchboardEmulator

@Suite("AppSync Events subscribe, publish, unsubscribe", .timeLimit(.minutes(1)))
struct AppSyncOperationTests {
    let channel = "vortex-app/user/u1/device/presenceChanged"
    let event = #"{"eventType":"device/presenceChanged","online":true}"#

    @Test func publishOverWebSocketReachesSubscriberAsJSONString() async throws {
        let event = self.event, channel = self.channel
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.subscribe("s1", "vortex-app/user/u1/device/*")
                try await socket.publish("p1", channel, [event, event])
                _ = try await socket.next(ofType: "data")
                _ = try await socket.next(ofType: "data")
            }
        }
        #expect(result.first("subscribe_success")?.id == "s1")
        let success = try #require(result.first("publish_success"))
        #expect(success.id == "p1")
        let successful = try #require(success.object["successful"] as? [[String: Any]])
        #expect(successful.map { $0["index"] as? Int } == [0, 1])
        #expect(successful.allSatisfy { ($0["identifier"] as? String)?.isEmpty == false })
        #expect((success.object["failed"] as? [Any])?.isEmpty == true)
        let data = result.all("data")
        #expect(data.count == 2)
        #expect(data.allSatisfy { $0.id == "s1" && $0.object["event"] as? String == event })
    }

    @Test func wildcardMatchesAtEveryDepth() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.subscribe("ns", "vortex-app/*")
                try await socket.subscribe("user", "/vortex-app/user/*")
                try await socket.subscribe("device", "vortex-app/user/u1/device/*")
                try await socket.subscribe("exact", "vortex-app/user/u1/roleChanged")
                #expect(try emulator.publish(channel: "vortex-app/user/u1/device/presenceChanged", event: "1") == 3)
                #expect(try emulator.publish(channel: "vortex-app/user/u2/roleChanged", event: "2") == 2)
                #expect(try emulator.publish(channel: "vortex-app/user/u1/roleChanged", event: "3") == 3)
                #expect(try emulator.publish(channel: "vortex-app/other", event: "4") == 1)
                #expect(try emulator.publish(channel: "vortex-app", event: "5") == 0)
                for _ in 0..<9 { _ = try await socket.next(ofType: "data") }
            }
        }
        let delivered = result.all("data").map { "\($0.id!):\($0.object["event"] as! String)" }
        #expect(Set(delivered) == [
            "ns:1", "user:1", "device:1", "ns:2", "user:2", "ns:3", "user:3", "exact:3", "ns:4",
        ])
    }

    @Test func unsubscribeStopsDeliveryAndUnknownIdFails() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.subscribe("s1", "vortex-app/user/u1/roleChanged")
                try await socket.send(["type": "unsubscribe", "id": "s1"])
                _ = try await socket.next()
                #expect(emulator.subscriptionCount == 0)
                #expect(try emulator.publish(channel: "vortex-app/user/u1/roleChanged", event: "{}") == 0)
                try await socket.send(["type": "unsubscribe", "id": "s1"])
                _ = try await socket.next()
            }
        }
        #expect(result.first("unsubscribe_success")?.id == "s1")
        let error = try #require(result.first("unsubscribe_error"))
        #expect(error.firstErrorType == "UnknownOperationError")
        #expect(result.first("data") == nil)
    }

    @Test func sixEventsAreRejected() async throws {
        let event = self.event, channel = self.channel
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.publish("p1", channel, Array(repeating: event, count: 6))
            }
        }
        let error = try #require(result.first("publish_error"))
        #expect(error.id == "p1")
        #expect(error.firstErrorType == "InvalidInputError")
    }

    @Test func eventOver240KBFailsAloneInsidePublishSuccess() async throws {
        let big = "\"" + String(repeating: "x", count: 240 * 1024) + "\""
        let event = self.event, channel = self.channel
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.publish("p1", channel, [event, big])
            }
        }
        let success = try #require(result.first("publish_success"))
        let failed = try #require(success.object["failed"] as? [[String: Any]])
        #expect(failed.count == 1)
        #expect(failed.first?["index"] as? Int == 1)
        #expect(failed.first?["code"] as? String == "EventTooLargeException")
        #expect((success.object["successful"] as? [Any])?.count == 1)
    }

    @Test(arguments: [
        "vortex-app/" + String(repeating: "a", count: 51),
        "vortex-app/a/b/c/d/e",
        "vortex-app/bad_char",
        "vortex-app/-dash",
    ])
    func badChannelIsRejectedOnSubscribe(channel: String) async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withReadySocket(endpoints) { socket in try await socket.subscribe("s1", channel) }
        }
        #expect(result.first("subscribe_error")?.firstErrorType == "BadRequestException")
    }

    @Test func wildcardPublishIsRejected() async throws {
        let event = self.event
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withReadySocket(endpoints) { socket in try await socket.publish("p1", "vortex-app/user/*", [event]) }
        }
        #expect(result.first("publish_error")?.firstErrorType == "BadRequestException")
    }

    @Test func unknownNamespaceIsUnauthorized() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withReadySocket(endpoints) { socket in try await socket.subscribe("s1", "other/x") }
        }
        #expect(result.first("subscribe_error")?.firstErrorType == "UnauthorizedException")
    }

    @Test func duplicateSubscriptionIdIsRejected() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.subscribe("s1", "vortex-app/a")
                try await socket.subscribe("s1", "vortex-app/b")
            }
        }
        #expect(result.all("subscribe_success").count == 1)
        #expect(result.first("subscribe_error")?.id == "s1")
    }

    @Test func operationWithoutAuthorizationIsUnauthorized() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.send(["type": "subscribe", "id": "s1", "channel": "vortex-app/a"])
                _ = try await socket.next()
            }
        }
        #expect(result.first("subscribe_error")?.firstErrorType == "UnauthorizedException")
    }

    @Test func unknownMessageTypeGetsUnsupportedOperation() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.send(["type": "bogus", "id": "x1"])
                _ = try await socket.next()
                try await socket.sendText("not json")
                _ = try await socket.next()
            }
        }
        let errors = result.all("error")
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { $0.firstErrorType == "UnsupportedOperation" })
        #expect(errors.first?.id == "x1")
    }

    @Test func jwtUserMayUseOnlyOwnChannels() async throws {
        let token = makeJWT(sub: "u1")
        let auth = ["Authorization": token]
        let event = self.event
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withReadySocket(endpoints, auth: auth) { socket in
                try await socket.subscribe("own", "vortex-app/user/u1/device/*", auth: auth)
                try await socket.subscribe("other", "vortex-app/user/u2/device/*", auth: auth)
                try await socket.subscribe("all", "vortex-app/*", auth: auth)
                try await socket.publish("p1", "vortex-app/user/u2/roleChanged", [event], auth: auth)
            }
        }
        #expect(result.all("subscribe_success").map(\.id) == ["own"])
        #expect(result.all("subscribe_error").map(\.id) == ["other", "all"])
        #expect(result.all("subscribe_error").allSatisfy { $0.firstErrorType == "Unauthorized" })
        #expect(result.first("publish_error")?.firstErrorType == "Unauthorized")
    }

    @Test func expiredJWTOnSubscribeIsUnauthorized() async throws {
        let result = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withReadySocket(endpoints) { socket in
                try await socket.subscribe(
                    "s1", "vortex-app/user/u1/roleChanged", auth: ["Authorization": makeJWT(sub: "u1", expiresIn: -5)])
            }
        }
        #expect(result.first("subscribe_error")?.firstErrorType == "UnauthorizedException")
    }
}

@Suite("AppSync Events across connections", .timeLimit(.minutes(1)))
struct AppSyncCrossConnectionTests {
    @Test func publishOnOneConnectionReachesAnother() async throws {
        let event = #"{"eventType":"user/roleChanged","reason":"x"}"#
        let subscriber = try await withRunningEmulator(configuration: testConfiguration()) { _, endpoints in
            try await withReadySocket(endpoints) { listener in
                try await listener.subscribe("s1", "vortex-app/user/u7/*")
                try await withReadySocket(endpoints) { publisher in
                    try await publisher.publish("p1", "vortex-app/user/u7/roleChanged", [event])
                }
                _ = try await listener.next(ofType: "data")
            }
        }
        #expect(subscriber.first("data")?.object["event"] as? String == event)
        #expect(subscriber.first("publish_success") == nil)
    }
}
