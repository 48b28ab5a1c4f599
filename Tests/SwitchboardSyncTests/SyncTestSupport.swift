import Foundation
import Logging
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardNIO
import SwitchboardSync
import SwitchboardTesting

let silentLogger = Logger(label: "switchboard.sync.tests", factory: { _ in SwiftLogNoOpLogHandler() })

func emulatorConfiguration(logCapacity: Int = 100_000, batchSize: Int = 500) -> SwitchboardEmulator.Configuration {
    var configuration = SwitchboardEmulator.Configuration(auth: .init(apiKeys: ["key"]), logger: silentLogger)
    configuration.eventLogCapacity = logCapacity
    configuration.syncStreamBatchSize = batchSize
    return configuration
}

/// Publishes `count` events in process, numbered from `start`, and returns their log ids.
@discardableResult
func publish(_ count: Int, from start: Int = 1, on emulator: SwitchboardEmulator) throws -> [String] {
    for n in start..<(start + count) {
        try emulator.publish(channel: "vortex-app/user/u1/device/stateChanged", event: #"{"n":\#(n)}"#)
    }
    return emulator.loggedEvents.suffix(count).map(\.id)
}

func syncClient(
    _ endpoints: SwitchboardEmulator.Endpoints, connector: (any WebSocketConnector)? = nil,
    http: any SyncHTTPClient = SyncHTTPClients.platformDefault(), clock: any Clock<Duration> = ContinuousClock(),
    pullLimit: Int = 100
) -> SyncClient {
    var configuration = SyncClient.Configuration(baseURL: URL(string: endpoints.syncBaseURL)!)
    configuration.pullLimit = pullLimit
    return SyncClient(
        configuration: configuration,
        connector: connector ?? NIOWebSocketConnector(configuration: .init(logger: silentLogger)),
        http: http, clock: clock, logger: silentLogger)
}

/// Collects what a catch-up delivers and reports, for assertions afterwards.
final class Collected: Sendable {
    private let state = LockedValue((batches: [[SyncEvent]](), progress: [SyncProgress]()))

    var events: [SyncEvent] { state.withLock { $0.batches.flatMap { $0 } } }
    var ids: [String] { events.map(\.id) }
    var batches: [[SyncEvent]] { state.withLock { $0.batches } }
    var progress: [SyncProgress] { state.withLock { $0.progress } }

    @Sendable func deliver(_ events: [SyncEvent]) { state.withLock { $0.batches.append(events) } }
    @Sendable func report(_ progress: SyncProgress) { state.withLock { $0.progress.append(progress) } }
}

extension [SyncProgress] {
    /// Whether processed never decreases and the total never changes once known.
    var isMonotone: Bool {
        zip(self, dropFirst()).allSatisfy { a, b in
            a.processed <= b.processed && (a.total == nil || a.total == b.total)
        }
    }
}
