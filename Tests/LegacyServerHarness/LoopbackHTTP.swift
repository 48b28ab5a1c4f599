import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request to a server on loopback over SwiftNIO: the tests' HTTP client for the
/// emulator's and the legacy server's endpoints.
///
/// Not `URLSession`: on Linux its libcurl integration watches sockets with dispatch sources, and
/// FoundationNetworking's teardown of those sources races their cancellation
/// (swift-corelibs-foundation#4791, fixed in part). A test polling a server every few milliseconds
/// beside a busy suite is what brings out libdispatch's crashes (`_dispatch_event_loop_drain`, and
/// a fault on a freed timeout source with its 60-second default still in memory): the test
/// process dies, every other test with it. The suites that test the library's own URLSession
/// clients keep using `URLSession`; nothing else in the test process does.
package enum LoopbackHTTP {
    package struct Response: Sendable {
        package var status: Int
        package var body: [UInt8]

        /// The body as UTF-8 text.
        package var text: String { String(decoding: body, as: UTF8.self) }
        /// The body as `Data`.
        package var data: Data { Data(body) }
    }

    /// What a request to an address this helper does not serve throws.
    package struct UnsupportedURL: Error, CustomStringConvertible {
        package var url: URL
        package var description: String { "LoopbackHTTP sends plain HTTP to a host and port on loopback; not \(url)" }
    }

    /// Sends one request to `url` (plain `http`, loopback) and reads the whole answer.
    package static func request(
        _ url: URL, method: String = "GET", headers: [(name: String, value: String)] = [], body: [UInt8]? = nil
    ) async throws -> Response {
        guard url.scheme == "http", let host = url.host, let port = url.port else { throw UnsupportedURL(url: url) }
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        return try await request(
            host: host, port: port, method: HTTPMethod(rawValue: method), path: target, headers: headers, body: body)
    }

    /// Sends one request to `127.0.0.1:port` and reads the whole answer.
    package static func request(port: Int, method: HTTPMethod, path: String, body: [UInt8]?) async throws -> Response {
        try await request(host: "127.0.0.1", port: port, method: method, path: path, headers: [], body: body)
    }

    private static func request(
        host: String, port: Int, method: HTTPMethod, path: String, headers: [(name: String, value: String)],
        body: [UInt8]?
    ) async throws -> Response {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
            for (name, value) in headers { head.headers.replaceOrAdd(name: name, value: value) }
            head.headers.replaceOrAdd(name: "Host", value: "\(host):\(port)")
            head.headers.replaceOrAdd(name: "Connection", value: "close")
            head.headers.replaceOrAdd(name: "Content-Length", value: "\(body?.count ?? 0)")
            if body != nil, !head.headers.contains(name: "Content-Type") {
                head.headers.add(name: "Content-Type", value: "application/json")
            }
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
