import Foundation
import Switchboard
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardNIO

/// Events per second from the socket to a typed consumer through `BackendNotifier`, and what each
/// event costs (CPU, allocations), next to the same for the NIO engine alone receiving the same
/// frames from the same sender, for a hand-written `WSClient` + `JSONDecoder` client (``Peer``),
/// and for the physical limit: a bare NIO read loop (``BareLoop``), all in the same run.
enum Throughput {
    /// Every reader's ``Cost`` in one run, against one sender.
    struct Rates: Sendable {
        /// Typed values out of `BackendNotifier.archiveValues()`.
        var notifier: Cost
        /// Text frames out of `NIOWebSocketConnection.inbound`, nothing decoded: the engine alone.
        var raw: Cost
        /// Text frames out of a bare `NIOAsyncChannel` read loop (blast sender only).
        var bare: Cost?
        /// Archive events out of swift-websocket's `WSClient` and `JSONDecoder` (blast sender only).
        var peer: Cost?
        var ratio: Double { notifier.rate / raw.rate }
    }

    /// Every reader with ``BlastServer`` as the sender, in a child process (``SenderProcess``),
    /// `events` frames each, one after the other: the bare loop, the raw engine, the
    /// hand-written peer, then the notifier. Each reader's CPU and allocations are this
    /// process's, so the client's alone.
    static func blast(_ kind: TransportKind, events: Int) async throws -> Rates {
        let sender = try SenderProcess(kind: kind)
        defer { sender.stop() }
        let ready = sender.ready(events: events)
        // For profiling the notifier alone (`perf record -p`): skip the other readers.
        if ProcessInfo.processInfo.environment["SWITCHBOARD_BENCH_NOTIFIER_ONLY"] != nil {
            let notifier = try await notifierCost(kind, port: sender.port, events: events) { try await ready("*") }
            return Rates(notifier: notifier, raw: notifier)
        }
        let bare = try await BareLoop.cost(kind, port: sender.port, events: events, ready: ready)
        let raw = try await rawCost(kind, port: sender.port, events: events, ready: ready)
        let peer = try await Peer.cost(kind, port: sender.port, events: events, ready: ready)
        let notifier = try await notifierCost(kind, port: sender.port, events: events) { try await ready("*") }
        return Rates(notifier: notifier, raw: raw, bare: bare, peer: peer)
    }

    /// The notifier and the raw engine with the emulator as the sender (in-process `publish`,
    /// one call per event). The raw engine reads the AppSync Events endpoint for either
    /// transport: it measures how fast the emulator sends.
    static func emulator(_ kind: TransportKind, events: Int) async throws -> Rates {
        try await withRunningEmulator(configuration: Rig.emulatorConfiguration()) { emulator, endpoints in
            let publish = { @Sendable in
                for _ in 0..<events { _ = try? emulator.publish(channel: ArchivePayload.channel, event: ArchivePayload.event()) }
            }
            let raw = try await rawCost(.appsync, port: endpoints.port, events: events, authorized: true) { _ in
                try await Rig.wait("the raw subscription") { emulator.subscriptionCount == 1 }
                return publish
            }
            try await Rig.wait("the raw connection to close") { emulator.subscriptionCount == 0 }
            let notifier = try await notifierCost(kind, port: endpoints.port, events: events) {
                try await Rig.wait("the notifier's subscriptions") { emulator.subscriptionCount >= 1 }
                return publish
            }
            return Rates(notifier: notifier, raw: raw)
        }
    }

    /// Opens a WebSocket with the NIO engine alone, subscribes to the archive channel (wire id
    /// `raw-1`), waits for `ready` (which returns the sender) and counts `events` frames.
    static func rawCost(
        _ kind: TransportKind, port: Int, events: Int, authorized: Bool = false,
        ready: @escaping @Sendable (String) async throws -> @Sendable () -> Void
    ) async throws -> Cost {
        var client = try await RawClient.connect(kind, port: port, authorized: authorized)
        try await client.subscribe(id: "raw-1")
        let send = try await ready("raw-1")
        let meter = CostMeter()
        async let started: Void = send()
        var received = 0
        var frames = client.frames
        while received < events {
            guard case .message(.text) = try await frames.next() else { throw BenchmarkFailure("raw socket closed") }
            received += 1
        }
        await started
        let cost = meter.stop(events: events)
        await client.connection.close(code: .normalClosure, reason: "")
        return cost
    }

    /// Runs a notifier on `kind`'s transport, waits for `ready` (which returns the sender), then
    /// times `events` typed archive values arriving at one consumer.
    static func notifierCost(
        _ kind: TransportKind, port: Int, events: Int,
        ready: @escaping @Sendable () async throws -> @Sendable () -> Void
    ) async throws -> Cost {
        let notifier = Rig.notifier(kind, port: port)
        return try await Rig.running(notifier) {
            var values = await notifier.archiveValues().makeAsyncIterator()
            let send = try await ready()
            let meter = CostMeter()
            async let sent: Void = send()
            var received = 0
            while received < events {
                guard await values.next() != nil else { throw BenchmarkFailure("the archive stream ended") }
                received += 1
            }
            await sent
            return meter.stop(events: events)
        }
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
