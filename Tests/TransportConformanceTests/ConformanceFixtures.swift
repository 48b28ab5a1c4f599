import Foundation
import Logging
import Switchboard
import SwitchboardAppSync
import SwitchboardCore
import SwitchboardGraphQL
import SwitchboardTesting

/// The four ways the package talks to the backend: AppSync Events, and the legacy GraphQL
/// transport in each of its three dialects.
enum Flavor: String, CaseIterable, Sendable, CustomStringConvertible {
    case appSyncEvents = "appsync-events"
    case graphQLWS = "graphql-ws"
    case graphQLTransportWS = "graphql-transport-ws"
    case appSyncGraphQL = "appsync-graphql"

    var description: String { rawValue }
    var kind: TransportKind { self == .appSyncEvents ? .appsync : .graphql }

    /// A transport for `host` (`127.0.0.1:<port>` of the emulator, or any name for a scripted
    /// server) that reconnects at once (unless told otherwise) and authorizes with the identity's
    /// tokens.
    func makeTransport(
        host: String, connector: any WebSocketConnector, clock: ManualClock = ManualClock(),
        reconnectPolicy: ReconnectPolicy = .fixedDelay(.zero),
        logger: Logger = Logger(label: "conformance.transport", factory: { _ in SwiftLogNoOpLogHandler() })
    ) -> any EventTransport {
        let dialect: GraphQLProtocol
        switch self {
        case .appSyncEvents:
            return AppSyncEventsSubscriber(
                configuration: .init(
                    realtimeURL: URL(string: "ws://\(host)/event/realtime")!, authorization: .sessionToken,
                    reconnectPolicy: reconnectPolicy, clock: clock, logger: logger),
                connector: connector)
        case .graphQLWS: dialect = .graphQLWS
        case .graphQLTransportWS: dialect = .graphQLTransportWS
        case .appSyncGraphQL: dialect = .appSyncGraphQL
        }
        return GraphQLSubscriber(
            configuration: .init(
                url: URL(string: "ws://\(host)/graphql")!, wireProtocol: dialect, reconnectPolicy: reconnectPolicy,
                appSyncHost: host, clock: clock, logger: logger),
            connector: connector)
    }
}

/// The users, streams and events every harness of this target uses.
enum Conformance {
    static let orgId = "conformance-org"
    /// A user nobody connects as: subscribing to one of its streams is refused.
    static let outsider = "someone-else"

    static func userId(_ user: TransportConformance.User) -> String {
        switch user {
        case .first: "conformance-user-1"
        case .second: "conformance-user-2"
        }
    }

    /// The channel below the user's, the legacy subscription, and the payload field that carries
    /// the marker, of each stream.
    static func stream(_ stream: TransportConformance.Stream) -> (relative: String, legacy: LegacySubscription, field: String) {
        switch stream {
        case .first: ("roleChanged", .roleChange, "reason")
        case .second: ("archive/stateChanged", .archiveState, "archiveId")
        }
    }

    static func channel(_ stream: TransportConformance.Stream, userId: String) -> String {
        "vortex-app/user/\(userId)/\(Self.stream(stream).relative)"
    }

    /// What a `kind` transport subscribes to for `stream` of `userId`.
    static func target(_ kind: TransportKind, _ stream: TransportConformance.Stream, userId: String) -> SubscriptionRequest.Target {
        switch kind {
        case .appsync:
            return .channel(channel(stream, userId: userId))
        default:
            let identity = TransportIdentity(userId: userId, orgId: orgId, tokens: .constant(""))
            return .graphQL(Self.stream(stream).legacy.operation(for: identity))
        }
    }

    /// The AppSync-shaped event that carries `marker` (the emulator maps it to the legacy shape).
    static func event(_ stream: TransportConformance.Stream, marker: String) -> String {
        let eventType = stream == .first ? "user/roleChanged" : "archive/stateChanged"
        return #"{"eventType":"\#(eventType)","timestamp":"2026-11-22T10:00:00.000Z","\#(Self.stream(stream).field)":"\#(marker)"}"#
    }

    /// The envelope payload a `kind` transport delivers for `marker` on `stream`: the event, or a
    /// GraphQL result's `data` object.
    static func payload(_ kind: TransportKind, _ stream: TransportConformance.Stream, marker: String) -> String {
        switch kind {
        case .appsync: event(stream, marker: marker)
        default: #"{"\#(Self.stream(stream).legacy.field)":{"\#(Self.stream(stream).field)":"\#(marker)"}}"#
        }
    }

    /// Names what a target points at, the same way for a target and for a subscribe frame:
    /// the channel, or `<field>/<userId>` of a GraphQL operation.
    static func address(channel: String) -> String { channel.hasPrefix("/") ? String(channel.dropFirst()) : channel }

    static func address(query: String, variables: [String: Any]) -> String {
        let field = LegacySubscription.all.first { query.contains($0.field + "(") }?.field ?? "unknown"
        return "\(field)/\(variables["userId"] as? String ?? variables["orgId"] as? String ?? "")"
    }

    static func address(_ target: SubscriptionRequest.Target) -> String {
        switch target {
        case .channel(let channel): address(channel: channel)
        case .graphQL(let operation): address(query: operation.query, variables: operation.variables)
        }
    }

    /// Whether an address belongs to the ``outsider``.
    static func isRefused(_ address: String) -> Bool {
        address.split(separator: "/").contains { $0 == outsider }
    }
}
