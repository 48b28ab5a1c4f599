import Foundation
import Switchboard
import SwitchboardNIO

extension TransportFactory {
    static func makeAppSync(
        endpoint: Endpoint, authorization: AuthSpec, reconnectPolicy: ReconnectPolicy, connector: NIOWebSocketConnector
    ) throws -> any EventTransport {
        throw CLIError("the AppSync Events transport is not part of this build yet; use --transport graphql")
    }
}
