import Foundation
import Logging
import NIOCore
import NIOPosix
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardSync
import SwitchboardTesting
import Testing

@testable import SwitchboardSoak

/// The soak's publisher against an emulator in another process: batches over one kept-alive
/// connection, in order, never retried.
@Suite("Soak publishing over HTTP", .timeLimit(.minutes(1)))
struct RemotePublishTests {
    static func emulatorConfiguration() -> SwitchboardEmulator.Configuration {
        SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: [SoakRun.apiKey]),
            logger: Logger(label: "soak.tests", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    @Test func ticksGoInOrderOverOneConnectionInBatchesOfAtMostAThousand() async throws {
        let workload = SoakWorkload()
        let ticks = [0..<40, 40..<41, 41..<2_541]  // the last one more than two batches
        let (logged, opened) = try await withRunningEmulator(configuration: Self.emulatorConfiguration()) { emulator, endpoints in
            let server = RemoteSoakServer(endpoints: endpoints, apiKey: SoakRun.apiKey)
            for tick in ticks {
                try await server.publish(tick.map { workload.event($0) }.map { (channel: $0.channel, payload: $0.payload) })
            }
            return (emulator.loggedEvents.map { "\($0.channel) \($0.event)" }, server.publishConnectionsOpened)
        }
        let published = (0..<2_541).map { workload.event($0) }.map { "\($0.channel) \($0.payload)" }
        #expect(logged == published)
        #expect(opened == 1)
    }

    @Test func aRefusedBatchThrowsWithTheEmulatorsMessage() async throws {
        let error = try await withRunningEmulator(configuration: Self.emulatorConfiguration()) { emulator, endpoints in
            let server = RemoteSoakServer(endpoints: endpoints, apiKey: SoakRun.apiKey)
            do {
                try await server.publish([(channel: "vortex-app/a", payload: "{}"), (channel: "vortex-app/b", payload: "not json")])
                return "published \(emulator.loggedEvents.count)"
            } catch {
                return "\(error) (logged \(emulator.loggedEvents.count))"
            }
        }
        #expect(error.contains("HTTP 400"), "\(error)")
        #expect(error.contains("events[1]: event is not valid JSON"), "\(error)")
        #expect(error.hasSuffix("(logged 0)"), "\(error)")
    }

    @Test func noAnswerTimesOutOnTheInjectedClockAndTheRequestIsNotSentAgain() async throws {
        try await withSilentServer { port, requests in
            let clock = ManualClock()
            let connection = KeepAliveHTTPConnection(host: "127.0.0.1", port: port, requestTimeout: .seconds(10), clock: clock)
            async let answer = connection.post("/events", headers: [], body: Data("[]".utf8))
            // The request reached the server and the timeout is parked: only then does time pass.
            await requests.first()
            await clock.sleepers(atLeast: 1)
            clock.advance(by: .seconds(9))
            #expect(clock.advance(by: .seconds(1)).count == 1)
            let outcome: String
            do {
                outcome = "answered \(try await answer.status)"
            } catch {
                outcome = "\(error)"
            }
            #expect(outcome == "127.0.0.1:\(port) did not answer within 10.0 seconds")
            #expect(requests.value == 1)
            #expect(connection.connectionsOpened == 1)
        }
    }

    @Test func aConnectionClosedBeforeTheAnswerFailsTheRequest() async throws {
        try await withSilentServer(closesOnRequest: true) { port, requests in
            let connection = KeepAliveHTTPConnection(host: "127.0.0.1", port: port, clock: ManualClock())
            await #expect(throws: SoakError.self) {
                _ = try await connection.post("/events", headers: [], body: Data("[]".utf8))
            }
            #expect(requests.value == 1)
        }
    }
}

/// A TCP server on 127.0.0.1 that reads requests and never answers (or closes on the first bytes).
private func withSilentServer(
    closesOnRequest: Bool = false, _ body: (Int, RequestCount) async throws -> Void
) async throws {
    let requests = RequestCount()
    let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(Silent(closes: closesOnRequest, requests: requests))
            }
        }
        .bind(host: "127.0.0.1", port: 0).get()
    do {
        try await body(server.localAddress!.port!, requests)
    } catch {
        try? await server.close()
        throw error
    }
    try await server.close()
}

/// The requests a server saw, and a wait for the first.
private final class RequestCount: Sendable {
    private let state = LockedValue((count: 0, waiters: [CheckedContinuation<Void, Never>]()))
    var value: Int { state.withLock { $0.count } }

    func add() {
        let waiters = state.withLock { state in
            state.count += 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once a request came.
    func first() async {
        await withCheckedContinuation { continuation in
            let seen = state.withLock { state in
                if state.count == 0 { state.waiters.append(continuation) }
                return state.count > 0
            }
            if seen { continuation.resume() }
        }
    }
}

/// Counts each read that starts a request (`POST`), and answers nothing.
private final class Silent: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    let closes: Bool
    let requests: RequestCount

    init(closes: Bool, requests: RequestCount) {
        self.closes = closes
        self.requests = requests
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if unwrapInboundIn(data).readableBytesView.starts(with: "POST ".utf8) { requests.add() }
        if closes { context.close(promise: nil) }
    }
}
