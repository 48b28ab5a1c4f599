import Foundation
import SwitchboardCore
import SwitchboardEmulator
@testable import SwitchboardSync
import SwitchboardTesting
import Testing

/// Answers `GET /sync/pull` from a script, one response per request, and records the URLs.
final class ScriptedHTTPClient: SyncHTTPClient {
    private let state: LockedValue<(responses: [(Int, String)], urls: [URL])>

    init(_ responses: [(Int, String)]) { state = LockedValue((responses, [])) }

    var urls: [URL] { state.withLock { $0.urls } }

    func get(_ url: URL, headers: [(name: String, value: String)]) async throws -> (status: Int, body: Data) {
        let next = state.withLock { state -> (Int, String)? in
            state.urls.append(url)
            return state.responses.isEmpty ? nil : state.responses.removeFirst()
        }
        guard let (status, body) = next else { throw URLError(.cannotConnectToHost) }
        return (status, Data(body.utf8))
    }
}

func event(_ n: Int) -> SyncEvent {
    SyncEvent(id: "id-\(n)", channel: "vortex-app/user/u1/a", event: #"{"n":\#(n)}"#, publishedAt: Date(timeIntervalSince1970: Double(n)))
}

func page(_ events: [SyncEvent], next: String, hasMore: Bool) -> (Int, String) {
    (200, SyncJSON.encode(SyncPullPage(events: events, nextCheckpoint: next, hasMore: hasMore)))
}

func scriptedClient(
    connector: any WebSocketConnector, http: any SyncHTTPClient, clock: any Clock<Duration> = ContinuousClock()
) -> SyncClient {
    SyncClient(
        configuration: .init(baseURL: URL(string: "http://127.0.0.1:9")!), connector: connector, http: http, clock: clock,
        logger: silentLogger)
}

@Suite("Sync client with scripted servers", .timeLimit(.minutes(1)))
struct ScriptedSyncTests {
    @Test func aMalformedStreamFrameIsATypedFailureAndRESTResumesWithoutRepeats() async throws {
        let connector = ScriptedWebSocketConnector()
        let http = ScriptedHTTPClient([page((1...4).map(event), next: "c4", hasMore: false)])
        let store = InMemoryCheckpointStore()
        let collected = Collected()
        async let summary = scriptedClient(connector: connector, http: http).catchUp(store: store, deliver: collected.deliver)
        let connection = try #require(await connector.nextAttempt()?.connection)
        let request = try #require(await connection.nextSentText())
        #expect(try SyncStreamFrame(decoding: request) == .request(since: nil))
        connection.serverSends(text: SyncStreamFrame.start(totalEvents: 4).encoded())
        // A batch without a checkpoint: the client cannot save, so REST starts from the beginning.
        connection.serverSends(text: SyncStreamFrame.batch(events: [event(1), event(2)], batchIndex: 0, isLast: false, checkpoint: nil).encoded())
        connection.serverSends(text: #"{"type":"sync.stream.batch","events":[{"id":"x"}],"batchIndex":1,"isLast":true}"#)
        let result = try await summary
        let failure = try #require(result.streamFailure)
        #expect(failure.code == .protocolViolation)
        #expect(failure.message.contains("after 2 events"))
        #expect(failure.message.contains("events"))
        #expect(collected.ids == ["id-1", "id-2", "id-3", "id-4"])
        #expect(store.load() == SyncCheckpoint(rawValue: "c4"))
        #expect(http.urls.map(\.query) == ["limit=100"])
    }

    @Test func aMalformedPageIsATypedErrorAndKeepsWhatWasDelivered() async throws {
        let connector = ScriptedWebSocketConnector()
        connector.failNextConnect(with: SwitchboardError(code: .network, message: "refused"))
        let http = ScriptedHTTPClient([
            page((1...2).map(event), next: "c2", hasMore: true),
            (200, #"{"events":[{"id":"3","channel":"a","event":"{}","publishedAt":"noon"}],"nextCheckpoint":"c3","hasMore":false}"#),
        ])
        let store = InMemoryCheckpointStore()
        let collected = Collected()
        let error = await #expect(throws: SwitchboardError.self) {
            try await scriptedClient(connector: connector, http: http).catchUp(
                store: store, progress: collected.report, deliver: collected.deliver)
        }
        #expect(error?.code == .protocolViolation)
        #expect(error?.message.contains("publishedAt") == true)
        #expect(error?.message.contains("'c2'") == true)
        #expect(collected.ids == ["id-1", "id-2"])
        #expect(store.load() == SyncCheckpoint(rawValue: "c2"))
        #expect(collected.progress.last == SyncProgress(processed: 2, total: nil, isFinal: true))
        #expect(http.urls.last?.query == "since=c2&limit=100")
    }

    @Test func aSilentStreamTimesOutOnTheInjectedClock() async throws {
        let clock = ManualClock()
        let connector = ScriptedWebSocketConnector()
        let http = ScriptedHTTPClient([page([event(1)], next: "c1", hasMore: false)])
        let collected = Collected()
        async let summary = scriptedClient(connector: connector, http: http, clock: clock).catchUp(
            store: InMemoryCheckpointStore(), deliver: collected.deliver)
        let connection = try #require(await connector.nextAttempt()?.connection)
        _ = await connection.nextSentText()
        await clock.sleepers(atLeast: 1)
        clock.advance(by: .seconds(30))
        let result = try await summary
        #expect(result.streamFailure?.code == .timeout)
        #expect(collected.ids == ["id-1"])
        #expect(connection.state.isClosed)
    }

    @Test func anErrorFrameWithExpiredCheckpointDoesNotFallBack() async throws {
        let connector = ScriptedWebSocketConnector()
        let http = ScriptedHTTPClient([])
        async let outcome: Void = {
            _ = try await scriptedClient(connector: connector, http: http).catchUp(
                store: InMemoryCheckpointStore(SyncCheckpoint(rawValue: "old"))) { _ in }
        }()
        let connection = try #require(await connector.nextAttempt()?.connection)
        let request = try #require(await connection.nextSentText())
        #expect(try SyncStreamFrame(decoding: request) == .request(since: "old"))
        connection.serverSends(text: SyncStreamFrame.error(SyncErrorBody(error: "gone", code: SyncErrorBody.checkpointExpired)).encoded())
        do {
            try await outcome
            Issue.record("an expired checkpoint must fail the catch-up")
        } catch let error as SwitchboardError {
            #expect(error.code == .checkpointExpired)
        }
        #expect(http.urls.isEmpty)
    }
}

@Suite("Sync REST fallback only over https beyond loopback", .timeLimit(.minutes(1)))
struct SyncTransportSecurityTests {
    @Test("plaintext http to another machine is refused before anything is sent", arguments: [
        ("http://sync.example.com", false), ("http://10.0.0.5:8080", false), ("http://127.example.com", false),
        ("http://127.0.0.1:9", true), ("http://localhost:9", true), ("http://[::1]:9", true), ("https://sync.example.com", true),
    ])
    func policy(base: String, allowed: Bool) async throws {
        let connector = ScriptedWebSocketConnector()
        connector.failNextConnect(with: SwitchboardError(code: .network, message: "refused"))
        let http = ScriptedHTTPClient([page([event(1)], next: "c1", hasMore: false)])
        let client = SyncClient(
            configuration: .init(baseURL: URL(string: base)!), connector: connector, http: http, logger: silentLogger)
        let result = await Result(catching: { try await client.catchUp(store: InMemoryCheckpointStore()) { _ in } })
        if allowed {
            #expect(throws: Never.self) { try result.get() }
            #expect(http.urls.count == 1)
        } else {
            #expect(throws: SwitchboardError.self) { try result.get() }
            #expect((try? result.get()) == nil)
            if case .failure(let error as SwitchboardError) = result {
                #expect(error.code == .invalidConfiguration)
                #expect(error.message.contains("is not loopback: use https"))
            }
            #expect(http.urls.isEmpty, "no request, so no credentials, went out")
        }
    }

    @Test("the explicit opt-in allows plaintext http to any host")
    func optIn() async throws {
        let connector = ScriptedWebSocketConnector()
        connector.failNextConnect(with: SwitchboardError(code: .network, message: "refused"))
        let http = ScriptedHTTPClient([page([event(1)], next: "c1", hasMore: false)])
        var configuration = SyncClient.Configuration(baseURL: URL(string: "http://sync.example.com")!)
        configuration.allowsPlaintextToRemoteHosts = true
        let client = SyncClient(configuration: configuration, connector: connector, http: http, logger: silentLogger)
        let summary = try await client.catchUp(store: InMemoryCheckpointStore()) { _ in }
        #expect(summary.deliveredEvents == 1)
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
