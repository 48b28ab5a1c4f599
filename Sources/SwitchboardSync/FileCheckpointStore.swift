import Foundation
import SwitchboardCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``CheckpointStore`` in one file, written atomically: a crash or power loss while saving
/// leaves either the old checkpoint or the new one, never a mix.
///
/// A save writes the checkpoint to `<file>.tmp`, flushes it to disk, then renames it over the
/// file (an atomic replacement on POSIX file systems). A torn temporary file left by a crash is
/// never read and is overwritten by the next save. The file holds the checkpoint's text followed
/// by a newline; a file without that final newline is reported as damaged rather than half read.
public struct FileCheckpointStore: CheckpointStore {
    /// The file that holds the checkpoint.
    public let path: String

    /// Creates a store; nothing is read or written until ``load()`` or ``save(_:)``.
    /// - Parameter path: The checkpoint file. Its directory must exist.
    public init(path: String) { self.path = path }

    /// The temporary file a save writes before renaming it over ``path``.
    public var temporaryPath: String { path + ".tmp" }

    /// Reads the checkpoint.
    /// - Returns: The checkpoint, or nil when the file does not exist.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` ``/SwitchboardCore/SwitchboardError/Code/checkpointStorageFailed`` when the
    ///   file cannot be read or is damaged.
    public func load() throws -> SyncCheckpoint? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw SwitchboardError(code: .checkpointStorageFailed, message: "cannot read the checkpoint file \(path)", cause: error)
        }
        let text = String(decoding: data, as: UTF8.self)
        guard text.hasSuffix("\n"), text.count > 1 else {
            throw SwitchboardError(
                code: .checkpointStorageFailed, message: "the checkpoint file \(path) is damaged (\(data.count) bytes, no final newline)")
        }
        return SyncCheckpoint(rawValue: String(text.dropLast()))
    }

    /// Saves the checkpoint: writes and flushes the temporary file, then renames it over the file.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` ``/SwitchboardCore/SwitchboardError/Code/checkpointStorageFailed`` when
    ///   writing fails; the previous checkpoint is then still in place.
    public func save(_ checkpoint: SyncCheckpoint) throws {
        let bytes = Array((checkpoint.rawValue + "\n").utf8)
        try Self.writeDurably(bytes, to: temporaryPath)
        guard rename(temporaryPath, path) == 0 else {
            throw Self.failure("cannot rename \(temporaryPath) to \(path)")
        }
    }

    private static func writeDurably(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw failure("cannot open \(path)") }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard result > 0 else { throw failure("cannot write \(path)") }
            written += result
        }
        guard fsync(descriptor) == 0 else { throw failure("cannot flush \(path)") }
    }

    private static func failure(_ message: String) -> SwitchboardError {
        SwitchboardError(code: .checkpointStorageFailed, message: "\(message): \(String(cString: strerror(errno)))")
    }
}
