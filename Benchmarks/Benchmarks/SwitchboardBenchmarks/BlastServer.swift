import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A raw-NIO WebSocket server on 127.0.0.1 that speaks just enough of AppSync Events
/// (`aws-appsync-event-ws`) and `graphql-ws` to let a client connect and subscribe, and then
/// writes pre-encoded data frames as fast as NIO can: the throughput benchmark's sender.
///
/// The emulator writes one frame per `await` through Hummingbird's writer, which caps it at a
/// few hundred thousand frames per second on this machine: below what the NIO engine can read.
/// Measured against the emulator, the client's ratio to the "raw" rate would describe the
/// sender. This server writes a batch of frames per flush and never parses what it sends, so
/// the receiving client is the bottleneck.
final class BlastServer: Sendable {
    /// A subscription a client opened: the wire id and the text of its subscribe message.
    struct Subscription: Sendable {
        var connection: Int
        var id: String
        var request: String
    }

    /// What a connection's writer is asked to send.
    private enum Blast: Sendable {
        /// These frames, in one flush.
        case frames([ByteBuffer])
        /// `count` copies of `payload`, `batchSize` per flush, each batch written only once NIO
        /// took the previous one (the channel's writability): nothing is queued ahead of the
        /// socket. `sent` is called after the last batch.
        case repeated(ByteBuffer, count: Int, batchSize: Int, sent: @Sendable () -> Void)
    }

    private struct Connection: Sendable {
        var blasts: AsyncStream<Blast>.Continuation
        var subscriptions: [String: String] = [:]
    }

    private struct State {
        var connections: [Int: Connection] = [:]
        var nextConnection = 1
    }

    let port: Int
    private let state = NIOLockedValueBox(State())

    private init(port: Int) { self.port = port }

    /// The live subscriptions of every connection.
    var subscriptions: [Subscription] {
        state.withLockedValue { state in
            state.connections.flatMap { number, connection in
                connection.subscriptions.map { Subscription(connection: number, id: $0.key, request: $0.value) }
            }
        }
    }

    /// Waits (a millisecond at a time, at most `seconds`) for a subscription that `matches`.
    func waitForSubscription(seconds: Int = 10, where matches: (Subscription) -> Bool) async throws -> Subscription {
        for _ in 0..<(seconds * 1_000) {
            if let found = subscriptions.first(where: matches) { return found }
            try await Task.sleep(for: .milliseconds(1))
        }
        throw BenchmarkFailure("the blast server saw no such subscription")
    }

    /// Writes `count` copies of `frame(subscription.id)` to the subscription's connection, a batch
    /// of `batchSize` per flush, making each batch only when NIO can take it (nothing is queued
    /// ahead of the socket); returns once the last batch is written, or at once when the
    /// connection is gone.
    func blastLazily(_ count: Int, to subscription: Subscription, batchSize: Int = 512, frame: (String) -> String) async {
        let payload = ByteBuffer(string: frame(subscription.id))
        guard let sink = state.withLockedValue({ $0.connections[subscription.connection]?.blasts }) else { return }
        await withCheckedContinuation { (sent: CheckedContinuation<Void, Never>) in
            let once = NIOLockedValueBox<CheckedContinuation<Void, Never>?>(sent)
            let resume: @Sendable () -> Void = { once.withLockedValue { continuation in
                continuation?.resume()
                continuation = nil
            } }
            if case .terminated = sink.yield(.repeated(payload, count: count, batchSize: batchSize, sent: resume)) { resume() }
        }
    }

    /// Writes one frame to the subscription's connection (flushed on its own).
    func send(_ text: String, to subscription: Subscription) {
        guard let sink = state.withLockedValue({ $0.connections[subscription.connection]?.blasts }) else { return }
        sink.yield(.frames([ByteBuffer(string: text)]))
    }

    /// Runs `body` against a fresh server, then closes it and every connection.
    static func with<Result: Sendable>(_ body: (BlastServer) async throws -> Result) async throws -> Result {
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture { try configure(channel) }
            }
        let server = BlastServer(port: listener.channel.localAddress!.port!)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await listener.executeThenClose { connections in
                    await withDiscardingTaskGroup { handlers in
                        do {
                            for try await upgrade in connections {
                                handlers.addTask { await server.serve(upgrade) }
                            }
                        } catch {}
                        handlers.cancelAll()
                    }
                }
            }
            defer { group.cancelAll() }
            return try await body(server)
        }
    }

    typealias Upgraded = (NIOAsyncChannel<WebSocketFrame, WebSocketFrame>, String)?

    private static func configure(_ channel: any Channel) throws -> EventLoopFuture<Upgraded> {
        let upgrader = NIOTypedWebSocketServerUpgrader<Upgraded>(
            maxFrameSize: 1 << 24,
            shouldUpgrade: { channel, head in
                let offered = head.headers["Sec-WebSocket-Protocol"]
                    .flatMap { $0.split(separator: ",") }
                    .map { $0.trimmingCharacters(in: .whitespaces) }
                guard let chosen = offered.first(where: { ["aws-appsync-event-ws", "graphql-ws"].contains($0) }) else {
                    return channel.eventLoop.makeSucceededFuture(nil)
                }
                var headers = HTTPHeaders()
                headers.add(name: "Sec-WebSocket-Protocol", value: chosen)
                return channel.eventLoop.makeSucceededFuture(headers)
            },
            upgradePipelineHandler: { channel, head in
                channel.eventLoop.makeCompletedFuture {
                    let subprotocol = head.headers["Sec-WebSocket-Protocol"].joined(separator: ",")
                    let chosen = subprotocol.contains("aws-appsync-event-ws") ? "aws-appsync-event-ws" : "graphql-ws"
                    return (try NIOAsyncChannel(wrappingChannelSynchronously: channel), chosen)
                }
            })
        let configuration = NIOUpgradableHTTPServerPipelineConfiguration(
            upgradeConfiguration: NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.close(promise: nil)
                    return channel.eventLoop.makeSucceededFuture(nil)
                }))
        return try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
    }

    private func serve(_ upgrade: EventLoopFuture<Upgraded>) async {
        guard let upgraded = try? await upgrade.get() else { return }
        let (webSocket, subprotocol) = upgraded
        let (blasts, blastSink) = AsyncStream<Blast>.makeStream()
        let number = state.withLockedValue { state in
            defer { state.nextConnection += 1 }
            state.connections[state.nextConnection] = Connection(blasts: blastSink)
            return state.nextConnection
        }
        defer {
            _ = state.withLockedValue { $0.connections.removeValue(forKey: number) }
            blastSink.finish()
        }
        try? await webSocket.executeThenClose { frames, writer in
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await blast in blasts {
                        switch blast {
                        case .frames(let batch):
                            try await writer.write(contentsOf: batch.map { WebSocketFrame(fin: true, opcode: .text, data: $0) })
                        case .repeated(let payload, let count, let batchSize, let sent):
                            // `sent` runs however this ends (the connection may go first).
                            defer { sent() }
                            let frame = WebSocketFrame(fin: true, opcode: .text, data: payload)
                            var remaining = count
                            while remaining > 0 {
                                let size = min(batchSize, remaining)
                                try await writer.write(contentsOf: repeatElement(frame, count: size))
                                remaining -= size
                            }
                        }
                    }
                }
                defer { group.cancelAll() }
                for try await frame in frames {
                    switch frame.opcode {
                    case .text:
                        for reply in handle(text: String(buffer: frame.unmaskedData), subprotocol: subprotocol, connection: number) {
                            try await writer.write(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(string: reply)))
                        }
                    case .ping:
                        try await writer.write(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData))
                    case .connectionClose:
                        try await writer.write(WebSocketFrame(fin: true, opcode: .connectionClose, data: ByteBuffer()))
                        return
                    default:
                        break
                    }
                }
            }
        }
    }

    /// The replies to one client message; records subscriptions.
    private func handle(text: String, subprotocol: String, connection: Int) -> [String] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let type = object["type"] as? String
        else { return [] }
        let id = object["id"] as? String
        switch (subprotocol, type) {
        case ("aws-appsync-event-ws", "connection_init"):
            return [#"{"type":"connection_ack","connectionTimeoutMs":300000}"#]
        case ("graphql-ws", "connection_init"):
            return [#"{"type":"connection_ack"}"#, #"{"type":"ka"}"#]
        case ("aws-appsync-event-ws", "subscribe"), ("graphql-ws", "start"):
            guard let id else { return [] }
            state.withLockedValue { $0.connections[connection]?.subscriptions[id] = text }
            return subprotocol == "graphql-ws" ? [] : [#"{"type":"subscribe_success","id":"\#(id)"}"#]
        case ("aws-appsync-event-ws", "unsubscribe"), ("graphql-ws", "stop"):
            guard let id else { return [] }
            state.withLockedValue { _ = $0.connections[connection]?.subscriptions.removeValue(forKey: id) }
            return subprotocol == "graphql-ws" ? [#"{"type":"complete","id":"\#(id)"}"#] : [#"{"type":"unsubscribe_success","id":"\#(id)"}"#]
        default:
            return []
        }
    }
}
