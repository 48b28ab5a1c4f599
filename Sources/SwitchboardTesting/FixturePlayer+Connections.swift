import Foundation
import SwitchboardCore

/// Which recorded operation id stands for which id the client used.
struct IDBindings {
    private var recordedToLive: [String: String] = [:]
    private var liveToRecorded: [String: String] = [:]

    /// Whether the live frame equals the recorded one, credentials redacted and ids matched by
    /// position; binds the ids when it does.
    mutating func match(recorded: String, live: String) -> Bool {
        guard var recordedObject = FixtureFrames.parse(recorded), var liveObject = FixtureFrames.parse(live) else {
            return recorded == live
        }
        let recordedID = FixtureFrames.operationID(recordedObject)
        let liveID = FixtureFrames.operationID(liveObject)
        recordedObject["id"] = nil
        liveObject["id"] = nil
        guard FixtureFrames.encode(FixtureFrames.redact(recordedObject)) == FixtureFrames.encode(FixtureFrames.redact(liveObject))
        else { return false }
        switch (recordedID, liveID) {
        case (nil, nil):
            return true
        case (let recordedID?, let liveID?):
            if let bound = recordedToLive[recordedID] { return bound == liveID }
            if liveToRecorded[liveID] != nil { return false }
            recordedToLive[recordedID] = liveID
            liveToRecorded[liveID] = recordedID
            return true
        default:
            return false
        }
    }

    /// The server frame with its recorded id replaced by the client's.
    func toClient(_ frame: String) -> String {
        guard var object = FixtureFrames.parse(frame), let recordedID = FixtureFrames.operationID(object),
            let liveID = recordedToLive[recordedID], liveID != recordedID
        else { return frame }
        object["id"] = .string(liveID)
        return FixtureFrames.encode(object)
    }
}

// MARK: - Connections

/// What the client did on a played connection.
enum ClientEvent: Sendable {
    case frame(String)
    case close(UInt16, String)

    var summary: String {
        switch self {
        case .frame(let text): FixtureFrames.redacted(text)
        case .close(let code, _): "close \(code)"
        }
    }
}

extension Fixture.Entry {
    var isFromClient: Bool {
        switch event {
        case .frame(.clientToServer, _), .close(.clientToServer, _, _): true
        default: false
        }
    }
}

extension Fixture.Entry.Event {
    /// A short description for mismatch reports.
    public var summary: String {
        switch self {
        case .frame(_, let text): text
        case .close(_, let code, _): "close \(code)"
        case .drop(let message): "drop (\(message))"
        case .connectFailed(let code, _): "failed connect (\(code))"
        }
    }
}

/// One connection of a replay: the client's frames are queued for the player, the player's go to
/// the client.
final class PlayedConnection: WebSocketConnection {
    private struct State {
        var fromClient: [ClientEvent] = []
        var taken = 0
        var isClosed = false
        /// Frames sent to the client.
        var sent = 0
        /// How many times the client's reader asked for the next event.
        var demands = 0
    }

    let subprotocol: String?
    let inbound: WebSocketInbound
    private let server: WebSocketInbound.Continuation
    private let state = Observed(State())

    init(subprotocol: String?) {
        self.subprotocol = subprotocol
        let state = state
        (inbound, server) = WebSocketInbound.makeStream(onDemand: { state.update { $0.demands += 1 } })
    }

    /// Returns once the client's reader has handled every frame sent so far (it asked for the
    /// one after), or the connection is closed. Time must not move before that: a frame still
    /// in flight when a keep-alive deadline fires would be lost with the connection.
    func waitUntilRead() async {
        await state.wait { $0.isClosed || $0.sent == 0 || $0.demands > $0.sent }
    }

    func send(_ message: WebSocketMessage) async throws {
        let closed = state.update { state -> Bool in
            guard !state.isClosed else { return true }
            if case .text(let text) = message { state.fromClient.append(.frame(text)) }
            return false
        }
        if closed { throw SwitchboardError(code: .network, message: "send on a closed WebSocket") }
    }

    func close(code: WebSocketCloseCode, reason: String) async {
        // A client that closes a socket the server already closed still said so; the
        // recording has that close too.
        let first = state.update { state -> Bool in
            state.fromClient.append(.close(code.rawValue, reason))
            defer { state.isClosed = true }
            return !state.isClosed
        }
        if first {
            server.yield(.closed(WebSocketClose(code: code, reason: reason)))
            server.finish()
        }
    }

    func takeFromClient() -> ClientEvent? {
        state.update { state -> ClientEvent? in
            guard state.fromClient.count > state.taken else { return nil }
            defer { state.taken += 1 }
            return state.fromClient[state.taken]
        }
    }

    func waitForClient() async {
        await state.wait { $0.fromClient.count > $0.taken }
    }

    func serverSends(_ text: String) {
        let open = state.update { state -> Bool in
            guard !state.isClosed else { return false }
            state.sent += 1
            return true
        }
        if open { server.yield(.message(.text(text))) }
    }

    func serverCloses(code: WebSocketCloseCode, reason: String) {
        guard markClosed() else { return }
        server.yield(.closed(WebSocketClose(code: code, reason: reason)))
        server.finish()
    }

    func serverFails(_ error: SwitchboardError) {
        guard markClosed() else { return }
        server.finish(throwing: error)
    }

    private func markClosed() -> Bool {
        state.update { state -> Bool in
            defer { state.isClosed = true }
            return !state.isClosed
        }
    }
}
