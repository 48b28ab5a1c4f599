import Foundation
import Logging
import Switchboard
import SwitchboardGraphQL

/// The transport a soak runs the notifier on.
package enum SoakTransport: String, CaseIterable, Sendable, CustomStringConvertible {
    case appsync
    case graphQLWS = "graphql-ws"
    case graphQLTransportWS = "graphql-transport-ws"
    case appSyncGraphQL = "appsync-graphql"

    package var description: String { rawValue }

    /// The legacy GraphQL transport (any dialect).
    package var isLegacy: Bool { self != .appsync }

    package var kind: TransportKind { isLegacy ? .graphql : .appsync }

    var wireProtocol: GraphQLProtocol {
        switch self {
        case .appsync, .graphQLWS: .graphQLWS
        case .graphQLTransportWS: .graphQLTransportWS
        case .appSyncGraphQL: .appSyncGraphQL
        }
    }

    /// Parses a transport name; `graphql` is `graphql-ws`.
    package init(parsing text: String) throws(SoakError) {
        if text == "graphql" {
            self = .graphQLWS
            return
        }
        guard let transport = SoakTransport(rawValue: text) else {
            throw SoakError("unknown transport '\(text)'; allowed: \(Self.allCases.map(\.rawValue).joined(separator: ", ")), graphql")
        }
        self = transport
    }
}

/// What a soak does, for how long, and what it judges.
package struct SoakConfiguration: Sendable {
    /// How long events are published and faults injected (the quiesce comes after).
    package var duration: Duration
    /// Events published per second, over the nine streams in turn.
    package var rate: Int
    package var transport: SoakTransport
    /// Seeds the fault plan.
    package var seed: UInt64
    /// Whether the notifier catches up after gaps; off, losses are expected (and reported).
    package var catchUp = true
    /// The kinds of fault to inject; empty for none.
    package var faults: [ChaosFault.Kind] = ChaosFault.Kind.allCases
    /// The pause between faults, in milliseconds.
    package var faultPause: ClosedRange<Int> = 100...1500
    /// The emulator's keep-alive interval; the clients give up on a silent connection after
    /// three of them, so the longer stalls (up to four) trip the watchdogs.
    package var keepAliveInterval: Duration = .seconds(1)
    /// How long, after publishing stopped, delivery may take to catch up with it.
    package var quiesceTimeout: Duration = .seconds(60)
    /// How long to keep watching for late duplicates once every event arrived.
    package var settle: Duration = .seconds(1)
    /// How often memory is sampled (and progress reported).
    package var sampleInterval: Duration = .seconds(5)
    /// Whether malloc gives its free pages back to the kernel before each sample, so that the
    /// anonymous figure counts what the process uses rather than what glibc keeps for later.
    package var releaseFreePagesBeforeSampling = true
    /// Where the emulator runs; in this process unless set (`switchboard soak` runs a child, so
    /// the memory figures are the client's alone).
    package var emulator = SoakEmulator.inProcess
    /// The memory rule, or nil not to judge memory (in a shared test process, for one).
    package var memoryTrend: MemoryTrend?
    /// How long a `graphql-transport-ws` client has for `connection_init` (generous under load).
    package var graphQLConnectionInitTimeout: Duration = .seconds(60)
    /// The logger of the emulator, the transport and the notifier.
    package var logger = Logger(label: "switchboard.soak", factory: { _ in SwiftLogNoOpLogHandler() })
    /// Called at every memory sample with a one-line status.
    package var progress: (@Sendable (String) -> Void)?
    /// How far the client's wall clock (the notifier's `now`) runs ahead of this machine's
    /// (negative: behind). The emulator keeps this machine's clock unless
    /// ``backendClockOffset`` moves it.
    package var clockOffset: Duration = .zero
    /// A jump of the client's wall clock during the run, or nil.
    package var clockJump: SoakClockJump?
    /// How far the emulator's wall clock runs ahead of this machine's, for an emulator the soak
    /// starts (in process or a child); one already running keeps its own.
    package var backendClockOffset: Duration = .zero

    /// The client's wall clock: this machine's, moved by ``clockOffset`` and, from its moment on,
    /// by ``clockJump``.
    package func clientClock() -> SoakWallClock { SoakWallClock(offset: clockOffset, jump: clockJump) }

    package init(duration: Duration, rate: Int, transport: SoakTransport, seed: UInt64) {
        self.duration = duration
        self.rate = max(1, rate)
        self.transport = transport
        self.seed = seed
        let seconds = duration.seconds
        memoryTrend = MemoryTrend(warmUp: max(30, seconds / 4))
    }

    /// The emulator keeps this many events for catch-ups: 30 s of publishing, at least 10,000.
    var eventLogCapacity: Int { max(10_000, rate * 30) }
    /// The notifier remembers 5 s of live deliveries before it catches up to move its
    /// checkpoint, well inside what the log keeps.
    var rememberedDeliveries: Int { max(1_000, rate * 5) }
    /// The `connectionTimeoutMs` the emulator advertises: three keep-alive intervals.
    var connectionTimeoutMs: Int { Int(keepAliveInterval.seconds * 3000) }
}

/// A jump of the client's wall clock: by ``by`` (forward or back), ``at`` after the run began.
package struct SoakClockJump: Sendable, Equatable, CustomStringConvertible {
    package var by: Duration
    package var at: Duration

    package init(by: Duration, at: Duration) {
        self.by = by
        self.at = at
    }

    package var description: String { "\(SoakClockJump.signed(by)) at \(at.shortDescription)" }

    static func signed(_ duration: Duration) -> String {
        duration < .zero ? "-\((.zero - duration).shortDescription)" : "+\(duration.shortDescription)"
    }
}

/// The client's wall clock in a soak: this machine's, moved by an offset and, after a moment,
/// by a jump. The notifier reads it as its `now`; nothing it decides may depend on it.
package struct SoakWallClock: Sendable {
    let offset: Duration
    let jump: SoakClockJump?
    private let started = ContinuousClock.now

    init(offset: Duration, jump: SoakClockJump?) {
        self.offset = offset
        self.jump = jump
    }

    /// The client's time of day now.
    package func now() -> Date {
        var shift = offset
        if let jump, ContinuousClock.now - started >= jump.at { shift += jump.by }
        return Date().addingTimeInterval(shift.seconds)
    }

    /// How the report names it: nil for this machine's own clock.
    package var summary: String? {
        guard offset != .zero || jump != nil else { return nil }
        return "client clock \(SoakClockJump.signed(offset))" + (jump.map { ", jumping \($0)" } ?? "")
    }
}
