import Foundation
import Logging
import SwitchboardEmulator
import Testing

@Suite("switchboard serve and argument errors", .timeLimit(.minutes(1)))
struct CLIServeTests {
    @Test("serve prints its URLs and stops cleanly on SIGINT")
    func serve() async throws {
        let cli = try await CLIProcess(["serve", "--api-key", "k", "--port", "0"])
        let lines = await cli.lines(atLeast: 7)
        #expect(lines.first?.hasPrefix("Switchboard emulator on 127.0.0.1:") == true)
        #expect(lines.contains { $0.contains("ws://127.0.0.1:") && $0.contains("/event/realtime") })
        #expect(lines.contains { $0.contains("/graphql") })
        cli.interrupt()
        let result = await cli.finish()
        #expect(result.status == 0, "stderr: \(result.err)")
    }

    @Test("serve --tls serves wss with a certificate written by --cert-out; clients trust it with --ca-file")
    func serveTLS() async throws {
        let certificate = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-cli-\(UUID().uuidString).pem").path
        defer { try? FileManager.default.removeItem(atPath: certificate) }
        let cli = try await CLIProcess(["serve", "--api-key", "k", "--port", "0", "--tls", "--cert-out", certificate])
        // Up to the certificate's line, the ninth (written once the file is): the lines can
        // arrive in more than one read.
        let lines = await cli.lines(atLeast: 9)
        let realtime = try #require(lines.first { $0.contains("/event/realtime") }?.split(separator: " ").last.map(String.init))
        #expect(realtime.hasPrefix("wss://127.0.0.1:"))
        #expect(lines.contains { $0.contains("certificate (PEM)") && $0.contains(certificate) })
        #expect(try String(contentsOfFile: certificate, encoding: .utf8).hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(try !String(contentsOfFile: certificate, encoding: .utf8).contains("PRIVATE KEY"))

        let publish = ["publish", "--ws", "--url", realtime, "--auth", "api-key:k", "--channel", "vortex-app/a", "--event", "{}"]
        let trusted = await (try await CLIProcess(publish + ["--ca-file", certificate])).finish()
        #expect(trusted.status == 0, "stderr: \(trusted.err)")
        #expect(trusted.out.first?.hasPrefix("0 ok ") == true)
        let untrusted = await (try await CLIProcess(publish)).finish()
        #expect(untrusted.status != 0)
        #expect(untrusted.err.contains("network"), "stderr: \(untrusted.err)")
        cli.interrupt()
        #expect(await cli.finish().status == 0)
    }

    @Test("fault injects each fault into a running emulator and reports the connections it hit")
    func fault() async throws {
        let configuration = SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: ["k"]), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await withRunningEmulator(configuration: configuration) { emulator, endpoints in
            let control = ["--control-url", endpoints.controlURL]
            let reject = await (try await CLIProcess(["fault", "reject-auth", "--count", "2"] + control)).finish()
            #expect(reject.status == 0, "stderr: \(reject.err)")
            #expect(reject.out == ["reject-auth: done"])
            // The rejection is in force: the connection and its one retry with a fresh token are refused.
            let refused = await (try await CLIProcess([
                "publish", "--ws", "--url", endpoints.realtimeURL, "--auth", "api-key:k", "--channel", "vortex-app/a", "--event", "{}",
            ])).finish()
            #expect(refused.status != 0)
            #expect(refused.err.contains("sessionExpired"), "stderr: \(refused.err)")
            let drop = await (try await CLIProcess(["fault", "drop", "--code", "1011"] + control)).finish()
            #expect(drop.out == ["drop: 0 connection(s)"], "stderr: \(drop.err)")
            let stall = await (try await CLIProcess(["fault", "stall"] + control)).finish()
            #expect(stall.status != 0 && stall.err.contains("stall needs --ms"))
            let reset = await (try await CLIProcess(["fault", "reset"] + control)).finish()
            #expect(reset.status == 0)
            withExtendedLifetime(emulator) {}
        }
    }

    @Test("bad arguments exit non-zero with a message naming the problem", arguments: [
        (["serve"], "api-key"),
        (["listen", "--url", "ws://127.0.0.1:1/", "--auth", "basic:x", "--user-id", "u", "--org-id", "o"], "--auth mode 'basic'"),
        (["listen", "--transport", "apsync", "--url", "ws://127.0.0.1:1/", "--auth", "jwt:t", "--user-id", "u", "--org-id", "o"], "apsync"),
        (["listen", "--url", "ws://127.0.0.1:1/", "--auth", "jwt:t", "--user-id", "u", "--org-id", "o", "--streams", "nope"], "unknown stream 'nope'"),
        (["demo", "--events", "0"], "--events"),
        (["serve", "--api-key", "k", "--cert-out", "x.pem"], "--cert-out needs --tls"),
        (["publish", "--ws", "--url", "wss://127.0.0.1:1/event/realtime", "--auth", "api-key:k", "--channel", "a/b", "--event", "{}",
          "--ca-file", "/nonexistent/ca.pem"], "--ca-file /nonexistent/ca.pem cannot be read"),
    ])
    func badArguments(arguments: [String], message: String) async throws {
        let result = await (try await CLIProcess(arguments)).finish()
        #expect(result.status != 0)
        #expect(result.err.contains(message), "stderr: \(result.err)")
    }
}
