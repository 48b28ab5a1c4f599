import Foundation
import Switchboard
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardNIO

/// Events per second from the socket to a typed consumer through `BackendNotifier`, next to the
/// rate at which the NIO engine alone receives the same frames from the same sender, and the
/// physical limit: a bare NIO read loop (``BareLoop``), from the same sender in the same run.
enum Throughput {
    struct Rates: Sendable {
        /// Typed values per second out of `BackendNotifier.archiveValues()`.
        var notifier: Double
        /// Text frames per second out of `NIOWebSocketConnection.inbound`, nothing decoded.
        var raw: Double
        /// Text frames per second out of a bare `NIOAsyncChannel` read loop (blast sender only).
        var bare: Double?
        /// The process's CPU time (user and system, every thread, the sender's too) per event
        /// while the notifier ran: less swayed by other work on the machine than the rates.
        var notifierCPU: Duration = .zero
        var ratio: Double { notifier / raw }
    }

    /// Both rates with ``BlastServer`` as the sender: `events` frames each, raw engine first.
    static func blast(_ kind: TransportKind, events: Int) async throws -> Rates {
        try await BlastServer.with { server in
            // For profiling the notifier alone (`perf record -p`): skip the other two readers.
            if ProcessInfo.processInfo.environment["SWITCHBOARD_BENCH_NOTIFIER_ONLY"] != nil {
                let notifier = try await notifierRate(kind, port: server.port, events: events) {
                    let subscription = try await server.waitForSubscription { $0.request.contains(ArchivePayload.marker(kind)) }
                    return { server.blast(events, to: subscription) { ArchivePayload.frame(kind, id: $0) } }
                }
                return Rates(notifier: notifier.rate, raw: notifier.rate, bare: notifier.rate, notifierCPU: notifier.cpuPerEvent)
            }
            let bare = try await BareLoop.rate(kind, port: server.port, events: events) { bareID in
                let subscription = try await server.waitForSubscription { $0.id == bareID }
                server.blast(events, to: subscription) { ArchivePayload.frame(kind, id: $0) }
            }
            let raw = try await rawRate(kind, port: server.port, events: events) { rawID in
                let subscription = try await server.waitForSubscription { $0.id == rawID }
                server.blast(events, to: subscription) { ArchivePayload.frame(kind, id: $0) }
            }
            let notifier = try await notifierRate(kind, port: server.port, events: events) {
                let subscription = try await server.waitForSubscription {
                    $0.id != "raw-1" && $0.id != "bare-1" && $0.request.contains(ArchivePayload.marker(kind))
                }
                return { server.blast(events, to: subscription) { ArchivePayload.frame(kind, id: $0) } }
            }
            return Rates(notifier: notifier.rate, raw: raw, bare: bare, notifierCPU: notifier.cpuPerEvent)
        }
    }

    /// Both rates with the emulator as the sender (in-process `publish`, one call per event).
    /// The raw engine reads the AppSync Events endpoint for either transport: it measures how
    /// fast the emulator sends.
    static func emulator(_ kind: TransportKind, events: Int) async throws -> Rates {
        try await withRunningEmulator(configuration: Rig.emulatorConfiguration()) { emulator, endpoints in
            let publish = { @Sendable in
                for _ in 0..<events { _ = try? emulator.publish(channel: ArchivePayload.channel, event: ArchivePayload.event()) }
            }
            let raw = try await rawRate(.appsync, port: endpoints.port, events: events, authorized: true) { _ in
                try await Rig.wait("the raw subscription") { emulator.subscriptionCount == 1 }
                publish()
            }
            try await Rig.wait("the raw connection to close") { emulator.subscriptionCount == 0 }
            let notifier = try await notifierRate(kind, port: endpoints.port, events: events) {
                try await Rig.wait("the notifier's subscriptions") { emulator.subscriptionCount >= 1 }
                return publish
            }
            return Rates(notifier: notifier.rate, raw: raw, notifierCPU: notifier.cpuPerEvent)
        }
    }

    /// Opens a WebSocket with the NIO engine alone, subscribes to the archive channel (wire id
    /// `raw-1`), calls `start` and counts `events` frames.
    static func rawRate(
        _ kind: TransportKind, port: Int, events: Int, authorized: Bool = false,
        start: @escaping @Sendable (String) async throws -> Void
    ) async throws -> Double {
        var client = try await RawClient.connect(kind, port: port, authorized: authorized)
        try await client.subscribe(id: "raw-1")
        let clock = ContinuousClock()
        let began = clock.now
        async let started: Void = start("raw-1")
        var received = 0
        var frames = client.frames
        while received < events {
            guard case .message(.text) = try await frames.next() else { throw BenchmarkFailure("raw socket closed") }
            received += 1
        }
        try await started
        let elapsed = began.duration(to: clock.now)
        await client.connection.close(code: .normalClosure, reason: "")
        return Double(events) / elapsed.seconds
    }

    /// Runs a notifier on `kind`'s transport, waits for `ready` (which returns the sender), then
    /// times `events` typed archive values arriving at one consumer.
    static func notifierRate(
        _ kind: TransportKind, port: Int, events: Int,
        ready: @escaping @Sendable () async throws -> @Sendable () -> Void
    ) async throws -> (rate: Double, cpuPerEvent: Duration) {
        let notifier = Rig.notifier(kind, port: port)
        return try await Rig.running(notifier) {
            var values = await notifier.archiveValues().makeAsyncIterator()
            let send = try await ready()
            let clock = ContinuousClock()
            let began = clock.now
            let cpuBefore = processCPUTime()
            async let sent: Void = send()
            var received = 0
            while received < events {
                guard await values.next() != nil else { throw BenchmarkFailure("the archive stream ended") }
                received += 1
            }
            await sent
            let cpu = processCPUTime() - cpuBefore
            return (Double(events) / began.duration(to: clock.now).seconds, cpu / events)
        }
    }

    /// User plus system CPU time of the whole process so far.
    static func processCPUTime() -> Duration {
        var usage = rusage()
        // RUSAGE_SELF is 0 everywhere, but Glibc imports it as an enum and Darwin as an Int32.
        getrusage(0, &usage)
        func duration(_ time: timeval) -> Duration { .seconds(Int64(time.tv_sec)) + .microseconds(Int64(time.tv_usec)) }
        return duration(usage.ru_utime) + duration(usage.ru_stime)
    }
}

/// A WebSocket on the NIO engine alone, speaking just enough of each protocol by hand to
/// subscribe to the archive channel.
struct RawClient {
    let kind: TransportKind
    let connection: NIOWebSocketConnection
    let frames: WebSocketInbound.AsyncIterator

    static func connect(_ kind: TransportKind, port: Int, authorized: Bool) async throws -> RawClient {
        let url: URL
        var subprotocols: [String]
        switch kind {
        case .appsync:
            url = URL(string: "ws://127.0.0.1:\(port)/event/realtime")!
            let header = #"{"host":"127.0.0.1:\#(port)","x-api-key":"\#(Rig.apiKey)"}"#
            subprotocols = ["aws-appsync-event-ws", "header-" + base64URL(header)]
        default:
            url = URL(string: "ws://127.0.0.1:\(port)/graphql")!
            subprotocols = ["graphql-ws"]
        }
        if !authorized, kind == .appsync { subprotocols = ["aws-appsync-event-ws"] }
        let connection = try await NIOWebSocketConnector().open(WebSocketRequest(url: url, subprotocols: subprotocols))
        var frames = connection.inbound.makeAsyncIterator()
        try await connection.send(.text(#"{"type":"connection_init"}"#))
        try await expect(&frames, "connection_ack")
        return RawClient(kind: kind, connection: connection, frames: frames)
    }

    /// Subscribes to the archive channel and waits for the acknowledgement where there is one.
    mutating func subscribe(id: String) async throws {
        switch kind {
        case .appsync:
            try await connection.send(.text(
                #"{"type":"subscribe","id":"\#(id)","channel":"\#(ArchivePayload.channel)","authorization":{"host":"127.0.0.1","x-api-key":"\#(Rig.apiKey)"}}"#))
            var frames = self.frames
            try await Self.expect(&frames, "subscribe_success")
            self = RawClient(kind: kind, connection: connection, frames: frames)
        default:
            try await connection.send(.text(
                #"{"type":"start","id":"\#(id)","payload":{"query":"subscription { subscribeArchiveState(userId: \"\#(Rig.userId)\") { archiveId } }"}}"#))
        }
    }

    private static func expect(_ frames: inout WebSocketInbound.AsyncIterator, _ type: String) async throws {
        while let event = try await frames.next() {
            guard case .message(.text(let text)) = event else { break }
            if text.contains(#""type":"\#(type)""#) { return }
            if text.contains("error") { throw BenchmarkFailure("raw client got \(text)") }
        }
        throw BenchmarkFailure("raw client: no \(type)")
    }

    private static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension Duration {
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) / 1e18
    }
}
