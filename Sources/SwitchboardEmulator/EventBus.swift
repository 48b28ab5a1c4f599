import Metrics
import SwitchboardCore

/// The one event bus behind every protocol endpoint and the in-process publish API.
///
/// Subscribers register a channel path (wildcards allowed) and a delivery closure; a publish
/// calls the closure of every matching subscription with the channel and the event's JSON text,
/// after appending it to the ``EventLog`` the sync endpoints read. Every publish path (AppSync
/// Events over WebSocket and HTTP, the in-process API) goes through ``publish(channel:event:)``.
/// Delivery closures must not block: they hand the event to their connection's outbox.
final class EventBus: Sendable {
    typealias Delivery = @Sendable (_ channel: ChannelPath, _ event: String) -> Void

    private struct Subscriber {
        var channel: ChannelPath
        var deliver: Delivery
    }

    private struct Key: Hashable {
        var connection: Int
        var id: String
    }

    private let subscribers = LockedValue<[Key: Subscriber]>([:])
    /// Everything published, for catch-up.
    let log: EventLog

    init(log: EventLog) { self.log = log }

    /// Registers (or replaces) connection `connection`'s subscription `id`.
    func subscribe(connection: Int, id: String, channel: ChannelPath, deliver: @escaping Delivery) {
        subscribers.withLock { $0[Key(connection: connection, id: id)] = Subscriber(channel: channel, deliver: deliver) }
    }

    /// Removes one subscription.
    func unsubscribe(connection: Int, id: String) {
        _ = subscribers.withLock { $0.removeValue(forKey: Key(connection: connection, id: id)) }
    }

    /// Removes every subscription of a connection.
    func removeAll(connection: Int) {
        subscribers.withLock { $0 = $0.filter { $0.key.connection != connection } }
    }

    /// Delivers `event` to every subscription matching `channel`.
    /// - Returns: How many subscriptions received it.
    @discardableResult
    func publish(channel: ChannelPath, event: String) -> Int {
        log.append(channel: channel.description, event: event)
        let targets = subscribers.withLock { state in
            state.values.filter { $0.channel.matches(channel) }.map(\.deliver)
        }
        EmulatorMetrics.eventsPublished.increment()
        for deliver in targets { deliver(channel, event) }
        return targets.count
    }

    /// Whether some connection holds a subscription under the client's id `id`.
    func holds(id: String) -> Bool { subscribers.withLock { $0.keys.contains { $0.id == id } } }

    /// The number of live subscriptions, across all connections.
    var subscriptionCount: Int { subscribers.withLock { $0.count } }

    /// The number of live subscriptions of each connection that has any.
    var subscriptionCounts: [Int: Int] {
        subscribers.withLock { state in state.keys.reduce(into: [:]) { $0[$1.connection, default: 0] += 1 } }
    }
}
