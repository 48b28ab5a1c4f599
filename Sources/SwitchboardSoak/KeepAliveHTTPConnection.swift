import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import SwitchboardCore

/// `POST`s to a loopback HTTP server over one kept-alive HTTP/1.1 connection, one request at a
/// time: the soak's publisher, which sends a batch every tick and would otherwise pay a TCP
/// connect and a server-side channel setup each time.
///
/// The connection opens on the first request and is reused while the server keeps it open (the
/// emulator never closes an idle one); after an answer with `Connection: close`, a failure or a
/// timeout it is closed, and the next request opens another. A request is never sent twice: one
/// that fails throws, because the server may have acted on it.
final class KeepAliveHTTPConnection: Sendable {
    /// An answer: the status code and the whole body.
    typealias Answer = (status: Int, body: Data)

    private let host: String
    private let port: Int
    private let requestTimeout: Duration
    private let clock: any Clock<Duration>
    private let group: any EventLoopGroup
    private let channel = LockedValue<(any Channel)?>(nil)
    private let opened = LockedValue(0)

    /// How many connections it has opened so far.
    var connectionsOpened: Int { opened.withLock { $0 } }

    /// - Parameters:
    ///   - host: The server's address (the emulator's `127.0.0.1`).
    ///   - port: Its port.
    ///   - requestTimeout: How long an answer may take once the request is sent, on `clock`.
    ///   - clock: The clock of the timeout.
    ///   - group: The event loops the connection runs on; by default a thread of its own, so the
    ///     publisher never waits behind the notifier's sockets (which decode their frames on the
    ///     shared event loops) while a catch-up floods them.
    init(
        host: String, port: Int, requestTimeout: Duration = .seconds(10), clock: any Clock<Duration> = ContinuousClock(),
        group: any EventLoopGroup = KeepAliveHTTPConnection.publisherLoop
    ) {
        self.host = host
        self.port = port
        self.requestTimeout = requestTimeout
        self.clock = clock
        self.group = group
    }

    /// One event loop for the soak's publisher, apart from `MultiThreadedEventLoopGroup.singleton`;
    /// like the singleton, it lives as long as the process.
    static let publisherLoop: any EventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    deinit { channel.withLock { $0?.close(promise: nil) } }

    /// Sends `POST path` with `headers` and `body` and reads the whole answer.
    /// - Throws: ``SoakError`` when the connection cannot be opened, closes before the answer is
    ///   complete, or no answer comes within the timeout; the connection is closed then.
    func post(_ path: String, headers: [(name: String, value: String)], body: Data) async throws -> Answer {
        let channel = try await openChannel()
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: path)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        head.headers.replaceOrAdd(name: "Host", value: "\(host):\(port)")
        head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        let answer = channel.eventLoop.makePromise(of: AnswerReader.Result.self)
        let request = head
        let endpoint = "\(host):\(port)"
        channel.eventLoop.execute {
            do {
                try channel.pipeline.syncOperations.handler(type: AnswerReader.self).expect(answer, endpoint: endpoint)
            } catch {
                answer.fail(SoakError("the connection to \(endpoint) closed before the request was sent"))
                return
            }
            channel.write(HTTPClientRequestPart.head(request), promise: nil)
            channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        }
        do {
            let result = try await withAnswerDeadline(answer.futureResult, on: channel, endpoint: endpoint)
            if !result.keepAlive { forget(channel) }
            return (result.status, result.body)
        } catch {
            forget(channel)
            throw error
        }
    }

    /// Closes the connection, if one is open.
    func close() { channel.withLock { $0?.close(promise: nil); $0 = nil } }

    private func forget(_ stale: any Channel) {
        stale.close(promise: nil)
        channel.withLock { if $0 === stale { $0 = nil } }
    }

    private func openChannel() async throws -> any Channel {
        if let open = channel.withLock({ $0 }), open.isActive { return open }
        let opened: any Channel
        do {
            opened = try await ClientBootstrap(group: group)
                .connectTimeout(.seconds(10))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(AnswerReader())
                    }
                }
                .connect(host: host, port: port).get()
        } catch {
            throw SoakError("cannot connect to \(host):\(port): \(error)")
        }
        channel.withLock { $0 = opened }
        self.opened.withLock { $0 += 1 }
        return opened
    }

    /// The answer, or a timeout after ``requestTimeout`` on ``clock``. A timeout or the caller's
    /// cancellation closes `channel`, which fails the answer, so the wait for it ends too.
    private func withAnswerDeadline(
        _ answer: EventLoopFuture<AnswerReader.Result>, on channel: any Channel, endpoint: String
    ) async throws -> AnswerReader.Result {
        let (clock, timeout) = (self.clock, requestTimeout)
        return try await withThrowingTaskGroup(of: AnswerReader.Result?.self) { group in
            group.addTask { try await answer.get() }
            group.addTask {
                try await clock.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            do {
                if case .some(.some(let result)) = try await group.next() { return result }
            } catch {
                channel.close(promise: nil)
                throw error
            }
            channel.close(promise: nil)
            throw SoakError("\(endpoint) did not answer within \(timeout)")
        }
    }
}

/// Reads one answer at a time for ``KeepAliveHTTPConnection`` and completes its promise.
private final class AnswerReader: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias Result = (status: Int, body: Data, keepAlive: Bool)

    private var pending: (promise: EventLoopPromise<Result>, endpoint: String)?
    private var head: HTTPResponseHead?
    private var body = ByteBuffer()

    /// Arms the reader for the next answer; the caller writes the request next.
    func expect(_ promise: EventLoopPromise<Result>, endpoint: String) throws {
        guard pending == nil else { throw SoakError("one request at a time on a kept-alive connection") }
        pending = (promise, endpoint)
        head = nil
        body.clear()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body(var buffer):
            body.writeBuffer(&buffer)
        case .end:
            guard let pending, let head else { return }
            self.pending = nil
            pending.promise.succeed((Int(head.status.code), Data(body.readableBytesView), head.isKeepAlive))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(SoakError("\(pending?.endpoint ?? "the server") closed the connection before answering"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(SoakError("the connection to \(pending?.endpoint ?? "the server") failed: \(error)"))
        context.close(promise: nil)
    }

    private func fail(_ error: SoakError) {
        guard let pending else { return }
        self.pending = nil
        pending.promise.fail(error)
    }
}
