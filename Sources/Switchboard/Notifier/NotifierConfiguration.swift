import Foundation
import SwitchboardCore

extension BackendNotifier {
    /// Settings that do not depend on the transport.
    public struct Configuration: Sendable {
        /// The AppSync Events channel namespace; `vortex-app` by default.
        public var namespace: String
        /// Catching up on what was missed during gaps; off (nil) by default. See ``CatchUp``.
        public var catchUp: CatchUp?
        /// How each consumer stream (every `…Values()`, ``BackendNotifier/connectionStates()``,
        /// ``BackendNotifier/errors()``) buffers values its consumer has not taken yet; bounded by
        /// default (``EventStreamBufferingPolicy/standard``, the newest 10,000). What a full
        /// buffer drops is counted in `switchboard.notifier.consumer_dropped` (dimension `stream`),
        /// and each overflow is logged and published as a ``ConsumerOverflowEvent``.
        public var bufferingPolicy: EventStreamBufferingPolicy
        /// Where network path changes come from; none by default. See ``NetworkPathMonitor``.
        public var networkPaths: (any NetworkPathMonitor)?
        /// How long a connection check (after a network change, or ``BackendNotifier/resume()``
        /// without a ``BackendNotifier/suspend()`` before it) waits for the server's answer before
        /// it replaces the connection; 800 ms by default: a round trip on a mobile network rarely takes longer,
        /// and a needless new connection costs less than a dead one kept (with catch-up, nothing is lost).
        public var connectionCheckTimeout: Duration
        /// This device's wall clock: the `receivedAt` of caught-up envelopes, and, read once when
        /// the notifier is made, the stand-in for the backend's clock when no sync answer carries
        /// `serverTime` (contract §6, "Clocks"). Nothing that decides whether an event is new
        /// compares it with the backend's times: the session's start and each connection's
        /// window are moments of a monotonic timeline, read in the backend's time as the sync
        /// answers teach it (<doc:CatchingUpAfterGaps>). The system's clock by default; tests
        /// pass one set off the backend's.
        public var now: @Sendable () -> Date

        /// Creates a configuration.
        /// - Parameters:
        ///   - namespace: The AppSync Events channel namespace.
        ///   - catchUp: Catching up after gaps; off by default.
        ///   - bufferingPolicy: How each consumer stream buffers; the newest 10,000 by default.
        ///   - networkPaths: Where network path changes come from; none by default.
        ///   - connectionCheckTimeout: How long a connection check waits for an answer; 800 ms by default.
        ///   - now: Where the time of day is read; the system's clock by default.
        public init(
            namespace: String = "vortex-app", catchUp: CatchUp? = nil,
            bufferingPolicy: EventStreamBufferingPolicy = .standard,
            networkPaths: (any NetworkPathMonitor)? = nil,
            connectionCheckTimeout: Duration = .milliseconds(800),
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.now = now
            self.namespace = namespace
            self.catchUp = catchUp
            self.bufferingPolicy = bufferingPolicy
            self.networkPaths = networkPaths
            self.connectionCheckTimeout = connectionCheckTimeout
        }
    }
}
