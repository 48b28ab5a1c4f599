import Foundation
import SwitchboardCore

/// Writes whole lines to standard output and standard error, flushed as they are written, from
/// any task. Lines from concurrent writers never interleave.
final class Console: Sendable {
    static let shared = Console()

    private let lock = LockedValue(())

    /// Writes `line` and a newline to standard output and flushes, so a pipe reader sees each
    /// event as it arrives.
    func out(_ line: String) { write(line, to: FileHandle.standardOutput) }

    /// Writes `line` and a newline to standard error.
    func err(_ line: String) { write(line, to: FileHandle.standardError) }

    /// Whether standard output is a terminal (colours and alignment) or a pipe (plain lines).
    var isTerminal: Bool { isatty(STDOUT_FILENO) != 0 }

    private func write(_ line: String, to handle: FileHandle) {
        lock.withLock { _ in
            handle.write(Data((line + "\n").utf8))
        }
    }
}
