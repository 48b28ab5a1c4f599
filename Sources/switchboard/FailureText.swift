import Foundation
import SwitchboardCore
import SwitchboardNIO

/// How the CLI words a failure: the error's code and message, then the cause underneath as far
/// as it is known (TLS trust, a refused connection, a timeout, an HTTP status and body), so an
/// operator can act on it. Credentials never appear: errors never carry them.
enum FailureText {
    /// `network: publishing failed after 4 attempts; the last: cannot connect to 127.0.0.1:9: connection refused …`.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as SwitchboardError:
            var text = "\(error.code): \(error.message)"
            if let reason = NIOFailureReason.reason(for: error), !text.contains(reason) {
                text += " (\(reason))"
            } else if let cause = error.cause, NIOFailureReason.reason(for: error) == nil {
                // The cause's own words, unless the message already carries them.
                let words = (cause as? SwitchboardError)?.message ?? "\(cause)"
                if !text.contains(words) { text += " (cause: \(words))" }
            }
            return text
        case let error as WebSocketHandshakeError:
            return "the server refused the WebSocket upgrade: \(error)"
        case let error as CLIError:
            return error.description
        default:
            return NIOFailureReason.reason(for: error) ?? "\(error)"
        }
    }
}
