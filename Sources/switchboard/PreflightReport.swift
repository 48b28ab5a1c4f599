import Foundation
import SwitchboardCore

/// What `switchboard check` found, printed as text or as one JSON document.
///
/// Exit codes fit a deployment pipeline: ``exitCode`` is 0 when every stream was established, 1
/// when some were rejected or got no answer (or the connection did not answer a ping), 2 when the
/// connection failed (refused, no acknowledgement, dropped during the check).
struct PreflightReport: Encodable, Sendable, Equatable {
    /// How one stream's subscription ended.
    enum Outcome: String, Encodable, Sendable {
        /// The server acknowledged it (or, on a dialect without acknowledgements, it was sent
        /// and not refused).
        case established
        /// The server refused it; ``Stream/message`` has the server's words.
        case rejected
        /// Neither within the answer timeout.
        case noAnswer
    }

    /// One stream's result.
    struct Stream: Encodable, Sendable, Equatable {
        var stream: String
        var address: String
        var outcome: Outcome?
        var message: String?
    }

    /// What the connection did.
    struct Connection: Encodable, Sendable, Equatable {
        /// Whether the transport reached `connected` (the server acknowledged the connection).
        var established = false
        /// From `connect` to the acknowledged connection, in milliseconds.
        var connectMilliseconds: Double?
        /// Whether a `connection_ack` frame was seen.
        var acknowledged = false
        /// The keep-alive window the server announced in its acknowledgement, in seconds; nil
        /// when it announced none.
        var announcedKeepAliveSeconds: Double?
        /// The `ka` frames seen during the check.
        var keepAliveFrames = 0
        /// The WebSocket ping's round trip, in milliseconds.
        var pingMilliseconds: Double?
        /// Why the ping failed, if it did.
        var pingError: String?
        /// Why the connection failed, if it did: `code: message`.
        var error: String?
    }

    var transport: String
    var selectedBy: String
    var url: String
    var userId: String
    var orgId: String
    /// Whether the dialect acknowledges each subscription (`graphql-ws` does not: there,
    /// established means sent and not refused).
    var subscriptionsAcknowledged: Bool
    var connection = Connection()
    var streams: [Stream]

    /// 0, 1 or 2, as described on ``PreflightReport``.
    var exitCode: Int32 {
        guard connection.established, connection.error == nil else { return 2 }
        let allEstablished = streams.allSatisfy { $0.outcome == .established }
        return allEstablished && connection.pingError == nil ? 0 : 1
    }

    /// How many streams ended each way.
    func count(_ outcome: Outcome) -> Int { streams.filter { $0.outcome == outcome }.count }

    /// The one-line verdict, such as `9 of 11 streams established, 2 rejected`.
    var verdict: String {
        if let error = connection.error { return "connection failed: \(error)" }
        var parts = ["\(count(.established)) of \(streams.count) streams established"]
        if count(.rejected) > 0 { parts.append("\(count(.rejected)) rejected") }
        if count(.noAnswer) > 0 { parts.append("\(count(.noAnswer)) without an answer") }
        if connection.pingError != nil { parts.append("no ping answer") }
        return parts.joined(separator: ", ")
    }

    /// The report as people read it.
    var text: String {
        var lines = ["switchboard check: \(transport) (from \(selectedBy)) at \(url) as \(userId)/\(orgId)"]
        if connection.established {
            var parts = ["established in \(Self.milliseconds(connection.connectMilliseconds))"]
            parts.append(connection.acknowledged ? "acknowledged (connection_ack)" : "acknowledged")
            if let seconds = connection.announcedKeepAliveSeconds {
                parts.append("keep-alive window \(Self.seconds(seconds)) announced")
            } else {
                parts.append("no keep-alive window announced" + (connection.keepAliveFrames > 0 ? " (ka frames seen)" : ""))
            }
            if let ping = connection.pingMilliseconds {
                parts.append("ping round trip \(Self.milliseconds(ping))")
            } else if let error = connection.pingError {
                parts.append("ping: \(error)")
            }
            lines.append("connection: " + parts.joined(separator: "; "))
        } else {
            lines.append("connection: not established")
        }
        if connection.established, !streams.isEmpty {
            let width = max(6, streams.map(\.stream.count).max() ?? 0)
            lines.append("stream".padding(toLength: width, withPad: " ", startingAt: 0) + "  outcome      address")
            for stream in streams {
                let outcome = stream.outcome.map(Self.word) ?? "not tried"
                var line = stream.stream.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                    + outcome.padding(toLength: 11, withPad: " ", startingAt: 0) + "  " + stream.address
                if let message = stream.message { line += "  (\(message))" }
                lines.append(line)
            }
        }
        if !subscriptionsAcknowledged {
            lines.append("note: this dialect does not acknowledge subscriptions; established means sent and not refused")
        }
        lines.append("result: \(verdict)")
        return lines.joined(separator: "\n")
    }

    /// The report as one JSON document (keys sorted), with the verdict and exit code.
    func json() throws -> String {
        var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(self)) as? [String: Any] ?? [:]
        object["verdict"] = verdict
        object["exitCode"] = Int(exitCode)
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    private static func word(_ outcome: Outcome) -> String {
        switch outcome {
        case .established: "established"
        case .rejected: "rejected"
        case .noAnswer: "no answer"
        }
    }

    static func milliseconds(_ value: Double?) -> String {
        guard let value else { return "?" }
        return String(format: "%.1f ms", value)
    }

    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }
}

extension Duration {
    /// The duration in milliseconds, as a report prints it.
    var inMilliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
