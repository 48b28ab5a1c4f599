import SwitchboardCore

extension GraphQLDialect {
    /// A per-transport prefix for wire ids: for AppSync the first 20 hex digits of a UUID-shaped
    /// id (the counter fills the last 12), for the others a short tag.
    static func idPrefix(dialect: GraphQLProtocol, random: inout some RandomNumberGenerator) -> String {
        let high = random.next()
        let low = random.next()
        func hex(_ value: UInt64, _ digits: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, digits - text.count)) + text
        }
        guard dialect == .appSyncGraphQL else { return "" }
        let a = hex(high >> 32, 8)
        let b = hex((high >> 16) & 0xFFFF, 4)
        let c = hex(0x4000 | (high & 0x0FFF), 4)
        let d = hex(0x8000 | (low & 0x3FFF), 4)
        return "\(a)-\(b)-\(c)-\(d)-"
    }

    /// A server frame's kind and id for the trace log (never its payload).
    static func kind(of message: GraphQLServerMessage) -> String {
        switch message {
        case .connectionAck: "connection_ack"
        case .connectionError: "connection_error"
        case .keepAlive: "ka"
        case .ping: "ping"
        case .pong: "pong"
        case .subscriptionAck(let id): "start_ack \(id)"
        case .next(let id, _, _): "data \(id)"
        case .error(let id, _): "error \(id ?? "-")"
        case .complete(let id): "complete \(id)"
        }
    }

    /// A client frame's kind and id for the trace log (never its payload, which may carry a token).
    static func kind(of message: GraphQLClientMessage) -> String {
        switch message {
        case .connectionInit: "connection_init"
        case .subscribe(let id, _, _): "start \(id)"
        case .unsubscribe(let id): "stop \(id)"
        case .ping: "ping"
        case .pong: "pong"
        case .terminate: "connection_terminate"
        }
    }
}
