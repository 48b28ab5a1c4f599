import Foundation
import NIOHTTP1

/// A real GraphQL server for the legacy contract, for tests: `Scripts/legacy-server/server.py`
/// (strawberry-graphql on uvicorn, serving contract §4's schema over `graphql-ws` and
/// `graphql-transport-ws`) started as a child process on a free port of 127.0.0.1.
///
/// The Python interpreter is the one `SWITCHBOARD_LEGACY_SERVER_PYTHON` names (the virtual
/// environment `Scripts/legacy-server/setup.sh` makes; `.ci/run` sets it). Without it, suites
/// that need the server are skipped locally with that reason, and fail in CI (`CI` set), where
/// skipping them would pass missing coverage off as a pass.
public final class LegacyGraphQLServer: Sendable {
    public static let pythonVariable = "SWITCHBOARD_LEGACY_SERVER_PYTHON"

    /// The interpreter to run the server with, if configured.
    public static var python: String? {
        let value = ProcessInfo.processInfo.environment[pythonVariable] ?? ""
        return value.isEmpty ? nil : value
    }

    /// Whether this run is CI's (`.ci/run` runs with `CI` set).
    public static var isCI: Bool {
        let value = ProcessInfo.processInfo.environment["CI"]?.lowercased() ?? ""
        return !value.isEmpty && value != "0" && value != "false"
    }

    /// Whether suites that need the server run: configured, or in CI (where they then fail loudly).
    public static var shouldRun: Bool { python != nil || isCI }

    /// Why they are skipped when they are.
    public static let skipReason =
        "SWITCHBOARD_LEGACY_SERVER_PYTHON is not set: run Scripts/legacy-server/setup.sh and export its output to test against the real GraphQL server (CI always does)"

    public static let scriptPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scripts/legacy-server/server.py")

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The server's port on 127.0.0.1.
    public let port: Int
    /// The server process. Its standard input stays open while the test process lives and closes
    /// when it ends, which ends the server.
    private let child: ChildProcess

    /// The WebSocket endpoint, `ws://127.0.0.1:<port>/graphql`.
    public var url: URL { URL(string: "ws://127.0.0.1:\(port)/graphql")! }

    private init(port: Int, child: ChildProcess) {
        self.port = port
        self.child = child
    }

    /// Runs `body` against the server of `pool`, freshly configured: every connection closed,
    /// these tokens accepted, this subscription limit.
    ///
    /// Each pool is one server process, started on first use and ended when the test process
    /// exits (its standard input closes), so a suite does not start a Python interpreter per
    /// test. Tests that share a pool must not overlap: give each `.serialized` suite its own.
    /// - Parameters:
    ///   - pool: The suite's name for its server.
    ///   - tokens: What a `connection_init`'s `Authorization` may carry; anything else is refused.
    ///   - maximumSubscriptions: strawberry's operations-per-connection limit.
    public static func with<Result>(
        _ pool: String, tokens: [String], maximumSubscriptions: Int = 100,
        _ body: (LegacyGraphQLServer) async throws -> Result
    ) async throws -> Result {
        let server = try await Pool.shared.server(pool)
        try await server.configure(tokens: tokens, maximumSubscriptions: maximumSubscriptions)
        return try await body(server)
    }

    /// The running servers, by pool.
    private actor Pool {
        static let shared = Pool()
        private var servers: [String: Task<LegacyGraphQLServer, any Error>] = [:]

        func server(_ pool: String) async throws -> LegacyGraphQLServer {
            if let server = servers[pool] { return try await server.value }
            let server = Task { try await LegacyGraphQLServer.start() }
            servers[pool] = server
            return try await server.value
        }
    }

    /// Starts a server accepting no token (``configure(tokens:maximumSubscriptions:)`` sets them).
    static func start() async throws -> LegacyGraphQLServer {
        guard let python else {
            throw Failure(description: "\(pythonVariable) is not set: CI must run the legacy-server tests (\(skipReason))")
        }
        let errorLog = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-server-\(UUID().uuidString).log")
        // A graphql-ws `ka` right after the ack, then every 300 s: none during a test.
        let child = try ChildProcess.spawn(
            python, [scriptPath.path, "--port", "0", "--exit-on-stdin-eof", "--keep-alive-interval", "300"],
            standardError: errorLog.path)
        // The server prints {"port": N} once it listens, or exits. The read blocks, so it runs on
        // a thread of its own.
        let line = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: child.readLine()) }.start()
        }
        guard let line, let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let port = object["port"] as? Int
        else {
            child.terminate()
            let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: errorLog)
            throw Failure(description: "the legacy server did not start (\(python) \(scriptPath.path)): \(line ?? "no output")\n\(log)")
        }
        // It keeps writing to the file it was given; nothing needs the name any more.
        try? FileManager.default.removeItem(at: errorLog)
        return LegacyGraphQLServer(port: port, child: child)
    }

    // MARK: Driving the server

    /// Publishes `payload` (a legacy-shaped JSON object) to subscriptions of `field` for
    /// `argument`; returns how many subscriptions received it.
    @discardableResult
    public func publish(field: String, argument: String, payload: [String: Any]) async throws -> Int {
        let body: [String: Any] = ["field": field, "argument": argument, "payload": payload]
        return try await request(.POST, "/publish", body)["subscribers"] as? Int ?? 0
    }

    /// Publishes a payload given as JSON text.
    @discardableResult
    public func publish(field: String, argument: String, json: String) async throws -> Int {
        guard let payload = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else {
            throw Failure(description: "not a JSON object: \(json)")
        }
        return try await publish(field: field, argument: argument, payload: payload)
    }

    /// The subscriptions each open connection holds, by connection number (from 1, in the order
    /// connections opened).
    public func subscriptionCounts() async throws -> [Int: Int] {
        let counts = try await request(.GET, "/control/subscriptions", nil)["connections"] as? [String: Int] ?? [:]
        return Dictionary(uniqueKeysWithValues: counts.compactMap { key, value in Int(key).map { ($0, value) } })
    }

    /// Closes every open connection with `code`; returns how many.
    @discardableResult
    public func dropAll(code: Int, reason: String) async throws -> Int {
        try await request(.POST, "/control/drop", ["code": code, "reason": reason])["connections"] as? Int ?? 0
    }

    /// The open connections go silent until ``reset()``; returns how many.
    @discardableResult
    public func stall() async throws -> Int {
        try await request(.POST, "/control/stall", nil)["connections"] as? Int ?? 0
    }

    /// Refuses `token` at every later `connection_init`.
    public func rejectToken(_ token: String) async throws {
        _ = try await request(.POST, "/control/reject-token", ["token": token])
    }

    /// Ends stalls and token rejections.
    public func reset() async throws {
        _ = try await request(.POST, "/control/reset", nil)
    }

    /// Closes every connection, waits until the server holds none, then accepts `tokens` and
    /// applies `maximumSubscriptions` to the connections that follow.
    public func configure(tokens: [String], maximumSubscriptions: Int) async throws {
        _ = try await request(.POST, "/control/configure", ["tokens": tokens, "maxSubscriptions": maximumSubscriptions])
    }

    private func request(_ method: HTTPMethod, _ path: String, _ body: [String: Any]?) async throws -> [String: Any] {
        let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) }
        let response = try await LoopbackHTTP.request(port: port, method: method, path: path, body: bytes)
        guard response.status == 200, let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            throw Failure(description: "\(method) \(path) answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return object
    }
}
