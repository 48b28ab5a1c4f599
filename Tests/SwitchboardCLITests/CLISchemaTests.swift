import Foundation
import Testing

@Suite("switchboard schema", .timeLimit(.minutes(1)))
struct CLISchemaTests {
    /// A fresh directory for spec files, removed after the body.
    func withSpecDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("switchboard-schema-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    /// The bundled document, as `schema print` writes it.
    func printed() async throws -> String {
        let result = await (try await CLIProcess(["schema", "print"])).finish()
        #expect(result.status == 0, "stderr: \(result.err)")
        return result.out.joined(separator: "\n") + "\n"
    }

    func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }

    @Test("print writes the bundled OpenAPI 3.1 document")
    func print() async throws {
        let text = try await printed()
        #expect(text.contains("\nopenapi: 3.1.1\n"))
        #expect(text.contains("\nwebhooks:\n"))
        #expect(text.contains("  user/tokenRevoked:\n"))
    }

    @Test("check: an identical spec exits 0; a drifted one exits 1 and names each finding")
    func check() async throws {
        let bundled = try await printed()
        try await withSpecDirectory { directory in
            let same = directory.appendingPathComponent("same.yaml")
            try write(bundled, to: same)
            let ok = await (try await CLIProcess(["schema", "check", "--spec", same.path])).finish()
            #expect(ok.status == 0, "stdout: \(ok.out) stderr: \(ok.err)")
            #expect(ok.out.last?.hasPrefix("no drift: 9 events and ") == true, "\(ok.out)")

            let drifted = directory.appendingPathComponent("drifted.yaml")
            try write(
                bundled
                    .replacingOccurrences(of: "Failed, Deleted]", with: "Failed, Archived]")
                    .replacingOccurrences(of: "        requestId: { type: string, description: \"The backend request that revoked them, for support.\" }\n", with: "")
                    .replacingOccurrences(of: "        recording: { type: boolean,", with: "        recording: { type: string,")
                    .replacingOccurrences(of: "        isFreePlan: { type: boolean, description: Whether the organization is on the free plan. }\n",
                                          with: "        isFreePlan: { type: boolean, description: Whether the organization is on the free plan. }\n        seats: { type: integer }\n"),
                to: drifted)
            let drift = await (try await CLIProcess(["schema", "check", "--spec", drifted.path])).finish()
            #expect(drift.status == 1, "stdout: \(drift.out) stderr: \(drift.err)")
            #expect(drift.out.contains { $0.hasPrefix("changed archive/stateChanged status: enum values ") && $0.hasSuffix("(removed Deleted; added Archived)") }, "\(drift.out)")
            #expect(drift.out.contains("missing user/tokenRevoked requestId (string, optional): not in the candidate"), "\(drift.out)")
            #expect(drift.out.contains("changed device/recordingStateChanged recording: type boolean → string"), "\(drift.out)")
            #expect(drift.out.contains("extra organization/planChanged seats (integer, optional): only in the candidate"), "\(drift.out)")
            #expect(drift.out.last == "drift: 4 findings (1 missing, 1 extra, 2 changed) in 4 events", "\(drift.out)")

            // --against compares two files; the same file twice has no drift.
            let against = await (try await CLIProcess(["schema", "check", "--spec", drifted.path, "--against", drifted.path])).finish()
            #expect(against.status == 0, "stdout: \(against.out) stderr: \(against.err)")
        }
    }

    @Test("check: unreadable or invalid files exit 2 with a typed error")
    func invalidFiles() async throws {
        try await withSpecDirectory { directory in
            let missing = await (try await CLIProcess([
                "schema", "check", "--spec", directory.appendingPathComponent("absent.yaml").path,
            ])).finish()
            #expect(missing.status == 2)
            #expect(missing.err.contains("Error: cannot read ") && missing.err.contains("[unreadable]"), "stderr: \(missing.err)")

            let garbage = directory.appendingPathComponent("garbage.yaml")
            try write("title: [not, openapi\n", to: garbage)
            let notOpenAPI = await (try await CLIProcess(["schema", "check", "--spec", garbage.path])).finish()
            #expect(notOpenAPI.status == 2)
            #expect(notOpenAPI.err.contains("[notOpenAPI]"), "stderr: \(notOpenAPI.err)")

            let dangling = directory.appendingPathComponent("dangling.json")
            try write(##"{"openapi": "3.1.1", "info": {"title": "t", "version": "1"}, "components": {"schemas": {"A": {"$ref": "#/components/schemas/B"}}}}"##, to: dangling)
            let invalid = await (try await CLIProcess(["schema", "check", "--spec", dangling.path])).finish()
            #expect(invalid.status == 2)
            #expect(invalid.err.contains("[invalidOpenAPI]"), "stderr: \(invalid.err)")
            #expect(invalid.out.isEmpty)
        }
    }
}
