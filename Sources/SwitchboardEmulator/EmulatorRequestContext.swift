import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// The request context of every emulator route: the basic WebSocket context plus the TCP channel,
/// which the abort fault needs.
struct EmulatorRequestContext: RequestContext, WebSocketRequestContext {
    var coreContext: CoreRequestContextStorage
    let webSocket: WebSocketHandlerReference<Self>
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}
