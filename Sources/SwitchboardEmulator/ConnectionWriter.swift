import Metrics
import Logging
import NIOCore
import NIOWebSocket
import HummingbirdWebSocket

/// The single writer of one connection: writes queued frames in order and carries out the
/// fault commands (close, abort, stall, garbage, per-frame latency) on the injected clock.
struct ConnectionWriter: Sendable {
    let outbound: WebSocketOutboundWriter
    let channel: any Channel
    let faults: FaultState
    let clock: any Clock<Duration>
    let logger: Logger
    let record: @Sendable (FrameRecorder.Direction, String) -> Void

    static let garbageFrame = "\u{1}not-json{{"

    func drain(_ outbox: ConnectionOutbox) async throws {
        for await item in outbox.stream {
            switch item {
            case .text(let text):
                try await write(text)
            case .garbage:
                try await write(Self.garbageFrame)
            case .stall(let duration):
                logger.debug("stalling output", metadata: ["emulator.stall": "\(duration)"])
                try await clock.sleep(for: duration)
                outbox.pongs?.end()
            case .close(let code, let reason):
                logger.debug("closing by fault", metadata: ["emulator.close.code": "\(code)"])
                try await outbound.close(.init(codeNumber: Int(code)), reason: reason)
                return
            case .abort:
                logger.debug("closing TCP without a close frame by fault")
                try await channel.close()
                return
            }
        }
    }

    private func write(_ text: String) async throws {
        if let latency = faults.frameLatency { try await clock.sleep(for: latency) }
        logger.trace("out", metadata: ["emulator.frame": "\(text)"])
        record(.outgoing, text)
        try await outbound.write(.text(text))
        EmulatorMetrics.framesSent.increment()
    }
}
