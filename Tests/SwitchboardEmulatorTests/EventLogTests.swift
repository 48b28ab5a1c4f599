import Foundation
import Testing
import SwitchboardCore
import SwitchboardSync
@testable import SwitchboardEmulator

@Suite("Event log behind the sync endpoints", .timeLimit(.minutes(1)))
struct EventLogTests {
    @Test func everyPublishPathIsLoggedWithUniqueIDs() async throws {
        let logged = try await withRunningEmulator(configuration: testConfiguration()) { emulator, endpoints in
            try emulator.publish(channel: "vortex-app/user/u1/a", event: #"{"n":1}"#)
            _ = try await postEvent(
                endpoints, headers: ["x-api-key": testAPIKey],
                body: ["channel": "vortex-app/user/u1/b", "events": [#"{"n":2}"#, #"{"n":3}"#]])
            try await withReadySocket(endpoints) { socket in
                _ = try await socket.publish("p1", "vortex-app/user/u1/c", [#"{"n":4}"#])
            }
            return emulator.loggedEvents
        }
        #expect(logged.map(\.channel) == ["vortex-app/user/u1/a", "vortex-app/user/u1/b", "vortex-app/user/u1/b", "vortex-app/user/u1/c"])
        #expect(logged.map(\.event) == [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#, #"{"n":4}"#])
        #expect(Set(logged.map(\.id)).count == 4)
        #expect(zip(logged, logged.dropFirst()).allSatisfy { $0.publishedAt <= $1.publishedAt })
    }

    @Test func fullLogDropsTheOldestAndRefusesAnExpiredSince() throws {
        let log = EventLog(capacity: 3, epoch: "e", now: { Date(timeIntervalSince1970: 1_000) })
        for n in 1...5 { log.append(channel: "vortex-app/a", event: "\(n)") }
        #expect(log.events.map(\.event) == ["3", "4", "5"])
        #expect(try log.read(since: nil, limit: nil).events.map(\.event) == ["3", "4", "5"])
        #expect(try log.read(since: "v1.e.2", limit: nil).events.map(\.event) == ["3", "4", "5"])
        #expect(throws: EventLog.Refusal.self) { try log.read(since: "v1.e.1", limit: nil) }
        #expect(throws: EventLog.Refusal.self) { try log.read(since: "1970-01-01T00:00:00Z", limit: nil) }
        do {
            _ = try log.read(since: "v1.e.1", limit: nil)
        } catch {
            #expect(error.isExpired)
        }
    }

    @Test func checkpointsAreExactWhereTimestampsAreAmbiguous() throws {
        // Every event in the same instant: a timestamp cannot split them, a checkpoint can.
        let log = EventLog(capacity: 10, epoch: "e", now: { Date(timeIntervalSince1970: 1_000) })
        for n in 1...4 { log.append(channel: "vortex-app/a", event: "\(n)") }
        let first = try log.read(since: nil, limit: 2)
        #expect(first.events.map(\.event) == ["1", "2"])
        #expect(first.hasMore)
        let rest = try log.read(since: first.checkpoint, limit: 2)
        #expect(rest.events.map(\.event) == ["3", "4"])
        #expect(!rest.hasMore)
        let stamp = try #require(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: 1_000)))
        #expect(try log.read(since: stamp, limit: nil).events.isEmpty)
        #expect(try log.read(since: "1970-01-01T00:16:39.999Z", limit: nil).events.count == 4)
        let end = try log.read(since: rest.checkpoint, limit: 2)
        #expect(end.events.isEmpty)
        #expect(end.checkpoint == rest.checkpoint)
    }

    @Test func foreignAndMalformedSinceAreRefused() {
        let log = EventLog(capacity: 10, epoch: "e", now: { Date() })
        log.append(channel: "vortex-app/a", event: "1")
        for since in ["v1.other.1", "v1.e.x", "v1.e.9", "yesterday"] {
            #expect(throws: EventLog.Refusal.self) { try log.read(since: since, limit: nil) }
        }
    }
}
