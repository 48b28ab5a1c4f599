import Foundation
import Switchboard
import SwitchboardAppSync
import SwitchboardGraphQL
import SwitchboardNIO

/// What an app team writes around Switchboard: one service that owns the `BackendNotifier` for
/// the app's lifetime, follows the app's sign-in, and consumes the streams the app needs.
///
/// - ``run()`` runs the notifier and the consumers until ``stop()``. Start it once, from a
///   long-lived task of the app (a SwiftUI `.task`, a `ServiceGroup`, the app delegate's task).
/// - ``signIn(userId:orgId:token:)`` and ``signOut()`` are called by the app's authentication
///   code: the notifier connects, subscribes and disconnects with the session.
/// - Which transport carries the events is configuration (`TransportSelection`); nothing here
///   depends on it.
final class BackendEventsService: Sendable {
    /// Where the backend is, for either transport.
    struct Backend: Sendable {
        /// The AppSync Events real-time endpoint (`wss://….appsync-realtime-api.…/event/realtime`).
        var appSyncRealtimeURL: URL
        /// How AppSync Events authorizes: in production usually `.sessionToken` (the token
        /// `signIn` hands over); the local emulator takes an API key.
        var appSyncAuthorization: AppSyncAuthorization
        /// The legacy GraphQL subscriptions endpoint.
        var graphQLURL: URL
    }

    private let notifier: BackendNotifier
    private let session = SessionSource()
    private let show: AppUpdate.Show

    /// Creates the service; nothing connects until ``run()`` runs and someone signs in.
    /// - Parameters:
    ///   - selection: The transport to use, resolved from configuration.
    ///   - backend: The endpoints.
    ///   - show: Receives every update the app would display.
    /// - Throws: `invalidConfiguration` when the transport cannot be built.
    init(selection: TransportSelection, backend: Backend, show: @escaping AppUpdate.Show) throws {
        self.show = show
        // Both transports are registered by name; the selection picks one (and a live switch another).
        var transports = TransportRegistry()
        transports.register(.appsync) {
            AppSyncEventsSubscriber(
                configuration: .init(realtimeURL: backend.appSyncRealtimeURL, authorization: backend.appSyncAuthorization),
                connector: NIOWebSocketConnector())
        }
        transports.register(.graphql) {
            GraphQLSubscriber(configuration: .init(url: backend.graphQLURL), connector: NIOWebSocketConnector())
        }
        notifier = try BackendNotifier(selection: selection, transports: transports, session: session)
    }

    /// The transport in use.
    var transport: TransportKind { notifier.transportKind }

    /// Runs the notifier and every consumer until ``stop()`` (or cancellation).
    func run() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Open the streams before the notifier runs, so that no event is missed; each is
            // consumed in a task of its own.
            await LegacyConsumers.start(notifier, in: &group, show: show)
            await PerChannelConsumers.start(notifier, in: &group, show: show)
            group.forEach(await notifier.connectionStates()) { [show] in show(.connection($0)) }
            group.forEach(await notifier.errors()) { [show] in show(.error($0.code, message: $0.message)) }
            group.addTask { try await self.notifier.run() }
            // Every stream ends when the notifier shuts down, so this returns after `stop()`.
            try await group.waitForAll()
        }
    }

    /// The user signed in (or switched organization): connect and subscribe as them.
    /// - Parameter token: Returns a fresh token whenever the transport connects.
    func signIn(userId: String, orgId: String, token: @escaping @Sendable () async throws -> String) {
        session.update(.signedIn(userId: userId, orgId: orgId) { _ in try await token() })
    }

    /// The user signed out: disconnect; the streams stay open for the next sign-in.
    func signOut() {
        session.update(.signedOut)
    }

    /// The app is quitting: shut the notifier down, which ends every stream and ``run()``.
    func stop() async {
        await notifier.shutDown()
    }
}
