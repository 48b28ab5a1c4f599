import Foundation
import Switchboard
import SwitchboardAppSync
import SwitchboardNIO

extension TransportFactory {
    /// The AppSync Events transport: an API key authorizes as `x-api-key`; a JWT or Lambda token
    /// as `Authorization`, from the session's token provider.
    static func makeAppSync(
        endpoint: Endpoint, authorization: AuthSpec, reconnectPolicy: ReconnectPolicy, connector: any WebSocketConnector
    ) throws -> any EventTransport {
        let mode: AppSyncAuthorization =
            switch authorization {
            case .apiKey(let key): .apiKey(key)
            case .jwt, .lambda: .sessionToken
            }
        return AppSyncEventsSubscriber(
            configuration: .init(
                realtimeURL: endpoint.url, host: endpoint.httpURL == nil ? nil : endpoint.httpHost,
                authorization: mode, reconnectPolicy: reconnectPolicy),
            connector: connector)
    }
}
