import Foundation
import SwitchboardAppSync
import SwitchboardCore

/// AppSync Events server frames: any text either fails to decode with
/// ``SwitchboardError/Code/protocolViolation`` or decodes to a message that, written back out as
/// a frame, decodes to the same message.
package enum AppSyncFrameCheck {
    /// Checks one frame; the bytes are read as UTF-8, as a WebSocket text frame would be.
    /// - Throws: ``FuzzFinding`` when the property does not hold.
    package static func check(_ input: [UInt8]) throws(FuzzFinding) {
        let text = String(decoding: input, as: UTF8.self)
        let message: AppSyncServerMessage
        do {
            message = try AppSyncCodec.decode(text)
        } catch let error as SwitchboardError where error.code == .protocolViolation {
            return
        } catch {
            throw FuzzFinding("decoding failed with \(error), not a protocol violation")
        }
        try FuzzFinding.requireRoundTrip(message, written: frame(message), AppSyncCodec.decode)
    }

    /// The frame a server would send for `message`, in the codec's compact JSON.
    package static func frame(_ message: AppSyncServerMessage) -> String {
        var object: [String: Any]
        var id: String?
        switch message {
        case .connectionAck(let timeout):
            object = ["type": "connection_ack"]
            if let timeout { object["connectionTimeoutMs"] = timeout }
        case .connectionError(let errors):
            object = ["type": "connection_error", "errors": errors.map(errorObject)]
        case .keepAlive:
            object = ["type": "ka"]
        case .subscribeSuccess(let subscription):
            (object, id) = (["type": "subscribe_success"], subscription)
        case .subscribeError(let subscription, let errors):
            (object, id) = (["type": "subscribe_error", "errors": errors.map(errorObject)], subscription)
        case .data(let subscription, let events):
            (object, id) = (["type": "data", "event": events.map(\.text)], subscription)
        case .broadcastError(let subscription, let errors):
            (object, id) = (["type": "broadcast_error", "errors": errors.map(errorObject)], subscription)
        case .unsubscribeSuccess(let subscription):
            (object, id) = (["type": "unsubscribe_success"], subscription)
        case .unsubscribeError(let subscription, let errors):
            (object, id) = (["type": "unsubscribe_error", "errors": errors.map(errorObject)], subscription)
        case .publishSuccess(let publish, let result):
            object = [
                "type": "publish_success",
                "successful": result.accepted.map { ["identifier": $0.identifier, "index": $0.index] as [String: Any] },
                "failed": result.refused.map(refusedObject),
            ]
            id = publish
        case .publishError(let publish, let errors):
            (object, id) = (["type": "publish_error", "errors": errors.map(errorObject)], publish)
        case .error(let operation, let errors):
            (object, id) = (["type": "error", "errors": errors.map(errorObject)], operation)
        }
        if let id { object["id"] = id }
        // Written by Foundation, not the codec: the check reads the codec's decoding against
        // an encoder of its own.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private static func errorObject(_ error: AppSyncError) -> [String: Any] {
        var object: [String: Any] = ["errorType": error.errorType]
        if let message = error.message { object["message"] = message }
        return object
    }

    private static func refusedObject(_ refused: AppSyncPublishResult.Refused) -> [String: Any] {
        var object: [String: Any] = ["index": refused.index, "code": refused.code, "message": refused.message]
        if let identifier = refused.identifier { object["identifier"] = identifier }
        return object
    }
}
