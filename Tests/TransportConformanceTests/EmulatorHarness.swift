import Crypto
import Foundation
import Logging
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardNIO
import SwitchboardTesting
import URLSessionTaskBridge

/// Runs the conformance suite's server side on the emulator, over loopback, with the transport on
/// the NIO engine or on `URLSessionWebSocketConnector`'s logic (its tasks bridged to the NIO
/// engine). Users sign in with JWTs, so each may use only its own channels.
struct EmulatorHarness: TransportConformanceHarness {
    static let secret = Array("conformance-jwt-secret".utf8)

    let flavor: Flavor
    let emulator: SwitchboardEmulator
    let endpoints: SwitchboardEmulator.Endpoints
    /// The client's side of every connection, to tell which subscriptions it has sent.
    let client: FixtureRecorder

    /// Starts an emulator on an ephemeral port for the duration of `body`.
    static func run(
        _ flavor: Flavor, engine: SocketEngine = .nio, _ body: (EmulatorHarness) async throws -> Void
    ) async throws {
        var configuration = SwitchboardEmulator.Configuration(
            port: 0, auth: .init(jwtSecret: secret),
            logger: Logger(label: "conformance.emulator", factory: { _ in SwiftLogNoOpLogHandler() }))
        // A real-time window: the emulator's 3 s default closed a connection whose init was
        // late under the whole suite on two cores (4408), which no check here is about.
        configuration.graphQLConnectionInitTimeout = .seconds(60)
        try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            let client = FixtureRecorder(wrapping: engine.connector(), clock: ContinuousClock())
            try await body(EmulatorHarness(flavor: flavor, emulator: emulator, endpoints: endpoints, client: client))
        }
    }

    func makeTransport() async throws -> any EventTransport {
        flavor.makeTransport(host: endpoints.host, connector: client)
    }

    func identity(_ user: TransportConformance.User) -> TransportIdentity {
        let userId = Conformance.userId(user)
        return TransportIdentity(userId: userId, orgId: Conformance.orgId, tokens: TokenProvider { _ in Self.token(subject: userId) })
    }

    func target(_ stream: TransportConformance.Stream, for user: TransportConformance.User) -> SubscriptionRequest.Target {
        Conformance.target(flavor.kind, stream, userId: Conformance.userId(user))
    }

    func rejectedTarget(for user: TransportConformance.User) -> SubscriptionRequest.Target {
        Conformance.target(flavor.kind, .first, userId: Conformance.outsider)
    }

    func deliver(_ marker: String, on stream: TransportConformance.Stream, for user: TransportConformance.User) async throws {
        // graphql-ws and graphql-transport-ws do not acknowledge subscriptions: wait until the
        // server holds every subscription the client has sent on its newest connection.
        while !clientSubscriptions().allSatisfy(emulator.holdsSubscription(id:)) {
            try await Task.sleep(for: .milliseconds(2))
        }
        try emulator.publish(
            channel: Conformance.channel(stream, userId: Conformance.userId(user)), event: Conformance.event(stream, marker: marker))
    }

    func dropConnections() async throws {
        emulator.dropAllConnections(code: 1001, reason: "conformance: dropped by the server")
    }

    func rejectCredentials(_ reject: Bool) async throws {
        if reject { emulator.rejectAuthentication(nextConnections: nil) } else { emulator.resetFaults() }
    }

    /// The wire ids the client subscribed on its newest connection and neither it unsubscribed
    /// nor the server refused or ended.
    private func clientSubscriptions() -> Set<String> {
        let entries = client.entries
        guard let newest = entries.map(\.connection).max() else { return [] }
        var ids: Set<String> = []
        for entry in entries where entry.connection == newest {
            guard case .frame(let direction, let text) = entry.event,
                let frame = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                let type = frame["type"] as? String, let id = frame["id"] as? String
            else { continue }
            switch (direction, type) {
            case (.clientToServer, "subscribe"), (.clientToServer, "start"): ids.insert(id)
            case (.clientToServer, _), (.serverToClient, "subscribe_error"), (.serverToClient, "error"),
                (.serverToClient, "complete"):
                ids.remove(id)
            default: break
            }
        }
        return ids
    }

    /// An HS256 JWT for `subject`, valid for an hour.
    static func token(subject: String) -> String {
        func encode(_ data: some DataProtocol) -> String {
            Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let claims = #"{"sub":"\#(subject)","exp":\#(Int(Date().timeIntervalSince1970) + 3600)}"#
        let unsigned = [#"{"alg":"HS256","typ":"JWT"}"#, claims].map { encode(Data($0.utf8)) }.joined(separator: ".")
        let signature = HMAC<SHA256>.authenticationCode(for: Data(unsigned.utf8), using: SymmetricKey(data: secret))
        return "\(unsigned).\(encode(Array(signature)))"
    }
}
