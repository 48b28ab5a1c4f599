import Foundation
import SwitchboardCore
import SwitchboardEmulator
import SwitchboardSync
import Testing

/// A fresh directory for one test, removed afterwards.
func withTemporaryDirectory<R>(_ body: (String) throws -> R) throws -> R {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

@Suite("Checkpoint stores")
struct CheckpointStoreTests {
    @Test func inMemoryStoreKeepsTheLastSave() {
        let store = InMemoryCheckpointStore()
        #expect(store.load() == nil)
        store.save(SyncCheckpoint(rawValue: "a"))
        store.save(SyncCheckpoint(rawValue: "b"))
        #expect(store.load() == SyncCheckpoint(rawValue: "b"))
    }

    @Test func fileStoreRoundTripsAndSurvivesANewInstance() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/checkpoint"
            #expect(try FileCheckpointStore(path: path).load() == nil)
            try FileCheckpointStore(path: path).save(SyncCheckpoint(rawValue: "v1.e.41"))
            try FileCheckpointStore(path: path).save(SyncCheckpoint(rawValue: "v1.e.42"))
            #expect(try FileCheckpointStore(path: path).load() == SyncCheckpoint(rawValue: "v1.e.42"))
            #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
        }
    }

    @Test func aTornTemporaryFileFromACrashIsIgnored() throws {
        try withTemporaryDirectory { directory in
            let store = FileCheckpointStore(path: directory + "/checkpoint")
            try store.save(SyncCheckpoint(rawValue: "v1.e.7"))
            // A crash in the middle of the next save: half a checkpoint in the temporary file,
            // never renamed.
            try Data("v1.e.10".utf8.prefix(4)).write(to: URL(fileURLWithPath: store.temporaryPath))
            #expect(try FileCheckpointStore(path: store.path).load() == SyncCheckpoint(rawValue: "v1.e.7"))
            try store.save(SyncCheckpoint(rawValue: "v1.e.8"))
            #expect(try store.load() == SyncCheckpoint(rawValue: "v1.e.8"))
        }
    }

    @Test func anInterruptedWriteKeepsThePreviousCheckpoint() throws {
        try withTemporaryDirectory { directory in
            let store = FileCheckpointStore(path: directory + "/checkpoint")
            try store.save(SyncCheckpoint(rawValue: "v1.e.7"))
            // The temporary file cannot be written (a directory is in its way): the save fails
            // before anything reaches the checkpoint file.
            try FileManager.default.createDirectory(atPath: store.temporaryPath, withIntermediateDirectories: false)
            let error = #expect(throws: SwitchboardError.self) { try store.save(SyncCheckpoint(rawValue: "v1.e.8")) }
            #expect(error?.code == .checkpointStorageFailed)
            #expect(try store.load() == SyncCheckpoint(rawValue: "v1.e.7"))
        }
    }

    @Test func aDamagedCheckpointFileIsReportedNotHalfRead() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/checkpoint"
            try Data("v1.e.1".utf8).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: SwitchboardError.self) { try FileCheckpointStore(path: path).load() }
            #expect(error?.code == .checkpointStorageFailed)
        }
    }

    @Test func aCatchUpResumesFromTheFileAfterACrash() async throws {
        // The checkpoint file a crashed catch-up left (with a torn temporary file beside it) is
        // where the next process starts: it receives only what came after.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/checkpoint"
        let collected = Collected()
        let (later, summary) = try await withRunningEmulator(configuration: emulatorConfiguration()) { emulator, endpoints in
            try publish(50, on: emulator)
            _ = try await syncClient(endpoints).catchUp(store: FileCheckpointStore(path: path)) { _ in }
            try Data("v1.garbage".utf8).write(to: URL(fileURLWithPath: path + ".tmp"))
            let later = try publish(7, from: 51, on: emulator)
            let summary = try await syncClient(endpoints).catchUp(store: FileCheckpointStore(path: path), deliver: collected.deliver)
            return (later, summary)
        }
        #expect(collected.ids == later)
        #expect(try FileCheckpointStore(path: path).load() == summary.checkpoint)
    }
}
