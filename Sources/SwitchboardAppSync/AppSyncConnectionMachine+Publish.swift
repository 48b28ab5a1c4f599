import SwitchboardCore

/// Publishing over the socket: a publish made while connecting waits for the acknowledged
/// connection; one made while signed out or stopped fails at once. Each has a deadline from the
/// moment it was asked for, and each ends in exactly one ``Extra/completePublish(id:_:)``: the
/// server's per-event result, its refusal, a timeout, or the connection ending first.
extension AppSyncConnectionMachine {
    struct PendingPublish: Equatable {
        var channel: String
        var events: [String]
        var deadline: Duration
        /// The socket it was sent on; nil while it waits for a connection.
        var sentOn: ConnectionID?
    }

    /// Publishes `events` (JSON texts, already validated) to `channel`.
    /// - Returns: The wire id the answer will carry, and what to do now.
    mutating func publish(channel: String, events: [String], timeout: Duration, at now: Duration) -> (id: String, actions: [Action]) {
        let id = nextWireID("p")
        guard signedIn, phase != .stopped else {
            let error = SwitchboardError(code: .network, message: "the transport is not connected (connect first, or sign in again)")
            return (id, [.transport(.completePublish(id: id, .failure(error)))])
        }
        publishes[id] = PendingPublish(channel: channel, events: events, deadline: now + timeout)
        publishOrder.append(id)
        guard case .connected = phase else { return (id, []) }
        return (id, sendPublish(id))
    }

    /// Sends what waited for the connection, in the order it was asked for.
    mutating func sendQueuedPublishes(at now: Duration) -> [Action] {
        publishOrder.filter { publishes[$0]?.sentOn == nil }.flatMap { sendPublish($0) }
    }

    private mutating func sendPublish(_ id: String) -> [Action] {
        guard let publish = publishes[id] else { return [] }
        publishes[id]?.sentOn = current
        return [.send(current, .publish(id: id, channel: publish.channel, events: publish.events))]
    }

    /// `publish_success`, `publish_error`, or an `error` carrying a publish's id.
    mutating func answerPublish(_ message: AppSyncServerMessage) -> [Action] {
        switch message {
        case .publishSuccess(let id, let result):
            return complete(id, .success(result))
        case .publishError(let id?, let errors), .error(let id?, let errors):
            let unauthorized = errors.contains(where: \.isAuthorizationFailure)
            return complete(id, .failure(SwitchboardError(
                code: unauthorized ? .sessionExpired : .publishRejected, message: "the server refused the publish: \(describe(errors))")))
        default:
            return []
        }
    }

    /// Fails every publish whose socket matches (nil: not sent yet).
    mutating func failPublishes(_ error: SwitchboardError, where matches: (ConnectionID?) -> Bool) -> [Action] {
        publishOrder.filter { publishes[$0].map { matches($0.sentOn) } ?? false }.flatMap { complete($0, .failure(error)) }
    }

    /// Publishes whose deadline passed.
    mutating func publishTimeouts(at now: Duration) -> [Action] {
        publishOrder.filter { (publishes[$0]?.deadline).map { now >= $0 } ?? false }.flatMap { id in
            let sent = publishes[id]?.sentOn != nil
            return complete(id, .failure(SwitchboardError(
                code: .timeout,
                message: sent
                    ? "no answer to the publish in time; the events may or may not have been published"
                    : "no connection in time; nothing was published")))
        }
    }

    /// Ends a publish the transport could not send (no credentials) or no longer waits for.
    mutating func cancelPublish(id: String, _ error: SwitchboardError) -> [Action] { complete(id, .failure(error)) }

    private mutating func complete(_ id: String, _ result: Result<AppSyncPublishResult, SwitchboardError>) -> [Action] {
        guard publishes.removeValue(forKey: id) != nil else { return [] }
        publishOrder.removeAll { $0 == id }
        return [.transport(.completePublish(id: id, result))]
    }
}
