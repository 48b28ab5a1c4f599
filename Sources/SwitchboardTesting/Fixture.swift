import Foundation
import SwitchboardCore

/// A recorded WebSocket conversation: what a client and a server said to each other, over one or
/// more connections, in order.
///
/// The file format is JSON Lines and extends the emulator's recording format (see the
/// "Recording fixtures" article): an optional first line describes the fixture, then one line
/// per frame, close, drop or failed connect. ``FixtureRecorder`` writes it on the client side,
/// the emulator on the server side, and ``FixturePlayer`` replays it.
public struct Fixture: Sendable, Equatable {
    /// What the fixture is about; the optional first line, `{"fixture": {…}}`.
    public var header: Header?
    /// The lines after the header, in the order they happened.
    public var entries: [Entry]

    /// Creates a fixture.
    public init(header: Header? = nil, entries: [Entry] = []) {
        self.header = header
        self.entries = entries
    }

    /// Describes a fixture: the scenario, the transport, and who was signed in.
    public struct Header: Codable, Sendable, Equatable {
        /// The scenario's name, such as `all-event-types`.
        public var scenario: String
        /// `appsync` or `graphql`.
        public var transport: String
        /// The WebSocket subprotocol or GraphQL dialect, such as `graphql-transport-ws`.
        public var dialect: String
        /// The signed-in user's id.
        public var userId: String
        /// The signed-in user's organization id.
        public var orgId: String
        /// What happens in the scenario, for people reading the file.
        public var summary: String?

        /// Creates a header.
        public init(scenario: String, transport: String, dialect: String, userId: String, orgId: String, summary: String? = nil) {
            self.scenario = scenario
            self.transport = transport
            self.dialect = dialect
            self.userId = userId
            self.orgId = orgId
            self.summary = summary
        }
    }

    /// Which side sent a frame or closed a connection.
    public enum Direction: String, Codable, Sendable {
        /// From the client to the server.
        case clientToServer = "in"
        /// From the server to the client.
        case serverToClient = "out"
    }

    /// One line of a fixture.
    public struct Entry: Codable, Sendable, Equatable {
        /// What happened.
        public enum Event: Sendable, Equatable {
            /// A text frame.
            case frame(Direction, String)
            /// A close frame, sent by the given side.
            case close(Direction, code: UInt16, reason: String)
            /// The socket failed without a close frame (a reset, an abort); the message says how.
            case drop(String)
            /// The connect attempt failed before a WebSocket was open.
            case connectFailed(code: String, message: String)
        }

        /// The connection's number: 1, 2, … in the order the connections were attempted.
        public var connection: Int
        /// The path the connection was opened on, such as `/event/realtime`.
        public var endpoint: String
        /// The negotiated subprotocol, if any.
        public var `protocol`: String?
        /// Milliseconds since recording started, on the recorder's clock.
        public var offsetMs: Double
        /// What happened.
        public var event: Event

        /// Creates an entry.
        public init(connection: Int, endpoint: String, protocol: String?, offsetMs: Double, event: Event) {
            self.connection = connection
            self.endpoint = endpoint
            self.protocol = `protocol`
            self.offsetMs = offsetMs
            self.event = event
        }

        /// The offset as a duration.
        public var offset: Duration { .microseconds(Int64((offsetMs * 1000).rounded())) }

        private enum CodingKeys: String, CodingKey {
            case connection, endpoint, `protocol`, offsetMs, direction, frame, close, drop, connectFailed
        }

        private struct Close: Codable {
            var code: UInt16
            var reason: String
        }

        private struct Failure: Codable {
            var code: String
            var message: String
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            connection = try container.decode(Int.self, forKey: .connection)
            endpoint = try container.decode(String.self, forKey: .endpoint)
            `protocol` = try container.decodeIfPresent(String.self, forKey: .protocol)
            offsetMs = try container.decode(Double.self, forKey: .offsetMs)
            let direction = try container.decodeIfPresent(Direction.self, forKey: .direction)
            func requireDirection() throws -> Direction {
                guard let direction else {
                    throw DecodingError.keyNotFound(
                        CodingKeys.direction, .init(codingPath: decoder.codingPath, debugDescription: "a frame or close needs a direction"))
                }
                return direction
            }
            if let frame = try container.decodeIfPresent(String.self, forKey: .frame) {
                event = .frame(try requireDirection(), frame)
            } else if let close = try container.decodeIfPresent(Close.self, forKey: .close) {
                event = .close(try requireDirection(), code: close.code, reason: close.reason)
            } else if let drop = try container.decodeIfPresent(String.self, forKey: .drop) {
                event = .drop(drop)
            } else if let failure = try container.decodeIfPresent(Failure.self, forKey: .connectFailed) {
                event = .connectFailed(code: failure.code, message: failure.message)
            } else {
                throw DecodingError.dataCorrupted(.init(
                    codingPath: decoder.codingPath,
                    debugDescription: "a fixture line needs one of frame, close, drop or connectFailed"))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(connection, forKey: .connection)
            try container.encode(endpoint, forKey: .endpoint)
            try container.encodeIfPresent(`protocol`, forKey: .protocol)
            try container.encode(offsetMs, forKey: .offsetMs)
            switch event {
            case .frame(let direction, let text):
                try container.encode(direction, forKey: .direction)
                try container.encode(text, forKey: .frame)
            case .close(let direction, let code, let reason):
                try container.encode(direction, forKey: .direction)
                try container.encode(Close(code: code, reason: reason), forKey: .close)
            case .drop(let message):
                try container.encode(Direction.serverToClient, forKey: .direction)
                try container.encode(message, forKey: .drop)
            case .connectFailed(let code, let message):
                try container.encode(Failure(code: code, message: message), forKey: .connectFailed)
            }
        }
    }
}

// MARK: - Reading and writing

extension Fixture {
    /// Parses JSON Lines text. Blank lines are skipped.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` `decodingFailed`, naming the line, when a line is not a
    ///   fixture line.
    public init(jsonLines text: String) throws {
        var header: Header?
        var entries: [Entry] = []
        let decoder = JSONDecoder()
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            let data = Data(trimmed.utf8)
            do {
                if entries.isEmpty, header == nil, let wrapper = try? decoder.decode(HeaderLine.self, from: data) {
                    header = wrapper.fixture
                    continue
                }
                entries.append(try decoder.decode(Entry.self, from: data))
            } catch {
                throw SwitchboardError(
                    code: .decodingFailed, message: "fixture line \(index + 1) is not a fixture line: \(error)",
                    cause: error)
            }
        }
        self.init(header: header, entries: entries)
    }

    /// Reads a fixture file.
    /// - Throws: ``/SwitchboardCore/SwitchboardError`` `invalidConfiguration` when the file cannot be read,
    ///   `decodingFailed` when a line is not a fixture line.
    public init(contentsOf url: URL) throws {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw SwitchboardError(code: .invalidConfiguration, message: "cannot read fixture \(url.path)", cause: error)
        }
        do {
            try self.init(jsonLines: text)
        } catch let error as SwitchboardError {
            throw SwitchboardError(code: error.code, message: "\(url.lastPathComponent): \(error.message)", cause: error.cause)
        }
    }

    /// The fixture as JSON Lines text: the header (if any), then one line per entry, each with
    /// sorted keys and ending in a newline.
    public var jsonLines: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var lines: [String] = []
        if let header, let data = try? encoder.encode(HeaderLine(fixture: header)) {
            lines.append(String(decoding: data, as: UTF8.self))
        }
        for entry in entries {
            // Encoding these plain values cannot fail.
            if let data = try? encoder.encode(entry) { lines.append(String(decoding: data, as: UTF8.self)) }
        }
        return lines.map { $0 + "\n" }.joined()
    }

    /// Writes ``jsonLines`` to a file atomically.
    public func write(to url: URL) throws {
        try Data(jsonLines.utf8).write(to: url, options: .atomic)
    }

    /// The connection numbers in the order they first appear.
    public var connections: [Int] {
        var seen = Set<Int>()
        return entries.map(\.connection).filter { seen.insert($0).inserted }
    }

    private struct HeaderLine: Codable {
        var fixture: Header
    }
}

// MARK: - Normalising frames

/// How fixture frames are compared: credentials redacted, operation ids named by order of first
/// appearance.
public enum FixtureFrames {
    /// The frame with every credential value replaced by `"REDACTED"`: the values of a key that
    /// names a credential (`authorization`, `token`, `x-api-key`, …) at any depth, or, when it
    /// holds an object, each of its values. Frames that are not JSON objects come back unchanged.
    public static func redacted(_ frame: String) -> String { CredentialRedaction.redacted(frame) }

    static func parse(_ frame: String) -> [String: JSONValue]? {
        (try? JSONValue.parse(frame))?.object
    }

    static func encode(_ object: [String: JSONValue]) -> String {
        (try? JSONValue.object(object).text()) ?? ""
    }

    static func redact(_ object: [String: JSONValue]) -> [String: JSONValue] {
        CredentialRedaction.redact(.object(object)).object ?? [:]
    }

    /// The frame's top-level operation `id`, if it has one.
    static func operationID(_ object: [String: JSONValue]) -> String? {
        switch object["id"] {
        case .string(let id)?: id
        case .integer(let id)?: "\(id)"
        case .number(let id)?: "\(id)"
        default: nil
        }
    }
}
