import ArgumentParser
import Foundation
import SwitchboardContract

/// `switchboard schema`: the AppSync Events contract as an OpenAPI 3.1 document.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the bundled OpenAPI document of the event payloads, or check another version against it.",
        subcommands: [SchemaCheckCommand.self, SchemaPrintCommand.self])
}

/// `switchboard schema print`: writes the bundled document to standard output.
struct SchemaPrintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Write the bundled OpenAPI 3.1 document (YAML) to standard output.",
        discussion: """
            The document this build of Switchboard was made against, byte for byte as it is in \
            the repository (Sources/SwitchboardContract/Resources/appsync-events.openapi.yaml).

            Example:
              switchboard schema print > switchboard-contract.yaml
            """)

    func run() throws {
        FileHandle.standardOutput.write(Data(ContractSpec.bundledText.utf8))
    }
}

/// `switchboard schema check`: compares a spec with the bundled one (or another) and prints drift.
struct SchemaCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Report how a version of the OpenAPI spec differs from the bundled one in contract terms.",
        discussion: """
            Compares the event payloads FILE describes with those of the bundled document (or of \
            --against FILE2): events and fields that are missing from FILE, extra in FILE, or \
            changed (JSON type, format, required, enum values, bounds, channel). Descriptions, \
            examples, key order and schema names are not compared. YAML and JSON are both read.

            Exit status: 0 when there is no drift, 1 when there is, 2 when a file cannot be read \
            or is not a valid OpenAPI 3.1 document.

            Examples:
              switchboard schema check --spec backend/appsync-events.yaml
              switchboard schema check --spec new.json --against old.yaml
            """)

    /// Exit status when the versions differ.
    static let driftExitCode = ExitCode(1)
    /// Exit status when a file cannot be read or is not a valid OpenAPI document.
    static let invalidFileExitCode = ExitCode(2)

    @Option(help: ArgumentHelp("The spec to check (YAML or JSON).", valueName: "file"))
    var spec: String

    @Option(help: ArgumentHelp("The spec to compare with, instead of the bundled one.", valueName: "file"))
    var against: String?

    func run() throws {
        let reference: EventContract
        let referenceName: String
        let candidate: EventContract
        do throws(ContractError) {
            if let against {
                reference = try EventContract(contentsOf: URL(fileURLWithPath: against))
                referenceName = against
            } else {
                reference = try EventContract.bundled()
                referenceName = ContractSpec.bundledSourceName
            }
            candidate = try EventContract(contentsOf: URL(fileURLWithPath: spec))
        } catch {
            Console.shared.err("Error: \(error.message) [\(error.code)]")
            throw Self.invalidFileExitCode
        }

        let drift = ContractDrift(reference: reference, candidate: candidate)
        let console = Console.shared
        console.out("reference: \(referenceName) — \(reference.title) \(reference.version)")
        console.out("candidate: \(spec) — \(candidate.title) \(candidate.version)")
        for finding in drift.findings {
            console.out(finding.description)
        }
        console.out(drift.summary)
        if !drift.isEmpty { throw Self.driftExitCode }
    }
}
