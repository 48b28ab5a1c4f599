import Foundation
import SwitchboardCore
@testable import SwitchboardSync
import SwitchboardTesting
import Testing

/// Contract §6, "Clocks": the backend's time, learned from the sync answers' `serverTime` on a
/// monotonic timeline, and a catch-up start in the backend's time corrected from a device guess.
@Suite("The backend's clock")
struct BackendTimeEstimateTests {
    let base = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a sample reads the backend's time at any moment within half its round trip, plus drift")
    func oneSample() {
        var estimate = BackendTimeEstimate(deviceTime: base.addingTimeInterval(-86_400), at: .zero)
        #expect(!estimate.reading(at: .seconds(10)).fromServer)
        #expect(estimate.reading(at: .seconds(10)).time == base.addingTimeInterval(-86_400 + 10), "the device's clock, followed on the timeline")
        estimate.record(serverTime: base, sent: .seconds(10), received: .seconds(10) + .milliseconds(40))
        let reading = estimate.reading(at: .seconds(10) + .milliseconds(20))
        #expect(reading.fromServer)
        #expect(reading.time == base)
        #expect(reading.uncertainty == .milliseconds(20))
        let later = estimate.reading(at: .seconds(1_010) + .milliseconds(20))
        #expect(abs(later.time.timeIntervalSince(base) - 1_000) < 1e-6)
        // 1,000 s later, 100 ppm of drift: 100 ms more.
        #expect(later.uncertainty == .milliseconds(120))
    }

    @Test("the sample that knows a moment best wins: a fresh slower one over an old fast one")
    func bestSample() {
        var estimate = BackendTimeEstimate(deviceTime: base, at: .zero)
        estimate.record(serverTime: base, sent: .zero, received: .milliseconds(2))  // ±1 ms at 1 ms
        let second = base.addingTimeInterval(3_600.1)
        estimate.record(serverTime: second, sent: .seconds(3_600), received: .seconds(3_600) + .milliseconds(200))  // ±100 ms
        // Near the first sample it is the better one.
        #expect(estimate.reading(at: .milliseconds(5)).uncertainty < .milliseconds(2))
        // An hour on, the first has drifted by up to 360 ms; the second knows within 100 ms.
        let hourOn = estimate.reading(at: .seconds(3_600) + .milliseconds(100))
        #expect(hourOn.uncertainty == .milliseconds(100))
        #expect(hourOn.time == second)
        // Five hours on, the fresher sample still wins.
        let fiveHoursOn = estimate.reading(at: .seconds(18_000) + .milliseconds(100))
        #expect(abs(fiveHoursOn.time.timeIntervalSince(base) - 18_000.1) < 1e-6)
        #expect(fiveHoursOn.uncertainty > .milliseconds(1_539) && fiveHoursOn.uncertainty < .milliseconds(1_541))
    }

    @Test("a round trip that runs backwards is no sample; the newest eight are kept, and the fastest ever")
    func badSamplesAndBound() {
        var estimate = BackendTimeEstimate(deviceTime: base, at: .zero)
        estimate.record(serverTime: base.addingTimeInterval(999), sent: .seconds(2), received: .seconds(1))
        #expect(!estimate.hasServerTime)
        for index in 0..<20 {
            estimate.record(serverTime: base.addingTimeInterval(Double(index)), sent: .seconds(index), received: .seconds(index) + .milliseconds(index))
        }
        // Samples 1…11 are gone; the newest eight (12…19) stay, and the fastest ever (0: a round
        // trip of 0 ms) beside them.
        #expect(estimate.sampleCount == 9)
        let atTwelve = estimate.reading(at: .seconds(12) + .milliseconds(6)).uncertainty
        #expect(atTwelve >= .milliseconds(1) && atTwelve < .microseconds(1_300), "the fastest sample, 12 s of drift on: \(atTwelve)")
        // At sample 19's own moment (±9.5 ms), the fastest, 19 s old, still knows better: ±1.9 ms.
        let atNineteen = estimate.reading(at: .seconds(19) + .microseconds(9_500)).uncertainty
        #expect(atNineteen >= .microseconds(1_900) && atNineteen < .microseconds(1_901), "\(atNineteen)")
    }

    @Test("a clock made with a device clock a day off still reads the backend's time once a sample is recorded")
    func backendClock() {
        let clock = BackendClock(deviceNow: { Date().addingTimeInterval(86_400) })
        let start = clock.now()
        #expect(abs(clock.reading(at: start).time.timeIntervalSinceNow - 86_400) < 5)
        let sent = clock.now()
        clock.record(serverTime: Date(), sent: sent, received: clock.now())
        #expect(abs(clock.reading(at: clock.now()).time.timeIntervalSinceNow) < 5)
        #expect(clock.estimate.hasServerTime)
    }
}

@Suite("A catch-up start in the backend's time", .timeLimit(.minutes(1)))
struct ServerTimeCatchUpTests {
    /// The device's clock reads 100 s (since 1970) when the session starts. The backend clocks'
    /// timelines are manual clocks: no time passes, so each sample is exact however loaded the
    /// machine is.
    static let deviceGuess = Date(timeIntervalSince1970: 100)

    func time(_ seconds: Double) -> String { ISO8601Timestamp.string(from: Date(timeIntervalSince1970: seconds))! }

    func sinceSeconds(_ text: String?) -> Double? {
        text.flatMap(ISO8601Timestamp.date(from:))?.timeIntervalSince1970
    }

    /// Whether `text` is the device's guess: 100 s less the guess's margin of 5 s.
    func isDeviceGuess(_ text: String?) -> Bool {
        sinceSeconds(text) == 100 - CatchUpRun.guessMargin.seconds
    }

    @Test("the stream: the backend's clock is ahead of the device's, so what was published before the session is left out")
    func streamDeviceBehind() async throws {
        let connector = ScriptedWebSocketConnector()
        let clock = BackendClock(clock: ManualClock(), deviceNow: { Self.deviceGuess })
        let sessionStart = clock.now()
        let collected = Collected()
        let store = InMemoryCheckpointStore()
        async let summary = scriptedClient(connector: connector, http: ScriptedHTTPClient([])).catchUp(
            from: .backendTime(at: sessionStart), store: store, backendClock: clock, progress: collected.report,
            deliver: collected.deliver)
        let connection = try #require(await connector.nextAttempt()?.connection)
        let request = try SyncStreamFrame(decoding: try #require(await connection.nextSentText()))
        guard case .request(let since) = request else { throw SwitchboardError(code: .protocolViolation, message: "\(request)") }
        #expect(isDeviceGuess(since), "before the server's time is known, the device's (5 s early) is the guess")
        // The backend's clock reads 105 s: the device is 5 s behind, and the server sends from 95.
        connection.serverSends(text: SyncStreamFrame.start(totalEvents: 10, serverTime: time(105)).encoded())
        connection.serverSends(text: SyncStreamFrame.batch(
            events: (101...110).map(event), batchIndex: 0, isLast: true, checkpoint: "c110").encoded())
        connection.serverSends(text: SyncStreamFrame.complete(processedEvents: 10, newCheckpoint: "c110").encoded())
        let result = try await summary
        #expect(collected.ids == (106...110).map { "id-\($0)" }, "101…105 were published before (or as) the session began")
        #expect(result.deliveredEvents == 5)
        #expect(store.load() == SyncCheckpoint(rawValue: "c110"))
        #expect(collected.progress.last == SyncProgress(processed: 10, total: 10, isFinal: true))
        #expect(clock.estimate.hasServerTime)
    }

    @Test("the stream: the backend's clock is behind the device's by more than the guess's margin, so the request is made again from the right time before anything is delivered")
    func streamDeviceAhead() async throws {
        let connector = ScriptedWebSocketConnector()
        let clock = BackendClock(clock: ManualClock(), deviceNow: { Self.deviceGuess })
        let collected = Collected()
        async let summary = scriptedClient(connector: connector, http: ScriptedHTTPClient([])).catchUp(
            from: .backendTime(at: clock.now()), store: InMemoryCheckpointStore(), backendClock: clock,
            deliver: collected.deliver)
        let first = try #require(await connector.nextAttempt()?.connection)
        _ = await first.nextSentText()
        // The backend's clock reads 90 s: the device is 10 s ahead; the server would leave out 91…95.
        first.serverSends(text: SyncStreamFrame.start(totalEvents: 0, serverTime: time(90)).encoded())
        let second = try #require(await connector.nextAttempt()?.connection)
        let request = try SyncStreamFrame(decoding: try #require(await second.nextSentText()))
        guard case .request(let since) = request else { throw SwitchboardError(code: .protocolViolation, message: "\(request)") }
        let asked = try #require(sinceSeconds(since))
        #expect(asked == 90, "asked again from the backend's time of the session start: \(asked)")
        #expect(first.state.isClosed)
        second.serverSends(text: SyncStreamFrame.start(totalEvents: 3, serverTime: time(90.01)).encoded())
        second.serverSends(text: SyncStreamFrame.batch(events: (91...93).map(event), batchIndex: 0, isLast: true, checkpoint: "c93").encoded())
        second.serverSends(text: SyncStreamFrame.complete(processedEvents: 3, newCheckpoint: "c93").encoded())
        let result = try await summary
        #expect(collected.ids == ["id-91", "id-92", "id-93"])
        #expect(result.streamFailure == nil)
    }

    @Test("REST: a page from before the correction is not delivered; a late guess asks again",
          arguments: [90.0, 105.0])
    func restCorrects(serverSeconds: Double) async throws {
        let connector = ScriptedWebSocketConnector()
        connector.failNextConnect(with: SwitchboardError(code: .network, message: "refused"))
        let first = (200, SyncJSON.encode(SyncPullPage(
            events: (101...103).map(event), nextCheckpoint: "c103", hasMore: false, serverTime: time(serverSeconds))))
        let second = (200, SyncJSON.encode(SyncPullPage(
            events: (91...93).map(event), nextCheckpoint: "c93", hasMore: false, serverTime: time(serverSeconds))))
        let http = ScriptedHTTPClient(serverSeconds < 95 ? [first, second] : [first])
        let clock = BackendClock(clock: ManualClock(), deviceNow: { Self.deviceGuess })
        let collected = Collected()
        _ = try await scriptedClient(connector: connector, http: http).catchUp(
            from: .backendTime(at: clock.now()), store: InMemoryCheckpointStore(), backendClock: clock,
            deliver: collected.deliver)
        let sinces = http.urls.map { url in
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "since" }?.value
        }
        let queries = sinces
        #expect(isDeviceGuess(sinces.first ?? nil), "the device's clock is the first guess")
        if serverSeconds < 95 {
            #expect(queries.count == 2, "asked again from the earlier start")
            #expect(sinceSeconds(sinces.last ?? nil) == 90)
            #expect(collected.ids == ["id-91", "id-92", "id-93"], "the first page was not delivered")
        } else {
            #expect(queries.count == 1)
            #expect(collected.ids.isEmpty, "101…103 were published before the backend's time of the start, 105")
        }
    }

    @Test("without a (well-formed) serverTime the device's clock is the start, uncorrected (the documented limit); a malformed one is ignored",
          arguments: [nil, "half past ten"] as [String?])
    func noServerTime(serverTime: String?) async throws {
        let connector = ScriptedWebSocketConnector()
        let clock = BackendClock(clock: ManualClock(), deviceNow: { Self.deviceGuess })
        let collected = Collected()
        async let summary = scriptedClient(connector: connector, http: ScriptedHTTPClient([])).catchUp(
            from: .backendTime(at: clock.now()), store: InMemoryCheckpointStore(), backendClock: clock,
            deliver: collected.deliver)
        let connection = try #require(await connector.nextAttempt()?.connection)
        let request = try SyncStreamFrame(decoding: try #require(await connection.nextSentText()))
        guard case .request(let since) = request else { throw SwitchboardError(code: .protocolViolation, message: "\(request)") }
        #expect(isDeviceGuess(since))
        connection.serverSends(text: SyncStreamFrame.start(totalEvents: 5, serverTime: serverTime).encoded())
        // Asked from 95 s, the server sends 99 and 100 too: published before the device's reading
        // of the session start (100 s), they are left out, as the device's clock is all there is.
        connection.serverSends(text: SyncStreamFrame.batch(
            events: [event(99), event(100)] + (101...103).map(event), batchIndex: 0, isLast: true, checkpoint: "c3").encoded())
        connection.serverSends(text: SyncStreamFrame.complete(processedEvents: 5, newCheckpoint: "c3").encoded())
        let result = try await summary
        #expect(collected.ids == ["id-101", "id-102", "id-103"])
        #expect(result.streamFailure == nil)
        #expect(!clock.estimate.hasServerTime)
    }

    @Test("with a round trip, the start is the early end of the estimate: nothing published in the session's first moments is lost")
    func earlyEndOfTheEstimate() async throws {
        let manual = ManualClock()
        let clock = BackendClock(clock: manual, deviceNow: { Self.deviceGuess })
        let sessionStart = clock.now()
        // An earlier answer: sent at 0, answered at 400 ms with the backend at 200.2 s (so ±200 ms).
        clock.record(serverTime: Date(timeIntervalSince1970: 200.2), sent: .zero, received: .milliseconds(400))
        let connector = ScriptedWebSocketConnector()
        async let summary = scriptedClient(connector: connector, http: ScriptedHTTPClient([])).catchUp(
            from: .backendTime(at: sessionStart), store: InMemoryCheckpointStore(), backendClock: clock, deliver: { _ in })
        let connection = try #require(await connector.nextAttempt()?.connection)
        let request = try SyncStreamFrame(decoding: try #require(await connection.nextSentText()))
        guard case .request(let since) = request else { throw SwitchboardError(code: .protocolViolation, message: "\(request)") }
        // Moment zero reads 200.0 s ± 200 ms: asked from 199.8 s.
        let asked = try #require(sinceSeconds(since))
        #expect(abs(asked - 199.8) < 1e-4, "\(asked) (199.8 s, less 20 µs of drift allowed over 200 ms)")
        connection.serverSends(text: SyncStreamFrame.start(totalEvents: 0, serverTime: time(200.5)).encoded())
        connection.serverSends(text: SyncStreamFrame.complete(processedEvents: 0, newCheckpoint: "c0").encoded())
        _ = try await summary
    }

    @Test("a saved checkpoint wins: no time is involved, but the answer's time is still learned")
    func savedCheckpointWins() async throws {
        let connector = ScriptedWebSocketConnector()
        let clock = BackendClock(clock: ManualClock(), deviceNow: { Self.deviceGuess })
        let store = InMemoryCheckpointStore()
        try await store.save(SyncCheckpoint(rawValue: "c7"))
        async let summary = scriptedClient(connector: connector, http: ScriptedHTTPClient([])).catchUp(
            from: .backendTime(at: clock.now()), store: store, backendClock: clock, deliver: { _ in })
        let connection = try #require(await connector.nextAttempt()?.connection)
        let request = try SyncStreamFrame(decoding: try #require(await connection.nextSentText()))
        #expect(request == .request(since: "c7"))
        connection.serverSends(text: SyncStreamFrame.start(totalEvents: 0, serverTime: time(50)).encoded())
        connection.serverSends(text: SyncStreamFrame.complete(processedEvents: 0, newCheckpoint: "c7").encoded())
        _ = try await summary
        #expect(clock.estimate.hasServerTime)
        #expect(abs(clock.reading(at: clock.now()).time.timeIntervalSince1970 - 50) < 5)
    }
}
