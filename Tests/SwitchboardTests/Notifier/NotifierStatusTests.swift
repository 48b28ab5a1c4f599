import Foundation
import Observation
import Switchboard
import SwitchboardTesting
import Testing

/// Waits for the next change of what `read` reads, through `withObservationTracking`: install it
/// before causing the change, then `await changed()`.
@MainActor
struct ObservationProbe {
    private let changes: AsyncStream<Void>

    init(_ read: () -> Void) {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        withObservationTracking(read) {
            continuation.yield()
            continuation.finish()
        }
        changes = stream
    }

    /// True once `onChange` fired (suspends until it does).
    func changed() async -> Bool {
        for await _ in changes { return true }
        return false
    }
}

extension NotifierStatus {
    /// Suspends until `predicate` holds, woken by observation (no polling); returns early when
    /// the test is cancelled (its time limit), so the assertions after it fail.
    func waitUntil(_ predicate: (NotifierStatus) -> Bool) async {
        while !predicate(self), !Task.isCancelled {
            let probe = ObservationProbe { _ = (connectionState, lastError, streams) }
            if predicate(self) { return }
            _ = await probe.changed()
        }
    }
}

@MainActor
@Suite("NotifierStatus", .timeLimit(.minutes(1)))
struct NotifierStatusTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)

    static func presencePayload(_ kind: TransportKind) -> String {
        switch kind {
        case .appsync: AppSyncPayload.presence("cam-1", online: true)
        default: GraphQLPayload.deviceState("cam-1", fields: #""online":true"#)
        }
    }

    @Test("follows a notifier: requested, established on the wire, last event time, connection state, last error",
          arguments: [TransportKind.appsync, .graphql])
    func followsNotifier(kind: TransportKind) async throws {
        let transport = ScriptedTransport(kind: kind, behavior: .manual)
        let session = SessionSource()
        let notifier = BackendNotifier(transport: transport, session: session)
        let running = Task { try await notifier.run() }
        let status = NotifierStatus()

        // A consumer asks for presence before the model follows: the first statuses say so.
        var presence = await notifier.devicePresenceValues().makeAsyncIterator()
        var probe = ObservationProbe { _ = status.streams }
        let following = Task { await status.follow(notifier) }
        #expect(await probe.changed())
        #expect(status.streams == [.devicePresence: StreamStatus(isRequested: true, isEstablished: false, lastEventAt: nil)])

        // Signed in and connected: the connection state changes, the subscription is not yet established.
        session.update(NotifierHarness.signedIn())
        await transport.waitUntil { $0.identity != nil && !$0.subscriptions.isEmpty }
        probe = ObservationProbe { _ = status.connectionState }
        transport.emit(.connectionStateChanged(.connected))
        #expect(await probe.changed())
        #expect(status.connectionState == .connected)
        #expect(status.status(of: .devicePresence).isEstablished == false)

        // The server acknowledges it: established.
        let key = try #require(transport.state.subscriptions.keys.first)
        probe = ObservationProbe { _ = status.streams }
        transport.acknowledge(key)
        #expect(await probe.changed())
        #expect(status.status(of: .devicePresence) == StreamStatus(isRequested: true, isEstablished: true))

        // An event: its receive time.
        probe = ObservationProbe { _ = status.streams }
        transport.deliver(Self.presencePayload(kind), on: key, receivedAt: Self.receivedAt)
        #expect(await probe.changed())
        #expect(status.status(of: .devicePresence).lastEventAt == Self.receivedAt)
        #expect(await presence.next()?.online == true)

        // The connection drops with a keep-alive timeout: the error, and no longer established.
        let failure = SwitchboardError(code: .network, message: "keep-alive timeout: no frame from the server within 300 s")
        probe = ObservationProbe { _ = status.lastError }
        transport.dropConnection(error: failure)
        #expect(await probe.changed())
        #expect(status.lastError == failure)
        await status.waitUntil { $0.connectionState == .connecting(attempt: 1) && !$0.status(of: .devicePresence).isEstablished }
        #expect(status.status(of: .devicePresence) == StreamStatus(isRequested: true, isEstablished: false, lastEventAt: Self.receivedAt))

        // Reconnected, and the transport's held subscription acknowledged again.
        transport.emit(.connectionStateChanged(.connected))
        transport.acknowledge(key)
        await status.waitUntil { $0.status(of: .devicePresence).isEstablished }

        await notifier.shutDown()
        await following.value
        #expect(status.connectionState == .shutDown)
        _ = try await running.value
    }

    @Test("a stream whose consumer left is no longer requested; a refused subscription is requested but not established",
          arguments: [TransportKind.appsync, .graphql])
    func requestedAndRefused(kind: TransportKind) async throws {
        try await Self.following(kind, .automatic) { transport, notifier, status in
            await status.waitUntil { $0.connectionState == .connected }

            var probe = ObservationProbe { _ = status.streams }
            do {
                let role = await notifier.roleValues()
                #expect(await probe.changed())
                await status.waitUntil { $0.status(of: .role).isEstablished }
                #expect(status.status(of: .role) == StreamStatus(isRequested: true, isEstablished: true))
                probe = ObservationProbe { _ = status.streams }
                withExtendedLifetime(role) {}
            }
            // The consumer released its stream.
            #expect(await probe.changed())
            await status.waitUntil { $0.streams[.role] == nil }

            // A subscription the server refuses.
            let plan = await notifier.planValues()
            await transport.waitUntil { $0.established.count == 1 }
            let key = try #require(transport.state.subscriptions.keys.first)
            probe = ObservationProbe { _ = status.lastError }
            transport.reject(key, message: "subscription limit reached")
            #expect(await probe.changed())
            #expect(status.lastError?.code == .subscriptionRejected)
            await status.waitUntil { !$0.status(of: .plan).isEstablished }
            #expect(status.status(of: .plan) == StreamStatus(isRequested: true, isEstablished: false))
            withExtendedLifetime(plan) {}

        }
    }

    @Test("an error stops being current when the notifier connects after it; one reported after the connect stays",
          arguments: [TransportKind.appsync, .graphql])
    func lastErrorClearsOnReconnect(kind: TransportKind) async throws {
        try await Self.following(kind, .manual) { transport, notifier, status in
            await transport.waitUntil { $0.identity != nil }
            transport.emit(.connectionStateChanged(.connected))
            await status.waitUntil { $0.connectionState == .connected }

            // A keep-alive timeout drops the connection: the banner shows it while reconnecting.
            let stall = SwitchboardError(code: .network, message: "keep-alive timeout: no frame from the server within 300 s")
            transport.dropConnection(error: stall)
            await status.waitUntil { $0.lastError == stall && $0.connectionState == .connecting(attempt: 1) }
            #expect(status.lastError == stall)

            // The reconnect succeeds: the error is no longer current.
            transport.emit(.connectionStateChanged(.connected))
            await status.waitUntil { $0.connectionState == .connected }
            #expect(status.lastError == nil)

            // An error after the connect stays, although the state is connected.
            let later = SwitchboardError(code: .decodingFailed, message: "an event payload could not be decoded")
            transport.emit(.error(later))
            await status.waitUntil { $0.lastError != nil }
            #expect(status.lastError == later)
            #expect(status.connectionState == .connected)

        }
    }

    /// Runs `body` with a signed-in notifier on a scripted transport and a model following it,
    /// then shuts the notifier down.
    static func following(
        _ kind: TransportKind, _ behavior: ScriptedTransport.Behavior,
        _ body: (ScriptedTransport, BackendNotifier, NotifierStatus) async throws -> Void
    ) async throws {
        let transport = ScriptedTransport(kind: kind, behavior: behavior)
        let session = SessionSource()
        let notifier = BackendNotifier(transport: transport, session: session)
        let running = Task { try await notifier.run() }
        let status = NotifierStatus()
        let following = Task { await status.follow(notifier) }
        session.update(NotifierHarness.signedIn())
        try await body(transport, notifier, status)
        await notifier.shutDown()
        await following.value
        _ = try await running.value
    }

    @Test("a model made for a preview shows what it was given")
    func preview() {
        let error = SwitchboardError(code: .network, message: "connect timeout: connecting to x took longer than 10 s")
        let status = NotifierStatus(
            connectionState: .waitingToReconnect(attempt: 2, delay: .seconds(4)), lastError: error,
            streams: [.role: StreamStatus(isRequested: true)])
        #expect(status.connectionState == .waitingToReconnect(attempt: 2, delay: .seconds(4)))
        #expect(status.lastError == error)
        #expect(status.status(of: .role) == StreamStatus(isRequested: true, isEstablished: false, lastEventAt: nil))
        #expect(status.status(of: .plan) == StreamStatus())
    }
}
