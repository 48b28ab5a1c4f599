import Foundation
import SwitchboardCore

/// The publish rules shared by WebSocket and HTTP publishing: 1–5 events per request, each a
/// JSON value serialized to a string, each at most 240 KB; the channel concrete (no `*`).
enum PublishValidator {
    /// The most events one publish may carry.
    static let maximumEvents = 5
    /// The most bytes one event may have (240 KB).
    static let maximumEventBytes = 240 * 1024

    /// One event's outcome.
    enum Outcome: Equatable {
        case accepted(identifier: String, index: Int, event: String)
        case failed(identifier: String, index: Int, code: String, message: String)
    }

    /// A request-level rejection.
    struct Rejection: Error, Equatable {
        var errorType: String
        var message: String
    }

    /// Checks the event count, then each event.
    /// - Parameters:
    ///   - events: The raw `events` array items.
    ///   - identifiers: One identifier per event (UUIDs, made by the caller).
    static func validate(events: [Any], identifiers: [String]) -> Result<[Outcome], Rejection> {
        if events.isEmpty {
            return .failure(Rejection(errorType: "InvalidInputError", message: "input has no events"))
        }
        if events.count > maximumEvents {
            return .failure(Rejection(errorType: "InvalidInputError", message: "input exceeded 5 event limit"))
        }
        var outcomes: [Outcome] = []
        for (index, item) in events.enumerated() {
            let identifier = index < identifiers.count ? identifiers[index] : "event-\(index)"
            switch check(event: item) {
            case .success(let text):
                outcomes.append(.accepted(identifier: identifier, index: index, event: text))
            case .failure(let rejection):
                outcomes.append(.failed(identifier: identifier, index: index, code: rejection.errorType, message: rejection.message))
            }
        }
        return .success(outcomes)
    }

    /// Checks one event: a JSON value serialized to a string, of at most 240 KB.
    /// - Returns: The event's text, or why it is refused (`BadRequestException`, `EventTooLargeException`).
    static func check(event item: Any) -> Result<String, Rejection> {
        guard let text = item as? String else {
            return .failure(Rejection(errorType: "BadRequestException", message: "event must be a JSON value serialized to a string"))
        }
        if text.utf8.count > maximumEventBytes {
            return .failure(Rejection(errorType: "EventTooLargeException", message: "Transformed event is larger than 240KB"))
        }
        guard (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil else {
            return .failure(Rejection(errorType: "BadRequestException", message: "event is not valid JSON"))
        }
        return .success(text)
    }

    /// The `successful` and `failed` arrays of a publish response.
    static func responseBody(_ outcomes: [Outcome]) -> [String: Any] {
        var successful: [[String: Any]] = []
        var failed: [[String: Any]] = []
        for outcome in outcomes {
            switch outcome {
            case .accepted(let identifier, let index, _):
                successful.append(["identifier": identifier, "index": index])
            case .failed(let identifier, let index, let code, let message):
                failed.append(["identifier": identifier, "index": index, "code": code, "message": message])
            }
        }
        return ["successful": successful, "failed": failed]
    }
}
