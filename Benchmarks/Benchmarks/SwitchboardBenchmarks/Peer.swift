import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import NIOConcurrencyHelpers
import SwitchboardCore

/// The peer column: what an app team would write without Switchboard. swift-websocket's
/// `WSClient` (the `HummingbirdWSClient` product) reads the blast sender's frames, and each
/// frame is decoded with one reused Foundation `JSONDecoder` into plain `Codable` structs that
/// mirror `ArchiveStateOutput`, in the read loop (no hand-off to another task, no fan-out,
/// no reconnection: the least such a client does).
enum Peer {
    /// Connects with `WSClient`, subscribes to the archive channel (wire id `peer-1`), waits for
    /// `ready` (which returns the sender) and decodes `events` archive events.
    static func cost(
        _ kind: TransportKind, port: Int, events: Int, ready: @escaping @Sendable (String) async throws -> @Sendable () -> Void
    ) async throws -> Cost {
        let (url, subprotocol) =
            switch kind {
            case .appsync: ("ws://127.0.0.1:\(port)/event/realtime", "aws-appsync-event-ws")
            default: ("ws://127.0.0.1:\(port)/graphql", "graphql-ws")
            }
        var headers = HTTPFields()
        headers[.secWebSocketProtocol] = subprotocol
        let configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20, additionalHeaders: headers)
        let result = NIOLockedValueBox<Cost?>(nil)
        try await WebSocketClient.connect(url: url, configuration: configuration, logger: Rig.silent) { inbound, outbound, _ in
            var messages = inbound.messages(maxSize: 1 << 20).makeAsyncIterator()
            let decoder = PeerDecoder()
            try await outbound.write(.text(#"{"type":"connection_init"}"#))
            try await expect(&messages, decoder, "connection_ack")
            switch kind {
            case .appsync:
                try await outbound.write(.text(
                    #"{"type":"subscribe","id":"peer-1","channel":"\#(ArchivePayload.channel)","authorization":{"host":"127.0.0.1","x-api-key":"\#(Rig.apiKey)"}}"#))
                try await expect(&messages, decoder, "subscribe_success")
            default:
                try await outbound.write(.text(
                    #"{"type":"start","id":"peer-1","payload":{"query":"subscription { subscribeArchiveState(userId: \"\#(Rig.userId)\") { archiveId } }"}}"#))
            }
            let send = try await ready("peer-1")
            let meter = CostMeter()
            async let started: Void = send()
            var received = 0
            var readyArchives = 0
            while received < events {
                guard case .text(let text) = try await messages.next() else { throw BenchmarkFailure("the peer socket closed") }
                guard let archive = try decoder.archive(kind, text) else { continue }
                if archive.status == .ready { readyArchives += 1 }
                received += 1
            }
            await started
            let cost = meter.stop(events: events)
            guard readyArchives == events else { throw BenchmarkFailure("the peer decoded \(readyArchives) ready archives of \(events)") }
            result.withLockedValue { $0 = cost }
            // Returning closes the WebSocket with 1000 (WSClient's close handshake).
        }
        guard let cost = result.withLockedValue({ $0 }) else { throw BenchmarkFailure("the peer's connection ended early") }
        return cost
    }

    private static func expect(
        _ messages: inout WebSocketInboundMessageStream.AsyncIterator, _ decoder: PeerDecoder, _ type: String
    ) async throws {
        while case .text(let text) = try await messages.next() {
            let frameType = try decoder.type(text)
            if frameType == type { return }
            if frameType.contains("error") { throw BenchmarkFailure("peer client got \(text)") }
        }
        throw BenchmarkFailure("peer client: no \(type)")
    }
}

/// The hand-written models, one per frame shape, decoded with Foundation's `JSONDecoder`.
struct PeerDecoder {
    private let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        decoder.dateDecodingStrategy = .custom { decoder in
            try format.parse(try decoder.singleValueContainer().decode(String.self))
        }
        return decoder
    }()

    /// Any frame's `type`.
    func type(_ text: String) throws -> String {
        try decoder.decode(FrameType.self, from: Data(text.utf8)).type
    }

    /// The archive event a `data` frame carries; nil for any other frame (`ka`, say).
    func archive(_ kind: TransportKind, _ text: String) throws -> PeerArchive? {
        switch kind {
        case .appsync:
            // The event is JSON text inside the frame's JSON: a second decode.
            let frame = try decoder.decode(AppSyncFrame.self, from: Data(text.utf8))
            guard frame.type == "data", let event = frame.event else { return nil }
            return try decoder.decode(PeerArchive.self, from: Data(event.utf8))
        default:
            let frame = try decoder.decode(GraphQLFrame.self, from: Data(text.utf8))
            guard frame.type == "data" || frame.type == "next", let archive = frame.payload?.data?.subscribeArchiveState else { return nil }
            return archive.archive
        }
    }

    private struct FrameType: Decodable {
        var type: String
    }

    /// An AppSync Events frame: `{"type":"data","id":…,"event":"<the event as JSON text>"}`.
    struct AppSyncFrame: Decodable {
        var type: String
        var id: String?
        var event: String?
    }

    /// A `graphql-ws` frame: `{"type":"data","id":…,"payload":{"data":{"subscribeArchiveState":{…}}}}`.
    struct GraphQLFrame: Decodable {
        struct Payload: Decodable {
            var data: Root?
        }

        struct Root: Decodable {
            var subscribeArchiveState: LegacyArchive?
        }

        var type: String
        var id: String?
        var payload: Payload?
    }

    /// The legacy `ArchiveState`: no `eventType`/`timestamp`, the site as `deviceGroupID`.
    struct LegacyArchive: Decodable {
        var deviceGroupID: String?
        var orgId: String?
        var thingName: String?
        var derivant: String?
        var mac: String?
        var archiveId: String?
        var status: PeerArchive.Status?
        var videoLength: Double?
        var videoSize: Int64?
        var cloudSize: Int64?
        var hasH265: Bool?
        var createdAt: Date?

        var archive: PeerArchive {
            PeerArchive(
                orgId: orgId, siteId: deviceGroupID, thingName: thingName, derivant: derivant, mac: mac, archiveId: archiveId,
                status: status, videoLength: videoLength, videoSize: videoSize, cloudSize: cloudSize, hasH265: hasH265,
                createdAt: createdAt)
        }
    }
}

/// A plain `Codable` mirror of `ArchiveStateOutput`, as an app would write it.
struct PeerArchive: Codable, Equatable {
    enum Status: String, Codable {
        case pending = "Pending", uploading = "Uploading", processing = "Processing", ready = "Ready", failed = "Failed"
        case deleted = "Deleted"
    }

    var eventType: String?
    var timestamp: Date?
    var orgId: String?
    var siteId: String?
    var thingName: String?
    var derivant: String?
    var mac: String?
    var archiveId: String?
    var status: Status?
    var videoLength: Double?
    var videoSize: Int64?
    var cloudSize: Int64?
    var hasH265: Bool?
    var createdAt: Date?
}
