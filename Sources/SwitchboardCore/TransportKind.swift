/// The name of a transport: which wire protocol carries the events. Exactly one is active at a time.
///
/// Open, not a closed list: `graphql` and `appsync` are built in, and an app may register a
/// transport of its own under any other name (``TransportRegistry``). A name is 1 to 32
/// characters from `a-z`, `0-9` and `-`, starting with a letter, so it can be typed in a config
/// file or an environment variable (`transport = sse`) and stands in metric dimensions and logs
/// as it is.
///
/// Matching the built-in kinds reads as before, with a `default` for the others:
///
/// ```swift
/// switch notifier.transportKind {
/// case .appsync: …
/// case .graphql: …
/// default: …
/// }
/// ```
public struct TransportKind: RawRepresentable, Hashable, Sendable, Codable, Comparable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The name, such as `appsync`.
    public let rawValue: String

    /// The kind with this name; nil when the name breaks the naming rules (see ``TransportKind``).
    /// - Parameter rawValue: The name, exactly as it will be matched (names are lower case).
    public init?(rawValue: String) {
        guard Self.isValidName(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    /// A kind from a literal, for a transport's own constant (`static let sse: TransportKind = "sse"`).
    /// A literal that breaks the naming rules stops the program: it is a programming error.
    public init(stringLiteral value: String) {
        guard Self.isValidName(value) else {
            preconditionFailure("\(value.debugDescription) is not a transport name: use 1 to 32 of a-z, 0-9 and -, starting with a letter")
        }
        self.rawValue = value
    }

    /// Decodes a name, failing with a `DecodingError` for one that breaks the naming rules.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let kind = TransportKind(rawValue: name) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\(name.debugDescription) is not a transport name")
        }
        self = kind
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The legacy GraphQL-over-WebSocket subscriptions (`SwitchboardGraphQL`'s `GraphQLSubscriber`).
    public static let graphql: TransportKind = "graphql"
    /// AWS AppSync Events (`SwitchboardAppSync`'s `AppSyncEventsSubscriber`).
    public static let appsync: TransportKind = "appsync"
    /// The kinds this package ships a transport for: `graphql`, `appsync`.
    public static let builtIn: [TransportKind] = [.graphql, .appsync]

    /// Not a transport: the origin stamped on events that a catch-up read from the backend's event
    /// log rather than received live. No transport may be registered under this name.
    public static let catchUp: TransportKind = "catch-up"

    /// The built-in kinds, as when `TransportKind` was a closed enum.
    @available(*, deprecated, renamed: "builtIn", message: "TransportKind is open now; registered transports may add more")
    public static var allCases: [TransportKind] { builtIn }

    private static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...32).contains(bytes.count), let first = bytes.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first)
        else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        }
    }
}
