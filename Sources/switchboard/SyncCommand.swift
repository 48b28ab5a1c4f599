import ArgumentParser
import Foundation
import SwitchboardCore
import SwitchboardNIO
import SwitchboardSync

/// `switchboard sync`: fetch what a backend published since a checkpoint, with progress.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Catch up on published events over the sync stream (REST fallback), with progress.",
        discussion: """
            Fetches every event published after the checkpoint, first over the WebSocket sync \
            stream (URL/v1/sync/stream), falling back to GET URL/sync/pull in pages when the \
            stream is missing, refuses or drops; no event is fetched twice. With --checkpoint \
            FILE the checkpoint is loaded from FILE (it wins over --since) and saved after each \
            batch, atomically, so an interrupted sync resumes where it stopped.

            Progress goes to standard error: a bar redrawn in place on a terminal, one line per \
            update (`progress 4200/10000`) when standard error is a file or pipe, at most ten a \
            second, and always a final exact one. --print-events writes each event to standard \
            output as one JSON line ({"channel","event","id","publishedAt"}). The last line on \
            standard output is a summary.

            Exit status: 0 on success; 1 when the sync fails (the events fetched before stay \
            checkpointed).

            Examples:
              switchboard sync --url http://127.0.0.1:8080 --checkpoint ./sync.checkpoint
              switchboard sync --url https://api.example.com --since 2026-11-22T10:00:00Z --print-events > events.jsonl
            """)

    @Option(help: ArgumentHelp("The server's http or https base URL.", valueName: "url"))
    var url: String

    @Option(help: ArgumentHelp(
        "Start after this RFC 3339 time, or after this checkpoint; ignored when --checkpoint FILE holds one.",
        valueName: "time-or-checkpoint"))
    var since: String?

    @Option(help: ArgumentHelp("Load the checkpoint from FILE and save it there after every batch.", valueName: "file"))
    var checkpoint: String?

    @Option(name: .customLong("header"), help: ArgumentHelp(
        "An extra request header, as 'Name: value' (repeatable), such as an Authorization header.", valueName: "header"))
    var headers: [String] = []

    @Option(help: ArgumentHelp("Events per REST page (1–1000).", valueName: "n"))
    var pageSize = 100

    @Flag(help: "Write each event to standard output as one JSON line.")
    var printEvents = false

    @Option(help: ArgumentHelp("PEM file with extra CA certificates to trust for wss.", valueName: "file"))
    var caFile: String?

    @Flag(help: "Allow plaintext ws:// and http:// to a host other than this machine (credentials travel unencrypted).")
    var allowPlaintext = false

    func validate() throws {
        guard let base = URL(string: url), let scheme = base.scheme?.lowercased(), ["http", "https"].contains(scheme),
              base.host != nil
        else { throw ValidationError("--url \(url) is not an http or https URL with a host") }
        guard (1...1000).contains(pageSize) else { throw ValidationError("--page-size must be 1–1000, not \(pageSize)") }
        _ = try parsedHeaders()
    }

    func parsedHeaders() throws -> [(name: String, value: String)] {
        try headers.map { header in
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
                throw ValidationError("--header '\(header)' is not 'Name: value'")
            }
            return (String(header[..<colon]).trimmingCharacters(in: .whitespaces),
                    String(header[header.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
    }

    /// `--since` as a checkpoint: a time is normalised to the wire's RFC 3339 form, anything
    /// else passes through as an opaque checkpoint.
    var sinceCheckpoint: SyncCheckpoint? {
        guard let since else { return nil }
        if let date = ISO8601Timestamp.date(from: since) { return SyncCheckpoint(publishedAfter: date) }
        return SyncCheckpoint(rawValue: since)
    }

    func run() async throws {
        let console = Console.shared
        var configuration = SyncClient.Configuration(baseURL: URL(string: url)!)
        configuration.pullLimit = pageSize
        let extraHeaders = try parsedHeaders()
        configuration.headers = { extraHeaders }
        configuration.allowsPlaintextToRemoteHosts = allowPlaintext
        let client = SyncClient(configuration: configuration, connector: try NIOWebSocketConnector.trusting(caFile: caFile, allowPlaintext: allowPlaintext))
        let store: any CheckpointStore = checkpoint.map { FileCheckpointStore(path: $0) } ?? InMemoryCheckpointStore()
        let meter = ProgressMeter(terminal: isatty(STDERR_FILENO) != 0)
        let printEvents = printEvents
        let summary: SyncSummary
        do {
            summary = try await client.catchUp(since: sinceCheckpoint, store: store, progress: meter.show) { events in
                guard printEvents else { return }
                for event in events { console.out(try Self.line(event)) }
            }
        } catch {
            console.err("Error: \(FailureText.describe(error))")
            throw ExitCode.failure
        }
        let route = summary.streamFailure.map { "REST fallback after the stream failed (\($0.message)), \(summary.pullRequests) page(s)" }
            ?? "sync stream"
        console.out("synced \(summary.deliveredEvents) events over the \(route); checkpoint \(summary.checkpoint?.rawValue ?? "none")")
    }

    static func line(_ event: SyncEvent) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(event), as: UTF8.self)
    }
}

/// Shows sync progress on standard error: a bar redrawn in place on a terminal, plain lines
/// otherwise. The client already throttles updates to ten a second.
struct ProgressMeter: Sendable {
    let terminal: Bool

    func show(_ progress: SyncProgress) {
        let handle = FileHandle.standardError
        guard terminal else {
            handle.write(Data("progress \(Self.fraction(progress))\(progress.isFinal ? " (final)" : "")\n".utf8))
            return
        }
        let width = 30
        let filled = progress.total.map { total in total == 0 ? width : min(width, progress.processed * width / total) } ?? 0
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let percent = progress.total.map { total in total == 0 ? " 100%" : " \(min(100, progress.processed * 100 / total))%" } ?? ""
        handle.write(Data("\r[\(bar)] \(Self.fraction(progress))\(percent)\u{1B}[K\(progress.isFinal ? "\n" : "")".utf8))
    }

    /// `4200/10000`, or `4200/?` before the server has said how many there are.
    static func fraction(_ progress: SyncProgress) -> String {
        "\(progress.processed)/\(progress.total.map(String.init) ?? "?")"
    }
}
