import Foundation
import SwitchboardCore

/// What `check` learns by watching the socket under a transport: the keep-alive window the
/// server announced in its `connection_ack`, whether it sends `ka` frames, and the round trip of
/// each WebSocket ping (the transports' connection check, ``ConnectionVerifying``, sends it; the
/// engine measures the round trip).
///
/// The transports expose neither through their public API, and `check` must not reach into them,
/// so it sits at the socket seam, ``WebSocketConnector``, which every transport takes.
final class ConnectionProbe: Sendable {
    /// A ping's outcome: the round trip, or why it failed.
    typealias PingResult = Result<Duration, SwitchboardError>

    private struct State {
        var acknowledged = false
        var announcedKeepAlive: Duration?
        var keepAliveFrames = 0
        var pings: [PingResult] = []
    }

    private let state = LockedValue(State())
    private let onPing: @Sendable (PingResult) -> Void

    /// - Parameter onPing: Called with each ping's outcome, from the task that sent it.
    init(onPing: @escaping @Sendable (PingResult) -> Void = { _ in }) {
        self.onPing = onPing
    }

    /// Whether a `connection_ack` arrived.
    var acknowledged: Bool { state.withLock(\.acknowledged) }

    /// The window the first `connection_ack` announced (`connectionTimeoutMs`, at the top level as
    /// AppSync Events sends it or in `payload` as the AppSync GraphQL dialect does); nil when it
    /// announced none (`graphql-ws`, `graphql-transport-ws`).
    var announcedKeepAlive: Duration? { state.withLock(\.announcedKeepAlive) }

    /// How many `ka` frames arrived.
    var keepAliveFrames: Int { state.withLock(\.keepAliveFrames) }

    /// Every ping's outcome, in order.
    var pings: [PingResult] { state.withLock(\.pings) }

    /// Wraps a connector so that every connection it opens reports to this probe.
    func watching(_ connector: any WebSocketConnector) -> any WebSocketConnector {
        ProbingConnector(base: connector, probe: self)
    }

    /// Takes in one text frame from the server.
    func observe(_ text: String) {
        guard text.contains("connection_ack") || text.contains("\"ka\""),
            let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
            let type = object["type"] as? String
        else { return }
        state.withLock { state in
            switch type {
            case "connection_ack" where !state.acknowledged:
                state.acknowledged = true
                let payload = object["payload"] as? [String: Any]
                let milliseconds = (object["connectionTimeoutMs"] ?? payload?["connectionTimeoutMs"]) as? NSNumber
                if let milliseconds, milliseconds.int64Value > 0 {
                    state.announcedKeepAlive = .milliseconds(milliseconds.int64Value)
                }
            case "ka":
                state.keepAliveFrames += 1
            default:
                break
            }
        }
    }

    /// Records a ping's outcome.
    func pinged(_ result: PingResult) {
        state.withLock { $0.pings.append(result) }
        onPing(result)
    }
}

/// Opens connections through `base` and wraps each in a ``ProbedConnection``.
private struct ProbingConnector: WebSocketConnector {
    let base: any WebSocketConnector
    let probe: ConnectionProbe

    func connect(_ request: WebSocketRequest) async throws -> any WebSocketConnection {
        ProbedConnection(base: try await base.connect(request), probe: probe)
    }
}

/// A connection that shows its server's text frames and its pings' outcomes to a probe and
/// otherwise passes everything through unchanged, in order.
///
/// ``WebSocketInbound`` cannot be wrapped lazily, so one relay task moves frames from the real
/// connection's inbound to this one's. It ends when the real inbound does (the socket closed or
/// failed) or when this connection is closed.
private final class ProbedConnection: WebSocketConnection {
    let subprotocol: String?
    let inbound: WebSocketInbound
    private let base: any WebSocketConnection
    private let probe: ConnectionProbe
    private let relay: Task<Void, Never>

    init(base: any WebSocketConnection, probe: ConnectionProbe) {
        self.base = base
        self.probe = probe
        subprotocol = base.subprotocol
        let (inbound, continuation) = WebSocketInbound.makeStream()
        self.inbound = inbound
        let source = base.inbound
        relay = Task {
            do {
                for try await event in source {
                    if case .message(.text(let text)) = event { probe.observe(text) }
                    continuation.yield(event)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }

    func send(_ message: WebSocketMessage) async throws { try await base.send(message) }

    func close(code: WebSocketCloseCode, reason: String) async {
        await base.close(code: code, reason: reason)
        relay.cancel()
    }

    func sendPing(_ payload: Data) async throws -> Duration {
        do {
            let roundTrip = try await base.sendPing(payload)
            probe.pinged(.success(roundTrip))
            return roundTrip
        } catch let error as SwitchboardError {
            probe.pinged(.failure(error))
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            probe.pinged(.failure(SwitchboardError(code: .network, message: "the ping failed", cause: error)))
            throw error
        }
    }

    deinit { relay.cancel() }
}
