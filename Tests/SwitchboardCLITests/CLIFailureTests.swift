import Foundation
import Logging
import SwitchboardCore
import SwitchboardEmulator
import Testing

@Suite("errors an operator can act on", .timeLimit(.minutes(2)))
struct CLIFailureTests {
    static func configuration(tls: Bool) -> SwitchboardEmulator.Configuration {
        var configuration = SwitchboardEmulator.Configuration(
            port: 0, auth: .init(apiKeys: ["k"]), logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        configuration.tls = tls
        return configuration
    }

    static let event = ["--channel", "vortex-app/user/u1/roleChanged", "--event", #"{"eventType":"user/roleChanged","reason":"a"}"#]

    @Test("publish over HTTPS trusts --ca-file; without it the error says the certificate is not trusted")
    func httpsTrust() async throws {
        try await withRunningEmulator(configuration: Self.configuration(tls: true)) { _, endpoints in
            let certificate = FileManager.default.temporaryDirectory.appendingPathComponent("switchboard-ca-\(UUID().uuidString).pem")
            defer { try? FileManager.default.removeItem(at: certificate) }
            try Data(try #require(endpoints.certificatePEM).utf8).write(to: certificate)
            let url = "https://localhost:\(endpoints.port)/event"

            let trusted = await (try await CLIProcess(
                ["publish", "--url", url, "--auth", "api-key:k", "--ca-file", certificate.path] + Self.event)).finish()
            #expect(trusted.status == 0, "stderr: \(trusted.err)")
            #expect(trusted.out.first?.hasPrefix("0 ok ") == true)

            let untrusted = await (try await CLIProcess(["publish", "--url", url, "--auth", "api-key:k"] + Self.event)).finish()
            #expect(untrusted.status != 0)
            // An untrusted certificate stays untrusted: one attempt, no retries.
            #expect(untrusted.err.contains("publishing failed, and retrying cannot help"), "\(untrusted.err)")
            #expect(untrusted.err.contains("certificate is not trusted"), "\(untrusted.err)")

            let plain = await (try await CLIProcess(
                ["publish", "--url", "http://127.0.0.1:\(endpoints.port)/event", "--auth", "api-key:k"] + Self.event)).finish()
            #expect(plain.status != 0)
            #expect(plain.err.contains("https://"), "plain HTTP to a TLS port says to use https: \(plain.err)")
        }
    }

    @Test("publish to a port where nothing listens names the refused connection")
    func refused() async throws {
        let port = try await withRunningEmulator(configuration: Self.configuration(tls: false)) { _, endpoints in endpoints.port }
        let result = await (try await CLIProcess(
            ["publish", "--url", "http://127.0.0.1:\(port)/event", "--auth", "api-key:k"] + Self.event)).finish()
        #expect(result.status != 0)
        #expect(result.err.contains("connection refused"), "\(result.err)")
    }

    @Test("an HTTP refusal names the status and the server's words")
    func httpStatus() async throws {
        try await withRunningEmulator(configuration: Self.configuration(tls: false)) { _, endpoints in
            let result = await (try await CLIProcess([
                "publish", "--url", endpoints.httpURL, "--auth", "api-key:k", "--channel", "other-app/user/u1/roleChanged",
                "--event", "{}",
            ])).finish()
            #expect(result.status != 0)
            #expect(result.err.contains("HTTP 4"), "\(result.err)")
        }
    }

    @Test("fault drop-events drops one protocol's events; --every 0 stops it")
    func dropEvents() async throws {
        try await withRunningEmulator(configuration: Self.configuration(tls: false)) { _, endpoints in
            let control = ["--control-url", endpoints.controlURL]
            let drop = await (try await CLIProcess(["fault", "drop-events", "--transport", "graphql"] + control)).finish()
            #expect(drop.status == 0, "stderr: \(drop.err)")
            #expect(drop.out == ["drop-events: done"])
            let stop = await (try await CLIProcess(["fault", "drop-events", "--transport", "appsync", "--every", "0"] + control)).finish()
            #expect(stop.status == 0, "stderr: \(stop.err)")
            let missing = await (try await CLIProcess(["fault", "drop-events"] + control)).finish()
            #expect(missing.status != 0)
            #expect(missing.err.contains("--transport graphql"), "\(missing.err)")
        }
    }
}
