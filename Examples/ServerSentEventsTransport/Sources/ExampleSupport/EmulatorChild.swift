import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Switchboard emulator as a child process, for the demo and the tests of this package: the
/// main package's `switchboard serve` on 127.0.0.1 port 0, with an API key for publishing and a
/// JWT secret for users, who may then use only their own channels.
///
/// The executable is `$SWITCHBOARD_CLI`, or the main package's `.build/debug/switchboard` (build
/// it there first: `swift build --product switchboard`). The child gets a pipe as standard input
/// and `--exit-when-stdin-closes`, so it stops with this process whatever happens.
public final class EmulatorChild: @unchecked Sendable {  // Process and Pipe: set up before launch, then only used by stop()
    /// The API key the child accepts (full access: publishing, control).
    public static let apiKey = "sse-example-key"
    static let jwtSecret = "sse-example-jwt-secret"

    /// The port the child listens on.
    public let port: Int
    private let process: Process
    private let input: Pipe

    /// `http://127.0.0.1:<port>` and `path`.
    public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// The event stream of the server-sent events endpoint.
    public var streamURL: URL { url("/sse/v1/events") }

    /// Starts a child and reads its port from the first line it prints.
    /// - Throws: When the executable is missing or the child exits before it listens.
    public init() throws {
        let executable = try Self.executable()
        process = Process()
        process.executableURL = executable
        process.arguments = [
            "serve", "--port", "0", "--exit-when-stdin-closes", "--api-key", Self.apiKey, "--jwt-secret", Self.jwtSecret,
        ]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var text = ""
        let marker = "Switchboard emulator on 127.0.0.1:"
        while true {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else {
                process.waitUntilExit()
                throw ChildError(message: "\(executable.path) exited (status \(process.terminationStatus)) before it listened")
            }
            text += String(decoding: data, as: UTF8.self)
            if let range = text.range(of: marker), let end = text[range.upperBound...].firstIndex(of: "\n"),
                let port = Int(text[range.upperBound..<end])
            {
                self.port = port
                break
            }
        }
        // Keep reading what it prints, so a full pipe never blocks it.
        output.fileHandleForReading.readabilityHandler = { handle in _ = handle.availableData }
    }

    /// Stops the child and waits for it.
    public func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// Runs `body` with a child, and stops it afterwards.
    public static func with<Result>(
        isolation: isolated (any Actor)? = #isolation, _ body: (EmulatorChild) async throws -> Result
    ) async throws -> Result {
        let child = try EmulatorChild()
        defer { child.stop() }
        return try await body(child)
    }

    // MARK: What a backend does

    /// Publishes `event` (JSON text) on `channel`, as the backend would (AppSync Events HTTP publish).
    public func publish(_ event: String, on channel: String) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["channel": channel, "events": [event]])
        try await post("/event", body: body)
    }

    /// `POST /control/<action>`: a fault (`drop`, `reject-auth`, …) or `reset`.
    public func control(_ action: String) async throws { try await post("/control/\(action)", body: nil) }

    /// The subscriptions the emulator holds across its connections.
    public func subscriptionCount() async throws -> Int {
        var request = URLRequest(url: url("/control/status"))
        request.setValue(Self.apiKey, forHTTPHeaderField: "x-api-key")
        let (data, _) = try await URLSession.shared.data(for: request)
        let status = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return status?["subscriptions"] as? Int ?? 0
    }

    /// Waits (polling every 10 ms, for at most `limit`) until the emulator holds `count` subscriptions.
    public func waitForSubscriptions(_ count: Int, limit: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + limit
        while try await subscriptionCount() != count {
            guard ContinuousClock.now < deadline else {
                throw ChildError(message: "the emulator held \(try await subscriptionCount()) subscriptions, not \(count), after \(limit)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    private func post(_ path: String, body: Data?) async throws {
        var request = URLRequest(url: url(path))
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(Self.apiKey, forHTTPHeaderField: "x-api-key")
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw ChildError(message: "POST \(path) answered \(status): \(String(decoding: data, as: UTF8.self))")
        }
    }

    // MARK: Users

    /// A token the child accepts for `userId`: an HS256 JWT with `sub` = `userId`, valid for an hour.
    public static func token(for userId: String) -> String {
        func encode(_ bytes: some DataProtocol) -> String {
            Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let expiry = Int(Date().timeIntervalSince1970) + 3600
        let header = encode(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let claims = encode(Data(#"{"sub":"\#(userId)","exp":\#(expiry)}"#.utf8))
        let key = SymmetricKey(data: Data(jwtSecret.utf8))
        let signature = HMAC<SHA256>.authenticationCode(for: Data("\(header).\(claims)".utf8), using: key)
        return "\(header).\(claims).\(encode(Array(signature)))"
    }

    private static func executable() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["SWITCHBOARD_CLI"] {
            return URL(fileURLWithPath: path)
        }
        // Sources/ExampleSupport/EmulatorChild.swift → the example's root → the main package's root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let built = root.appendingPathComponent(".build/debug/switchboard")
        guard FileManager.default.isExecutableFile(atPath: built.path) else {
            throw ChildError(message: "no switchboard executable at \(built.path): run `swift build --product switchboard` in \(root.path), or set SWITCHBOARD_CLI")
        }
        return built
    }

    /// Why the child could not serve.
    public struct ChildError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
