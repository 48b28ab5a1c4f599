import Foundation
import SwitchboardCore

/// Writes every frame in and out, per connection, to a JSON Lines fixture file. See the
/// "Recording format" article.
final class FrameRecorder: Sendable {
    private let handle: LockedValue<FileHandle>
    private let elapsed: @Sendable () -> Duration

    /// Creates (or truncates) the file.
    /// - Throws: ``SwitchboardError`` `invalidConfiguration` if the file cannot be created.
    init(path: String, clock: any Clock<Duration>) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw SwitchboardError(code: .invalidConfiguration, message: "cannot create recording file \(path)")
        }
        self.handle = LockedValue(handle)
        self.elapsed = Self.stopwatch(clock)
    }

    private static func stopwatch<C: Clock>(_ clock: C) -> @Sendable () -> Duration where C.Duration == Duration {
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    /// The direction of a recorded frame.
    enum Direction: String { case incoming = "in", outgoing = "out" }

    /// Appends one line. Values of an `authorization` object are replaced by `"REDACTED"`.
    func record(connection: Int, endpoint: String, protocol name: String, direction: Direction, frame: String) {
        let offset = elapsed()
        let offsetMs = Double(offset.components.seconds) * 1000 + Double(offset.components.attoseconds) / 1e15
        let line = JSONText.encode([
            "connection": connection, "endpoint": endpoint, "protocol": name, "direction": direction.rawValue,
            "offsetMs": (offsetMs * 1000).rounded() / 1000, "frame": Self.redacted(frame),
        ]) + "\n"
        handle.withLock { $0.write(Data(line.utf8)) }
    }

    /// Closes the file.
    func close() { handle.withLock { try? $0.close() } }

    static func redacted(_ frame: String) -> String { CredentialRedaction.redacted(frame) }
}
