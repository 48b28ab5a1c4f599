import Foundation
import Observation

/// The notifier's state for a user interface: the connection state, the last error that is
/// still current and, per
/// stream, whether it is requested, whether its subscription is established on the wire, and
/// when its last value came.
///
/// ```swift
/// struct StatusBadge: View {
///     let notifier: BackendNotifier
///     @State private var status = NotifierStatus()
///     var body: some View {
///         Text(status.connectionState == .connected ? "live" : "offline")
///             .task { await status.follow(notifier) }     // ends with the view
///     }
/// }
/// ```
///
/// The model is `@MainActor`: SwiftUI reads observable properties on the main actor and expects
/// them to change there, in step with the rest of the interface. Isolating the whole class to
/// the main actor makes every change happen there without locks, makes the class `Sendable`,
/// and lets views read it without `await`. ``follow(_:)`` reads the notifier's streams and hops
/// to the main actor once per change; the stream statuses keep only their newest value for it
/// (``BackendNotifier/streamStatuses()``), so a busy main actor is not queued up behind a burst
/// of events.
///
/// Nothing starts on its own: ``follow(_:)`` runs in the caller's task (SwiftUI's `.task`), and
/// stops when that task is cancelled or the notifier shuts down.
@MainActor
@Observable
public final class NotifierStatus {
    /// The notifier's connection state.
    public private(set) var connectionState: ConnectionState
    /// The newest error that is still current, nil when there is none.
    ///
    /// An error stops being current when the notifier connects after it: a reconnect that
    /// succeeded clears a keep-alive timeout, a refused connect or an expired session, so a
    /// banner bound to this property goes away once the notifier recovered. An error reported
    /// after the connect (a refused subscription, an undecodable payload) stays until the next
    /// connect or the next error. A consumer that needs every error reads
    /// ``BackendNotifier/errors()``.
    public private(set) var lastError: SwitchboardError?
    /// Every stream that a consumer requested or that delivered a value, with its status.
    public private(set) var streams: [NotifierStream: StreamStatus]

    /// Creates a status model; give values for previews, or leave the defaults and call
    /// ``follow(_:)``.
    /// - Parameters:
    ///   - connectionState: The connection state to show first.
    ///   - lastError: The error to show first.
    ///   - streams: The stream statuses to show first.
    public init(
        connectionState: ConnectionState = .idle, lastError: SwitchboardError? = nil,
        streams: [NotifierStream: StreamStatus] = [:]
    ) {
        self.connectionState = connectionState
        self.lastError = lastError
        self.streams = streams
    }

    /// The status of one stream; not requested, not established and without events when the
    /// notifier has not mentioned it.
    /// - Parameter stream: The stream.
    /// - Returns: Its status.
    public func status(of stream: NotifierStream) -> StreamStatus { streams[stream] ?? StreamStatus() }

    /// Follows `notifier`: its connection states, errors and stream statuses, until the notifier
    /// shuts down (the connection state then becomes ``/SwitchboardCore/ConnectionState/shutDown``) or the calling
    /// task is cancelled.
    /// - Parameter notifier: The notifier to show.
    public func follow(_ notifier: BackendNotifier) async {
        // States and errors come in one stream, in the notifier's order: an error reported before
        // a connect must not outlive it, and one reported after it must not be cleared by it.
        let changes = await notifier.statusChanges()
        let statuses = await notifier.streamStatuses()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.show(changes) }
            group.addTask { await self.show(statuses) }
        }
    }

    private func show(_ changes: AsyncStream<StatusChange>) async {
        for await change in changes {
            switch change {
            case .connectionState(let state) where state != connectionState:
                connectionState = state
                if state == .connected, lastError != nil { lastError = nil }
            case .connectionState:
                break
            case .error(let error):
                lastError = error
            }
        }
        // The notifier finishes its streams when it shuts down.
        if !Task.isCancelled, connectionState != .shutDown { connectionState = .shutDown }
    }

    private func show(_ statuses: AsyncStream<[NotifierStream: StreamStatus]>) async {
        for await next in statuses where next != streams { streams = next }
    }
}
