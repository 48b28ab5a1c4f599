import Foundation
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardNIO
@testable import SwitchboardSync
import SwitchboardTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Opens the sync stream, sends a request and reads frames until the socket closes.
func streamFrames(_ endpoints: SwitchboardEmulator.Endpoints, since: String? = nil) async throws -> [SyncStreamFrame] {
    let connector = NIOWebSocketConnector(configuration: .init(logger: silentLogger))
    let connection = try await connector.connect(WebSocketRequest(url: URL(string: endpoints.syncStreamURL)!))
    try await connection.send(.text(SyncStreamFrame.request(since: since).encoded()))
    var frames: [SyncStreamFrame] = []
    do {
        for try await event in connection.inbound {
            guard case .message(.text(let text)) = event else { break }
            frames.append(try SyncStreamFrame(decoding: text))
        }
    } catch {
        // An abort without a close frame: what was received is the answer.
    }
    await connection.close(code: .normalClosure, reason: "")
    return frames
}

func pull(_ endpoints: SwitchboardEmulator.Endpoints, query: String) async throws -> (status: Int, body: Data) {
    try await SyncHTTPClients.platformDefault().get(URL(string: endpoints.syncBaseURL + "/sync/pull?" + query)!, headers: [])
}

@Suite("Emulator sync endpoints", .timeLimit(.minutes(1)))
struct SyncEndpointTests {
    @Test func streamSendsStartBatchesAndComplete() async throws {
        let (frames, logged, pulled) = try await withRunningEmulator(configuration: emulatorConfiguration(batchSize: 500)) {
            emulator, endpoints in
            try publish(1_200, on: emulator)
            let pulled = try await pull(endpoints, query: "limit=5000")
            let rest = try JSONDecoder().decode(SyncPullPage.self, from: pulled.body)
            let last = try await pull(endpoints, query: "since=\(rest.nextCheckpoint)&limit=1000")
            return (try await streamFrames(endpoints), emulator.loggedEvents, try JSONDecoder().decode(SyncPullPage.self, from: last.body))
        }
        // The start carries the server's time (contract §6, "Clocks"), read as it answered.
        guard case .start(1_200, let serverTime?)? = frames.first, let time = ISO8601Timestamp.date(from: serverTime) else {
            Issue.record("the stream did not start with 1,200 events and the server's time: \(String(describing: frames.first))")
            return
        }
        #expect(abs(time.timeIntervalSinceNow) < 60)
        #expect(pulled.serverTime.flatMap(ISO8601Timestamp.date(from:)) != nil, "each REST page carries the server's time too")
        var events: [SyncEvent] = []
        var shape: [String] = []
        for case .batch(let batch, let index, let isLast, let checkpoint) in frames {
            events += batch
            shape.append("\(index):\(batch.count):\(isLast):\(checkpoint != nil)")
        }
        #expect(shape == ["0:500:false:true", "1:500:false:true", "2:200:true:true"])
        #expect(events.map(\.id) == logged.map(\.id))
        #expect(events.map(\.event) == logged.map(\.event))
        #expect(frames.last == .complete(processedEvents: 1_200, newCheckpoint: pulled.nextCheckpoint))
        #expect(pulled.events.count == 200)
        #expect(!pulled.hasMore)
    }

    @Test func pullDefaultsToAHundredAndReportsErrorsWithCodes() async throws {
        try await withRunningEmulator(configuration: emulatorConfiguration(logCapacity: 150)) { emulator, endpoints in
            try publish(160, on: emulator)
            let first = try await pull(endpoints, query: "")
            #expect(first.status == 200)
            let page = try JSONDecoder().decode(SyncPullPage.self, from: first.body)
            #expect(page.events.count == 100)
            #expect(page.hasMore)
            #expect(page.events.first?.event == #"{"n":11}"#, "the 10 oldest were dropped")
            let bad = try await pull(endpoints, query: "since=nonsense")
            #expect(bad.status == 400)
            #expect(try JSONDecoder().decode(SyncErrorBody.self, from: bad.body).code == SyncErrorBody.invalidCheckpoint)
            let badLimit = try await pull(endpoints, query: "limit=0")
            #expect(badLimit.status == 400)
            let expired = try await pull(endpoints, query: "since=2000-01-01T00:00:00Z")
            #expect(expired.status == 410)
            #expect(try JSONDecoder().decode(SyncErrorBody.self, from: expired.body).code == SyncErrorBody.checkpointExpired)
            let frames = try await streamFrames(endpoints, since: "2000-01-01T00:00:00Z")
            #expect(frames.count == 1)
            guard case .error(let body)? = frames.first else { return }
            #expect(body.code == SyncErrorBody.checkpointExpired)
        }
    }

    @Test func streamFaults() async throws {
        try await withRunningEmulator(configuration: emulatorConfiguration(batchSize: 100)) { emulator, endpoints in
            try publish(300, on: emulator)
            emulator.setSyncStreamFault(.disabled)
            let connector = NIOWebSocketConnector(configuration: .init(logger: silentLogger))
            let error = await #expect(throws: WebSocketHandshakeError.self) {
                try await connector.connect(WebSocketRequest(url: URL(string: endpoints.syncStreamURL)!))
            }
            #expect(error?.status == 404)

            emulator.setSyncStreamFault(.refuse(code: "BUSY", message: "try later"))
            #expect(try await streamFrames(endpoints) == [.error(SyncErrorBody(error: "try later", code: "BUSY"))])

            emulator.setSyncStreamFault(.drop(afterEvents: 150))
            let dropped = try await streamFrames(endpoints)
            #expect(dropped.first.map { if case .start(300, _) = $0 { true } else { false } } == true)
            var count = 0
            for case .batch(let events, _, _, _) in dropped { count += events.count }
            #expect(count == 150)
            #expect(!dropped.contains { if case .complete = $0 { true } else { false } })

            emulator.resetFaults()
            #expect(try await streamFrames(endpoints).count == 5)
        }
    }

    @Test func roundTripLatencyRunsOnTheEmulatorsClock() async throws {
        let clock = ManualClock()
        let emulator = SwitchboardEmulator(configuration: emulatorConfiguration(), clock: clock)
        try await withRunningEmulator(emulator) { emulator, endpoints in
            try publish(3, on: emulator)
            emulator.setSyncRoundTripLatency(.milliseconds(20))
            async let answer = pull(endpoints, query: "")
            await clock.sleepers(atLeast: 1)
            #expect(clock.nextDeadline == ManualClock.Instant(offset: .milliseconds(20)))
            clock.advance(by: .milliseconds(20))
            let status = try await answer.status
            #expect(status == 200)

            async let frames = streamFrames(endpoints)
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .milliseconds(20))
            let first = try await frames.first
            #expect(first.map { if case .start(3, _) = $0 { true } else { false } } == true)
        }
    }
}

/// The REST fallback's default engine on this platform, and that it reads a page over 1 MiB
/// (the NIO client's own default bound), as URLSession did.
@Suite("The sync client's default HTTP engine", .timeLimit(.minutes(1)))
struct SyncHTTPClientDefaultTests {
    @Test("on Linux the default is the NIO client, not FoundationNetworking's URLSession")
    func linuxDefaultIsNIO() {
        #if os(Linux)
            #expect(SyncHTTPClients.platformDefault() is NIOHTTPClient)
        #else
            #expect(SyncHTTPClients.platformDefault() is URLSessionSyncHTTPClient)
        #endif
    }

    @Test("a page of large events over 1 MiB comes whole through the default engine")
    func largePage() async throws {
        let payload = String(repeating: "x", count: 200_000)
        let (status, body) = try await withRunningEmulator(configuration: emulatorConfiguration(batchSize: 500)) {
            emulator, endpoints in
            for index in 0..<8 {
                try emulator.publish(
                    channel: "vortex-app/user/u1/roleChanged",
                    event: #"{"eventType":"user/roleChanged","reason":"\#(index)-\#(payload)"}"#)
            }
            return try await pull(endpoints, query: "limit=100")
        }
        #expect(status == 200)
        #expect(body.count > 1 << 20)
        #expect(String(decoding: body, as: UTF8.self).contains("7-xxxx"))
    }
}
