import Foundation
import SwitchboardCore
import SwitchboardTesting

/// Plays the server over scripted sockets: just enough of each protocol for the conformance
/// suite (acknowledge, subscribe, refuse the outsider's streams and, on request, every
/// credential; deliver; drop).
final class ScriptedServer: Sendable {
    let flavor: Flavor
    let connector = ScriptedWebSocketConnector()

    private struct Peer: Sendable {
        let socket: ScriptedWebSocketConnection
        /// How many of the client's frames this server has answered.
        var answered = 0
        /// The subscriptions it holds: wire id → address.
        var subscriptions: [String: String] = [:]
    }

    private struct State: Sendable {
        var peers: [Int: Peer] = [:]
        var newest = 0
        var rejectCredentials = false
    }

    /// What to do on a socket.
    private enum Reply {
        case send([String: Any])
        case close(UInt16, String)
    }

    private let state = Observed(State())

    init(flavor: Flavor) { self.flavor = flavor }

    /// Serves every connection the client opens until the task is cancelled.
    func serve() async {
        await withTaskGroup(of: Void.self) { group in
            while let attempt = await connector.nextAttempt() {
                guard let socket = attempt.connection else { continue }
                let number = state.update { state -> Int in
                    state.newest += 1
                    state.peers[state.newest] = Peer(socket: socket)
                    return state.newest
                }
                group.addTask { await self.converse(number, socket) }
            }
            group.cancelAll()
        }
    }

    private func converse(_ number: Int, _ socket: ScriptedWebSocketConnection) async {
        while let text = await socket.nextSentText() {
            let frame = (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
            let replies = state.update { state in answer(frame, peer: &state.peers[number]!, rejecting: state.rejectCredentials) }
            for reply in replies {
                switch reply {
                case .send(let object): socket.serverSends(text: Self.text(object))
                case .close(let code, let reason): socket.serverCloses(code: WebSocketCloseCode(code), reason: reason)
                }
            }
            state.update { $0.peers[number]?.answered += 1 }
        }
    }

    // MARK: Controls

    /// Sends `payload` to every subscription of the newest connection with `address`, once the
    /// server has answered everything the client sent so far.
    func deliver(_ payload: String, to address: String) async {
        let current = state.value
        guard let newest = current.peers[current.newest] else { return }
        let number = current.newest, sent = newest.socket.state.sent.count
        await state.wait { $0.peers[number].map { $0.answered >= sent } ?? true }
        guard let peer = state.value.peers[number] else { return }
        for (id, held) in peer.subscriptions.sorted(by: { $0.key < $1.key }) where held == address {
            peer.socket.serverSends(text: Self.text(dataFrame(id: id, payload: payload)))
        }
    }

    /// Closes every open connection with 1001 (going away).
    func dropConnections() {
        for peer in state.value.peers.values where !peer.socket.state.isClosed {
            peer.socket.serverCloses(code: .goingAway, reason: "conformance: dropped by the server")
        }
    }

    func rejectCredentials(_ reject: Bool) { state.update { $0.rejectCredentials = reject } }

    // MARK: Protocols

    private func answer(_ frame: [String: Any], peer: inout Peer, rejecting: Bool) -> [Reply] {
        let type = frame["type"] as? String ?? ""
        let id = frame["id"] as? String ?? ""
        switch type {
        case "connection_init":
            return rejecting ? refusal() : [.send(acknowledgement())]
        case "subscribe" where flavor == .appSyncEvents:
            return subscribe(id, Conformance.address(channel: frame["channel"] as? String ?? ""), peer: &peer)
        case "subscribe", "start":
            var request = frame["payload"] as? [String: Any] ?? [:]
            if let data = request["data"] as? String {  // AppSync GraphQL: the request as a JSON string
                request = (try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any]) ?? [:]
            }
            let address = Conformance.address(
                query: request["query"] as? String ?? "", variables: request["variables"] as? [String: Any] ?? [:])
            return subscribe(id, address, peer: &peer)
        case "unsubscribe", "stop", "complete":
            peer.subscriptions[id] = nil
            switch flavor {
            case .appSyncEvents: return [.send(["type": "unsubscribe_success", "id": id])]
            case .graphQLTransportWS: return []
            case .graphQLWS, .appSyncGraphQL: return [.send(["type": "complete", "id": id])]
            }
        case "ping":
            return [.send(["type": "pong"])]
        case "connection_terminate":
            return [.close(1000, "")]
        default:
            return []
        }
    }

    private func acknowledgement() -> [String: Any] {
        switch flavor {
        case .appSyncEvents: ["type": "connection_ack", "connectionTimeoutMs": 300_000]
        case .appSyncGraphQL: ["type": "connection_ack", "payload": ["connectionTimeoutMs": 300_000]]
        case .graphQLWS, .graphQLTransportWS: ["type": "connection_ack"]
        }
    }

    /// How each protocol refuses credentials at connect.
    private func refusal() -> [Reply] {
        let unauthorized: [[String: Any]] = [["errorType": "UnauthorizedException", "message": "You are not authorized to make this call."]]
        switch flavor {
        case .appSyncEvents: return [.send(["type": "connection_error", "errors": unauthorized]), .close(1000, "")]
        case .appSyncGraphQL: return [.send(["type": "connection_error", "payload": ["errors": unauthorized]]), .close(1000, "")]
        case .graphQLWS: return [.send(["type": "connection_error", "payload": ["message": "Unauthorized"]]), .close(1011, "Unauthorized")]
        case .graphQLTransportWS: return [.close(4403, "Forbidden")]
        }
    }

    private func subscribe(_ id: String, _ address: String, peer: inout Peer) -> [Reply] {
        if Conformance.isRefused(address) {
            let error: [String: Any] = ["errorType": "Unauthorized", "message": "Not authorized to access \(address)"]
            switch flavor {
            case .appSyncEvents: return [.send(["type": "subscribe_error", "id": id, "errors": [error]])]
            case .appSyncGraphQL: return [.send(["type": "error", "id": id, "payload": ["errors": [error]]])]
            case .graphQLWS: return [.send(["type": "error", "id": id, "payload": error])]
            case .graphQLTransportWS: return [.send(["type": "error", "id": id, "payload": [error]])]
            }
        }
        peer.subscriptions[id] = address
        switch flavor {
        case .appSyncEvents: return [.send(["type": "subscribe_success", "id": id])]
        case .appSyncGraphQL: return [.send(["type": "start_ack", "id": id])]
        case .graphQLWS, .graphQLTransportWS: return []
        }
    }

    private func dataFrame(id: String, payload: String) -> [String: Any] {
        switch flavor {
        case .appSyncEvents:
            return ["type": "data", "id": id, "event": payload]
        case .graphQLWS, .graphQLTransportWS, .appSyncGraphQL:
            let data = (try? JSONSerialization.jsonObject(with: Data(payload.utf8))) ?? [:]
            return ["type": flavor == .graphQLTransportWS ? "next" : "data", "id": id, "payload": ["data": data]]
        }
    }

    private static func text(_ object: [String: Any]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data(), as: UTF8.self)
    }
}

/// The conformance harness over a ``ScriptedServer``.
struct ScriptedServerHarness: TransportConformanceHarness {
    let server: ScriptedServer

    /// Serves scripted connections for the duration of `body`.
    static func run(_ flavor: Flavor, _ body: (ScriptedServerHarness) async throws -> Void) async throws {
        let server = ScriptedServer(flavor: flavor)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await server.serve() }
            defer { group.cancelAll() }
            try await body(ScriptedServerHarness(server: server))
        }
    }

    func makeTransport() async throws -> any EventTransport {
        server.flavor.makeTransport(host: "scripted.invalid", connector: server.connector)
    }

    func identity(_ user: TransportConformance.User) -> TransportIdentity {
        let userId = Conformance.userId(user)
        return TransportIdentity(userId: userId, orgId: Conformance.orgId, tokens: .constant("token-of-\(userId)"))
    }

    func target(_ stream: TransportConformance.Stream, for user: TransportConformance.User) -> SubscriptionRequest.Target {
        Conformance.target(server.flavor.kind, stream, userId: Conformance.userId(user))
    }

    func rejectedTarget(for user: TransportConformance.User) -> SubscriptionRequest.Target {
        Conformance.target(server.flavor.kind, .first, userId: Conformance.outsider)
    }

    func deliver(_ marker: String, on stream: TransportConformance.Stream, for user: TransportConformance.User) async throws {
        let kind = server.flavor.kind
        await server.deliver(
            Conformance.payload(kind, stream, marker: marker),
            to: Conformance.address(target(stream, for: user)))
    }

    func dropConnections() async throws { server.dropConnections() }

    func rejectCredentials(_ reject: Bool) async throws { server.rejectCredentials(reject) }
}
