import Foundation
import NIOHTTP1
import Logging
import SwitchboardCore
import SwitchboardNIO
import SwitchboardTesting
import Testing

/// ws or wss, for tests that run over both.
enum Scheme: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case ws, wss

    var testDescription: String { rawValue }
    var isSecure: Bool { self == .wss }

    /// The server certificate, for wss.
    func certificate() throws -> TestCertificate? {
        isSecure ? try TestCertificate.shared.get() : nil
    }
}

/// A connector that trusts the test certificate only.
func makeConnector(
    clock: any Clock<Duration> = ContinuousClock(),
    maximumFrameSize: Int = 1 << 20,
    maximumMessageSize: Int = 4 << 20,
    closeTimeout: Duration = .seconds(5),
    maximumBufferedInboundBytes: Int = 1 << 20,
    logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
) throws -> NIOWebSocketConnector {
    let certificate = try TestCertificate.shared.get()
    var configuration = NIOWebSocketConnector.Configuration(
        tls: NIOWebSocketConnector.TLS(trustRoots: .only(try .der(Data(certificate.der)))),
        maximumFrameSize: maximumFrameSize,
        maximumMessageSize: maximumMessageSize,
        closeTimeout: closeTimeout,
        clock: clock,
        logger: logger)
    configuration.maximumBufferedInboundBytes = maximumBufferedInboundBytes
    return NIOWebSocketConnector(configuration: configuration)
}

/// Accepts every upgrade, choosing the first offered subprotocol.
@Sendable func acceptFirstOffered(_ head: NIOHTTP1.HTTPRequestHead) -> TestHandshake {
    let offered = head.headers["Sec-WebSocket-Protocol"].flatMap { $0.split(separator: ",") }
    return .accept(subprotocol: offered.first.map { $0.trimmingCharacters(in: .whitespaces) })
}

/// Reads every event until the sequence ends; returns them with the error it ended with.
func drain(_ inbound: WebSocketInbound) async -> (events: [WebSocketInboundEvent], error: (any Error)?) {
    var events: [WebSocketInboundEvent] = []
    do {
        for try await event in inbound { events.append(event) }
        return (events, nil)
    } catch {
        return (events, error)
    }
}

/// A one-shot value handed from a server session to the test.
final class Mailbox<Value: Sendable>: Sendable {
    private let stream: AsyncStream<Value>
    private let continuation: AsyncStream<Value>.Continuation

    init() {
        (stream, continuation) = AsyncStream<Value>.makeStream()
    }

    func put(_ value: Value) { continuation.yield(value) }

    /// The next value put, in order.
    func next() async -> Value? {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }
}

/// Keeps every log line (message and metadata) at trace level, to check what is never logged.
struct CapturingLogHandler: LogHandler {
    /// Every line logged through any copy of this handler.
    final class Lines: Sendable {
        private let storage = LockedValue<[String]>([])
        func append(_ line: String) { storage.withLock { $0.append(line) } }
        var text: String { storage.withLock { $0.joined(separator: "\n") } }
        var count: Int { storage.withLock(\.count) }
    }

    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.append("\(event.level) \(event.message) \(merged)")
    }
}
