import Foundation
import Switchboard

/// Something the app shows: a typed event from one of the notifier's streams, a connection
/// state, or an error. A real app would update its model here; this example prints it.
enum AppUpdate: Sendable, Equatable, CustomStringConvertible {
    /// Which API generation a stream belongs to.
    enum Generation: String, Sendable, CaseIterable {
        /// The five methods apps called before the migration (`deviceValues()`, …).
        case legacy
        /// The nine per-channel methods (`devicePresenceValues()`, …).
        case perChannel = "per-channel"

        /// Shows an event of this generation, given its stream method and summary.
        func events(_ show: @escaping Show) -> @Sendable (_ method: String, _ summary: String) -> Void {
            { show(.event(self, method: $0, summary: $1)) }
        }
    }

    /// Where the app sends its updates.
    typealias Show = @Sendable (AppUpdate) -> Void

    /// A value from the stream `method`, described by `summary`.
    case event(Generation, method: String, summary: String)
    /// A `connectionStates()` value.
    case connection(ConnectionState)
    /// An `errors()` value.
    case error(SwitchboardError.Code, message: String)

    var description: String {
        switch self {
        case .event(let generation, let method, let summary):
            "\("[\(generation.rawValue)]".padding(toLength: 14, withPad: " ", startingAt: 0))"
                + "\(method.padding(toLength: 22, withPad: " ", startingAt: 0)) \(summary)"
        case .connection(let state): "[connection]  \(state)"
        case .error(let code, let message): "[error]       \(code): \(message)"
        }
    }
}

/// The tasks the app consumes streams in.
typealias ConsumerTasks = ThrowingTaskGroup<Void, any Error>

extension ConsumerTasks {
    /// Consumes `stream` in a child task: `body` runs for each value, until the stream ends
    /// (when the notifier shuts down) or the task is cancelled.
    mutating func forEach<Value: Sendable>(
        _ stream: AsyncStream<Value>, _ body: @escaping @Sendable (Value) -> Void
    ) {
        addTask {
            for await value in stream { body(value) }
        }
    }
}

/// How the example describes a device, an archive, … on both API generations, so that the
/// two can be compared line by line.
enum Describe {
    static func device(_ thing: String?, site: String?, _ change: String) -> String {
        "\(thing ?? "?") at \(site ?? "?"): \(change)"
    }

    static func flag(_ value: Bool?, _ yes: String, _ no: String) -> String {
        value.map { $0 ? yes : no } ?? "?"
    }

    static func archive(_ archive: ArchiveStateOutput) -> String {
        "archive \(archive.archiveId ?? "?") of \(archive.thingName ?? "?"): \(archive.status?.rawValue ?? "?")"
    }

    static func role(_ role: RoleChangeOutput) -> String { "role changed: \(role.reason ?? "?")" }

    static func revoke(_ revoke: UserTokenRevokeOutput) -> String {
        "token of \(revoke.userId) revoked: \(revoke.reason?.rawValue ?? "?")"
    }
}
