import SwitchboardSync

extension SwitchboardEmulator {
    /// A way for the sync stream (`/v1/sync/stream`) to fail, for testing a client's fallback.
    public struct SyncStreamFault: Sendable, Hashable, CustomStringConvertible {
        enum Kind: Hashable {
            case disabled
            case refuse(code: String, message: String)
            case drop(afterEvents: Int)
        }

        let kind: Kind

        /// The endpoint does not exist: the upgrade request is answered `404 Not Found`.
        public static let disabled = SyncStreamFault(kind: .disabled)

        /// The stream answers every request with `sync.stream.error {error, code}` and closes.
        /// - Parameters:
        ///   - code: The error's code; `UNAVAILABLE` by default.
        ///   - message: The error's message.
        public static func refuse(code: String = "UNAVAILABLE", message: String = "the sync stream is unavailable")
            -> SyncStreamFault
        { SyncStreamFault(kind: .refuse(code: code, message: message)) }

        /// The stream sends `start` and the first `count` events (the last batch cut short if need
        /// be), then closes the TCP connection without a close frame or `complete`.
        /// - Parameter count: How many events get through.
        public static func drop(afterEvents count: Int) -> SyncStreamFault {
            SyncStreamFault(kind: .drop(afterEvents: count))
        }

        public var description: String {
            switch kind {
            case .disabled: "disabled"
            case .refuse(let code, _): "refuse(\(code))"
            case .drop(let count): "drop(afterEvents: \(count))"
            }
        }
    }

    /// Makes the sync stream fail for every request from now on (nil: it works again).
    /// ``resetFaults()`` clears it too.
    /// - Parameter fault: How the stream fails.
    public func setSyncStreamFault(_ fault: SyncStreamFault?) { faults.syncStream = fault }

    /// Delays each answer of the sync endpoints by `latency` on the emulator's clock: every
    /// `GET /sync/pull` response, and the stream's `start` frame (its one round trip). Nil
    /// removes the delay.
    /// - Parameter latency: The simulated round-trip time.
    public func setSyncRoundTripLatency(_ latency: Duration?) { faults.syncRoundTripLatency = latency }

    /// Every event the log still holds, oldest first, as the sync endpoints serve them.
    public var loggedEvents: [SyncEvent] { log.events }
}
