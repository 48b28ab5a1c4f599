import Foundation
import SwitchboardEmulator

/// Where a soak's emulator runs.
///
/// The soak measures the memory of its own process. With the emulator in that process the
/// curve mixes server and client (the emulator keeps an event log of up to 100,000 entries), so
/// `switchboard soak` runs it as a child process by default and the figures are the client's alone.
package enum SoakEmulator: Sendable, Equatable {
    /// In the soak's own process (`switchboard soak --emulator in-process`): memory is client and
    /// emulator.
    case inProcess
    /// A child `switchboard serve` on 127.0.0.1, port 0, started from this executable and
    /// stopped when the soak ends or fails.
    case child(executable: URL)
    /// An emulator already running (`switchboard serve`) at this base URL, `http://127.0.0.1:<port>`.
    /// It must accept the soak's API key; its keep-alive interval should match the soak's.
    case external(baseURL: URL)

    /// Whether the emulator shares the soak's process (and so its memory figures).
    package var sharesProcess: Bool { self == .inProcess }
}

/// A fault or reset sent to the emulator; the same kinds in-process and over `POST /control/…`.
enum SoakServerCommand: Sendable, Equatable {
    case drop(code: UInt16, reason: String)
    case abort
    case stall(Duration)
    case garbage
    case rejectAuthentication(next: Int)
    /// A delay on every outgoing frame; nil removes it.
    case latency(Duration?)
    case reset
}

/// What the soak's driver needs from the emulator, wherever it runs.
protocol SoakServer: Sendable {
    /// The emulator's URLs.
    var endpoints: SwitchboardEmulator.Endpoints { get }
    /// How often the publisher sends what fell due: every 5 ms in-process, where a publish is a
    /// call; every 20 ms over HTTP, where each tick's events go in one request.
    var publishTick: Duration { get }
    /// The subscriptions the emulator's connections hold.
    func subscriptionCount() async throws -> Int
    /// Publishes `events`, in order, each to its channel.
    func publish(_ events: [(channel: String, payload: String)]) async throws
    /// Injects a fault or clears them all.
    func send(_ command: SoakServerCommand) async throws
}

/// The emulator in the soak's own process: every call is a method call.
struct InProcessSoakServer: SoakServer {
    let emulator: SwitchboardEmulator
    let endpoints: SwitchboardEmulator.Endpoints
    var publishTick: Duration { .milliseconds(5) }

    func subscriptionCount() -> Int { emulator.subscriptionCount }

    func publish(_ events: [(channel: String, payload: String)]) throws {
        for event in events { _ = try emulator.publish(channel: event.channel, event: event.payload) }
    }

    func send(_ command: SoakServerCommand) {
        switch command {
        case .drop(let code, let reason): emulator.dropAllConnections(code: code, reason: reason)
        case .abort: emulator.abortAllConnections()
        case .stall(let duration): emulator.stallConnections(for: duration)
        case .garbage: emulator.sendGarbageFrame()
        case .rejectAuthentication(let next): emulator.rejectAuthentication(nextConnections: next)
        case .latency(let latency): emulator.setFrameLatency(latency)
        case .reset: emulator.resetFaults()
        }
    }
}
