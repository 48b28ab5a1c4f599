import Hummingbird
import HummingbirdWebSocket
import SwitchboardCore

/// `POST /control/…`: fault injection over HTTP, for a standalone emulator. Each answers
/// `{"connections": n}` (the number of connections affected) or `{}`.
///
/// - `POST /control/drop?code=4000&reason=text` closes every connection with a close frame
/// - `POST /control/abort` closes every connection's TCP stream without a close frame
/// - `POST /control/stall?ms=5000` stalls output for that long
/// - `POST /control/garbage` sends a non-JSON frame
/// - `POST /control/reject-auth?count=2` refuses the next 2 connections (no `count`: until reset)
/// - `POST /control/latency?ms=200` delays each frame (`ms=0` removes the delay)
/// - `POST /control/drop-events?transport=graphql&every=1` drops one of every `every` events
///   (default 1: all) delivered to that protocol's subscriptions; `every=0` stops dropping
/// - `POST /control/reset` clears every fault
/// - `GET /control/status` (or `POST`, for clients that only post) answers
///   `{"connections": n, "subscriptions": m}`: the open protocol connections and the
///   subscriptions they hold, so a driver in another process can wait until a client subscribed
struct ControlRoutes {
    let emulator: SwitchboardEmulator

    func register(on router: Router<EmulatorRequestContext>) {
        let emulator = self.emulator
        let group = router.group("control")
        group.post("drop") { request, _ in
            let code = request.uri.queryParameters.get("code", as: UInt16.self) ?? 1001
            let reason = request.uri.queryParameters.get("reason") ?? ""
            return Self.count(emulator.dropAllConnections(code: code, reason: reason))
        }
        group.post("abort") { _, _ in Self.count(emulator.abortAllConnections()) }
        group.post("garbage") { _, _ in Self.count(emulator.sendGarbageFrame()) }
        group.post("stall") { request, _ in
            guard let ms = request.uri.queryParameters.get("ms", as: Int.self), ms >= 0 else {
                throw HTTPError(.badRequest, message: "stall needs ms=<non-negative integer>")
            }
            return Self.count(emulator.stallConnections(for: .milliseconds(ms)))
        }
        group.post("reject-auth") { request, _ in
            emulator.rejectAuthentication(nextConnections: request.uri.queryParameters.get("count", as: Int.self))
            return HTTPPublishRoute.json(.ok, [:])
        }
        group.post("latency") { request, _ in
            guard let ms = request.uri.queryParameters.get("ms", as: Int.self), ms >= 0 else {
                throw HTTPError(.badRequest, message: "latency needs ms=<non-negative integer>")
            }
            emulator.setFrameLatency(ms == 0 ? nil : .milliseconds(ms))
            return HTTPPublishRoute.json(.ok, [:])
        }
        group.post("drop-events") { request, _ in
            guard let raw = request.uri.queryParameters.get("transport"), let kind = TransportKind(rawValue: raw),
                  TransportKind.builtIn.contains(kind) else {
                throw HTTPError(.badRequest, message: "drop-events needs transport=graphql or transport=appsync")
            }
            let every = request.uri.queryParameters.get("every", as: Int.self) ?? 1
            guard every >= 0 else { throw HTTPError(.badRequest, message: "drop-events needs every=<non-negative integer>") }
            emulator.dropEvents(to: kind, every: every == 0 ? nil : every)
            return HTTPPublishRoute.json(.ok, [:])
        }
        group.get("status") { _, _ in Self.status(emulator) }
        group.post("status") { _, _ in Self.status(emulator) }
        group.post("reset") { _, _ in
            emulator.resetFaults()
            return HTTPPublishRoute.json(.ok, [:])
        }
    }

    static func count(_ n: Int) -> Response { HTTPPublishRoute.json(.ok, ["connections": n]) }

    static func status(_ emulator: SwitchboardEmulator) -> Response {
        HTTPPublishRoute.json(.ok, ["connections": emulator.connectionCount, "subscriptions": emulator.subscriptionCount])
    }
}
