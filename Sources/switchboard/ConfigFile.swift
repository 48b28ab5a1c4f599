import ArgumentParser
import Foundation

/// The JSON file `--config FILE` names. Every key is optional and a command-line flag wins over
/// it; `transport` follows ``TransportSelection``'s order (flag, then `SWITCHBOARD_TRANSPORT`,
/// then this file).
///
/// ```json
/// {
///   "transport": "appsync",
///   "url": "wss://example.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime",
///   "httpUrl": "https://example.appsync-api.eu-west-1.amazonaws.com/event",
///   "auth": "api-key:da2-…",
///   "graphqlProtocol": "graphql-ws",
///   "userId": "u1",
///   "orgId": "o1",
///   "reconnectDelay": 2,
///   "namespace": "vortex-app"
/// }
/// ```
struct ConfigFile: Decodable, Sendable, Equatable {
    var transport: String?
    var url: String?
    var httpUrl: String?
    var auth: String?
    var graphqlProtocol: String?
    var userId: String?
    var orgId: String?
    var reconnectDelay: Double?
    /// The AppSync Events channel namespace (`check`, `shadow`); `vortex-app` when absent.
    var namespace: String?

    init(
        transport: String? = nil, url: String? = nil, httpUrl: String? = nil, auth: String? = nil,
        graphqlProtocol: String? = nil, userId: String? = nil, orgId: String? = nil, reconnectDelay: Double? = nil,
        namespace: String? = nil
    ) {
        self.transport = transport
        self.url = url
        self.httpUrl = httpUrl
        self.auth = auth
        self.graphqlProtocol = graphqlProtocol
        self.userId = userId
        self.orgId = orgId
        self.reconnectDelay = reconnectDelay
        self.namespace = namespace
    }

    /// Reads `path`, or returns an empty configuration when `path` is nil.
    /// - Throws: `ValidationError` naming the file and the problem (missing, not JSON, a key
    ///   with the wrong type).
    static func load(_ path: String?) throws -> ConfigFile {
        guard let path else { return ConfigFile() }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("cannot read config file \(path): \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(ConfigFile.self, from: data)
        } catch let DecodingError.typeMismatch(type, context) {
            throw ValidationError(
                "config file \(path): '\(context.codingPath.map(\.stringValue).joined(separator: "."))' must be \(type)")
        } catch {
            throw ValidationError("config file \(path) is not a JSON object: \(error)")
        }
    }
}

/// How `listen` and `publish` authorize: `api-key:KEY`, `jwt:TOKEN` or `lambda:TOKEN`.
enum AuthSpec: Sendable, Equatable, ExpressibleByArgument, CustomStringConvertible {
    case apiKey(String)
    case jwt(String)
    case lambda(String)

    init?(argument: String) { try? self.init(parsing: argument) }

    /// Parses `mode:secret`.
    /// - Throws: `ValidationError` for an unknown mode or an empty secret; the message never
    ///   repeats the secret.
    init(parsing text: String) throws {
        guard let colon = text.firstIndex(of: ":") else {
            throw ValidationError("--auth must be api-key:KEY, jwt:TOKEN or lambda:TOKEN")
        }
        let mode = text[..<colon]
        let secret = String(text[text.index(after: colon)...])
        guard !secret.isEmpty else { throw ValidationError("--auth \(mode): the key or token is empty") }
        switch mode {
        case "api-key": self = .apiKey(secret)
        case "jwt": self = .jwt(secret)
        case "lambda": self = .lambda(secret)
        default: throw ValidationError("--auth mode '\(mode)' is unknown; use api-key, jwt or lambda")
        }
    }

    /// The mode only: secrets are never printed.
    var description: String {
        switch self {
        case .apiKey: "api-key"
        case .jwt: "jwt"
        case .lambda: "lambda"
        }
    }

    /// The token or key itself.
    var secret: String {
        switch self {
        case .apiKey(let secret), .jwt(let secret), .lambda(let secret): secret
        }
    }
}
