import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import SwitchboardCore

/// The physical limit the other throughput figures are read against: a bare `NIOAsyncChannel`
/// read loop over the same WebSocket, turning each text frame into a `String` and nothing else.
/// No Switchboard code is on its path (it does the upgrade and speaks just enough of each
/// protocol by hand to subscribe), so what it reaches is what NIO and this machine allow.
enum BareLoop {
    typealias WebSocketChannel = NIOAsyncChannel<WebSocketFrame, WebSocketFrame>

    /// Connects, subscribes to the archive channel with wire id `bare-1`, waits for `ready`
    /// (which returns the sender) and counts `events` text frames.
    static func cost(
        _ kind: TransportKind, port: Int, events: Int, ready: @escaping @Sendable (String) async throws -> @Sendable () -> Void
    ) async throws -> Cost {
        let channel = try await connect(kind, port: port)
        return try await channel.executeThenClose { inbound, outbound in
            var frames = inbound.makeAsyncIterator()
            try await outbound.write(text(#"{"type":"connection_init"}"#))
            try await expect(&frames, "connection_ack")
            switch kind {
            case .appsync:
                try await outbound.write(text(
                    #"{"type":"subscribe","id":"bare-1","channel":"\#(ArchivePayload.channel)","authorization":{"host":"127.0.0.1","x-api-key":"\#(Rig.apiKey)"}}"#))
                try await expect(&frames, "subscribe_success")
            default:
                try await outbound.write(text(
                    #"{"type":"start","id":"bare-1","payload":{"query":"subscription { subscribeArchiveState(userId: \"\#(Rig.userId)\") { archiveId } }"}}"#))
            }
            let send = try await ready("bare-1")
            let meter = CostMeter()
            async let started: Void = send()
            var received = 0
            var bytes = 0
            while received < events {
                guard let frame = try await frames.next() else { throw BenchmarkFailure("the bare socket closed") }
                guard frame.opcode == .text else { continue }
                let text = String(buffer: frame.unmaskedData)
                bytes &+= text.utf8.count
                received += 1
            }
            await started
            let cost = meter.stop(events: events)
            guard bytes > 0 else { throw BenchmarkFailure("empty frames") }
            return cost
        }
    }

    private static func text(_ string: String) -> WebSocketFrame {
        WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: string))
    }

    private static func expect(_ frames: inout NIOAsyncChannelInboundStream<WebSocketFrame>.AsyncIterator, _ type: String) async throws {
        while let frame = try await frames.next() {
            let text = String(buffer: frame.unmaskedData)
            if text.contains(#""type":"\#(type)""#) { return }
            if text.contains("error") { throw BenchmarkFailure("bare client got \(text)") }
        }
        throw BenchmarkFailure("bare client: no \(type)")
    }

    /// TCP, the HTTP upgrade, and the socket as an `NIOAsyncChannel` of frames.
    private static func connect(_ kind: TransportKind, port: Int) async throws -> WebSocketChannel {
        let (path, subprotocol) =
            switch kind {
            case .appsync: ("/event/realtime", "aws-appsync-event-ws")
            default: ("/graphql", "graphql-ws")
            }
        let upgrade = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    let upgrader = NIOTypedWebSocketClientUpgrader<WebSocketChannel?>(
                        maxFrameSize: 1 << 20,
                        upgradePipelineHandler: { channel, _ in
                            channel.eventLoop.makeCompletedFuture { try WebSocketChannel(wrappingChannelSynchronously: channel) }
                        })
                    var headers = HTTPHeaders()
                    headers.add(name: "Host", value: "127.0.0.1:\(port)")
                    headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol)
                    headers.add(name: "Content-Length", value: "0")
                    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
                    let configuration = NIOTypedHTTPClientUpgradeConfiguration<WebSocketChannel?>(
                        upgradeRequestHead: head, upgraders: [upgrader],
                        notUpgradingCompletionHandler: { channel in channel.eventLoop.makeCompletedFuture { nil } })
                    return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(
                        configuration: .init(upgradeConfiguration: configuration))
                }
            }
        guard let channel = try await upgrade.get() else { throw BenchmarkFailure("the bare upgrade was refused") }
        return channel
    }
}
