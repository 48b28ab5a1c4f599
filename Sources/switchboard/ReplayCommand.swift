import ArgumentParser
import Foundation
import SwitchboardTesting

/// `switchboard replay FIXTURE`: what a consumer would get from a recorded conversation.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a recorded fixture through its transport and print the typed streams a consumer gets.",
        discussion: """
            Plays the server's side of FIXTURE (JSON Lines, the emulator's recording format; see \
            MIGRATION.md) to the transport it was recorded on, checks every frame the client \
            sends against the recording, and prints one JSON line per typed value, stream by \
            stream, as `listen` does; then the error codes, the connection states and how the \
            replay went. Time moves on a manual clock as the recording says: nothing waits.

            Exit status: 0 when the client behaved as recorded, 1 when it parted from the \
            recording (the first difference is printed), 2 when FIXTURE cannot be read.

            Example:
              switchboard replay Tests/MigrationTests/Fixtures/all-event-types/appsync.jsonl
            """)

    /// Exit status when the client did not behave as recorded.
    static let mismatchExitCode = ExitCode(1)
    /// Exit status when the fixture cannot be read.
    static let unreadableExitCode = ExitCode(2)

    @Argument(help: ArgumentHelp("The fixture to replay.", valueName: "fixture"))
    var fixture: String

    func run() async throws {
        let console = Console.shared
        let replay: FixtureReplay
        do {
            replay = try FixtureReplay(path: fixture)
        } catch {
            console.err("Error: \(error)")
            throw Self.unreadableExitCode
        }
        console.out("fixture: \(replay.summary)")
        let (observation, report) = try await replay.run()
        for line in observation.eventLines() { console.out(try line.json()) }
        console.out("values: \(observation.countsSummary)")
        console.out("errors: \(observation.errors.isEmpty ? "none" : observation.errors.map(\.description).joined(separator: ", "))")
        console.out("states: \(observation.states.map(\.description).joined(separator: " → "))")
        console.out("replay: \(report.summary)")
        for mismatch in report.mismatches { console.out("mismatch: \(mismatch)") }
        if !report.mismatches.isEmpty { throw Self.mismatchExitCode }
    }
}

/// `switchboard parity --graphql FIXTURE --appsync FIXTURE`: do consumers see the same thing?
struct ParityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parity",
        abstract: "Replay a legacy and an AppSync Events fixture and print where the typed streams differ.",
        discussion: """
            Replays each fixture through its own transport into a BackendNotifier (as `replay` \
            does) and compares what consumers get: the eleven value streams in order, apart \
            from the metadata only AppSync Events carries (eventType, timestamp), and, unless \
            --values-only, the error codes and connection states. Prints each stream's counts, \
            one line per difference (the stream and the first position where they part) and a \
            summary.

            Exit status: 0 when consumers see the same, 1 when they do not or a replay parted \
            from its recording, 2 when a fixture cannot be read.

            Example:
              switchboard parity --graphql fixtures/reconnect/graphql-ws.jsonl \\
                                 --appsync fixtures/reconnect/appsync.jsonl
            """)

    @Option(help: ArgumentHelp("The fixture recorded on the legacy GraphQL transport.", valueName: "fixture"))
    var graphql: String

    @Option(help: ArgumentHelp("The fixture recorded on AppSync Events.", valueName: "fixture"))
    var appsync: String

    @Flag(help: "Compare the value streams only, not the error codes and connection states.")
    var valuesOnly = false

    func validate() throws {
        // Each side must be what its option says, or the comparison proves nothing.
        for (path, kind) in [(graphql, "graphql"), (appsync, "appsync")] {
            guard let replay = try? FixtureReplay(path: path) else { continue }
            guard replay.dialect.kind.rawValue == kind else {
                throw ValidationError("--\(kind) \(path) was recorded on \(replay.dialect.rawValue), not on \(kind)")
            }
        }
    }

    func run() async throws {
        let console = Console.shared
        let legacy: FixtureReplay
        let appSync: FixtureReplay
        do {
            legacy = try FixtureReplay(path: graphql)
            appSync = try FixtureReplay(path: appsync)
        } catch {
            console.err("Error: \(error)")
            throw ReplayCommand.unreadableExitCode
        }
        var parted = false
        var observations: [NotifierObservation] = []
        for (name, replay) in [("graphql", legacy), ("appsync", appSync)] {
            let (observation, report) = try await replay.run()
            console.out("\(name): \(replay.summary)")
            console.out("\(name): \(observation.countsSummary); replay: \(report.summary)")
            for mismatch in report.mismatches { console.out("\(name): mismatch: \(mismatch)") }
            parted = parted || !report.mismatches.isEmpty
            observations.append(observation.withoutTransportMetadata())
        }
        // Read as "AppSync Events gives X where the legacy transport gives Y".
        let differences = observations[1].differences(from: observations[0], includingErrorsAndStates: !valuesOnly)
        for difference in differences { console.out("differs: \(difference)") }
        let compared = valuesOnly ? "value streams" : "value streams, error codes and connection states"
        console.out(differences.isEmpty
            ? "parity: consumers see the same \(compared) on both transports"
            : "parity: \(differences.count) difference(s) in the \(compared) (AppSync Events ≠ legacy)")
        if parted || !differences.isEmpty { throw ReplayCommand.mismatchExitCode }
    }
}
