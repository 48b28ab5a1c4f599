import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request to 127.0.0.1 over SwiftNIO, for the legacy server's control endpoints.
///
/// Not `URLSession`: on Linux its libcurl integration watches sockets with dispatch sources, and a
/// test polling a server every few milliseconds beside a busy suite is what brings out
/// libdispatch's crashes in `_dispatch_event_loop_drain` (seen once in CI).
enum LoopbackHTTP {
    struct Response {
        var status: Int
        var body: [UInt8]
    }

    static func request(port: Int, method: HTTPMethod, path: String, body: [UInt8]?) async throws -> Response {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
            head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
            head.headers.add(name: "Connection", value: "close")
            head.headers.add(name: "Content-Length", value: "\(body?.count ?? 0)")
            if body != nil { head.headers.add(name: "Content-Type", value: "application/json") }
            // One write: the server may answer and close as soon as it has the request, and a
            // part written after that would fail.
            var parts: [HTTPClientRequestPart] = [.head(head)]
            if let body { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
            parts.append(.end(nil))
            try await outbound.write(contentsOf: parts)
            var response = Response(status: 0, body: [])
            for try await part in inbound {
                switch part {
                case .head(let head): response.status = Int(head.status.code)
                case .body(let buffer): response.body += buffer.readableBytesView
                case .end: return response
                }
            }
            return response
        }
    }
}
