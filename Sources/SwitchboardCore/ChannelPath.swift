/// A validated AWS AppSync Events channel path, such as `vortex-app/user/42/device/*`.
///
/// The rules (checked locally, so a bad path is a clear error here rather than a vague rejection
/// from the server):
/// - 1 to 5 segments separated by `/`; a leading and a trailing `/` are optional.
/// - Each segment has 1 to 50 characters from `A-Z`, `a-z`, `0-9` and `-`, and does not start or
///   end with `-`. Paths are case-sensitive.
/// - The first segment is the namespace.
/// - `*` may appear only as the whole final segment, and only where wildcards are allowed
///   (subscribing, not publishing). The namespace itself cannot be `*`.
///
/// Two paths are equal when their segments are; `"/a/b/"` and `"a/b"` are the same path.
public struct ChannelPath: Hashable, Sendable, CustomStringConvertible {
    /// The most segments a path may have.
    public static let maximumSegmentCount = 5
    /// The most characters a segment may have.
    public static let maximumSegmentLength = 50
    /// The wildcard segment.
    public static let wildcard = "*"

    /// The segments, without slashes. The first is the namespace.
    public let segments: [String]

    /// Parses and validates a path.
    /// - Parameters:
    ///   - string: The path, with or without a leading and trailing `/`.
    ///   - allowWildcard: Whether a final `*` segment is allowed: `true` to subscribe, `false` to
    ///     publish.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/invalidChannel``; the message
    ///   names the offending segment (1-based index and text) and the rule it breaks.
    public init(_ string: String, allowWildcard: Bool) throws {
        var body = Substring(string)
        if body.hasPrefix("/") { body = body.dropFirst() }
        if body.hasSuffix("/") { body = body.dropLast() }
        guard !body.isEmpty else {
            throw Self.error(string, "it has no segments (a channel needs 1 to \(Self.maximumSegmentCount))")
        }
        let segments = body.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        try self.init(validating: segments, original: string, allowWildcard: allowWildcard)
    }

    /// Builds a path from a namespace and further segments, validating each one.
    ///
    /// ```swift
    /// let channel = try ChannelPath(namespace: "vortex-app", segments: ["user", userId, "device", "*"],
    ///                               allowWildcard: true)
    /// ```
    /// - Parameters:
    ///   - namespace: The first segment.
    ///   - segments: The segments after the namespace (at most 4); none may contain `/`.
    ///   - allowWildcard: Whether a final `*` segment is allowed: `true` to subscribe, `false` to
    ///     publish.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/invalidChannel``, as
    ///   ``init(_:allowWildcard:)`` does; a segment containing `/` is an illegal character.
    public init(namespace: String, segments: [String], allowWildcard: Bool = false) throws {
        let all = [namespace] + segments
        try self.init(validating: all, original: all.joined(separator: "/"), allowWildcard: allowWildcard)
    }

    private init(validating segments: [String], original: String, allowWildcard: Bool) throws {
        guard segments.count <= Self.maximumSegmentCount else {
            throw Self.error(original, "too many segments (\(segments.count) > \(Self.maximumSegmentCount))")
        }
        for (offset, segment) in segments.enumerated() {
            let label = "segment \(offset + 1) \(segment.debugDescription)"
            if segment == Self.wildcard {
                if offset == 0 {
                    throw Self.error(original, "\(label): the namespace cannot be a wildcard")
                }
                if offset != segments.count - 1 {
                    throw Self.error(original, "\(label): a wildcard is allowed only as the last segment")
                }
                if !allowWildcard {
                    throw Self.error(original, "\(label): a wildcard is not allowed for publish")
                }
                continue
            }
            if segment.isEmpty {
                throw Self.error(original, "segment \(offset + 1) is empty (double slash)")
            }
            if let problem = Self.problem(with: segment) {
                throw Self.error(original, "\(label) \(problem)")
            }
        }
        self.segments = segments
    }

    /// Checks that a value can be used as one concrete segment (not a wildcard), for example a
    /// `userId` before it is placed into a channel.
    /// - Parameter segment: The candidate segment.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/invalidChannel``, naming the
    ///   rule the value breaks.
    public static func validateSegment(_ segment: String) throws {
        let problem: String? =
            if segment.isEmpty { "is empty" }
            else if segment == wildcard { "is a wildcard, not a concrete segment" }
            else { Self.problem(with: segment) }
        if let problem {
            throw SwitchboardError(
                code: .invalidChannel, message: "invalid channel segment \(segment.debugDescription): it \(problem)")
        }
    }

    /// The namespace: the first segment.
    public var namespace: String { segments[0] }

    /// Whether the path ends in the wildcard `*`.
    public var isWildcard: Bool { segments.last == Self.wildcard }

    /// The path without a leading or trailing slash, such as `vortex-app/user/42/device/*`.
    public var description: String { segments.joined(separator: "/") }

    /// Whether an event published to `concrete` reaches a subscription to this path.
    ///
    /// A path without a wildcard matches only an equal path. A path ending in `*` matches any path
    /// that starts with the segments before the `*` and has at least one more segment, at any
    /// depth: `a/*` matches `a/b` and `a/b/c`, not `a`. A wildcard `concrete` is matched like
    /// any other path, so `a/*` also covers `a/b/*`.
    /// - Parameter concrete: The path an event was published to.
    /// - Returns: `true` if a subscription to `self` receives events published to `concrete`.
    public func matches(_ concrete: ChannelPath) -> Bool {
        guard isWildcard else { return self == concrete }
        let prefix = segments.dropLast()
        return concrete.segments.count > prefix.count && concrete.segments.starts(with: prefix)
    }

    /// Describes what is wrong with a non-empty, non-wildcard segment, or returns nil.
    private static func problem(with segment: String) -> String? {
        let length = segment.count
        if length > maximumSegmentLength {
            return "is too long: \(length) chars > \(maximumSegmentLength)"
        }
        for (offset, character) in segment.enumerated() where !isAllowed(character) {
            return "has illegal character '\(character)' at position \(offset + 1)"
                + " (allowed: A-Z, a-z, 0-9 and '-')"
        }
        if segment.hasPrefix("-") { return "starts with '-'" }
        if segment.hasSuffix("-") { return "ends with '-'" }
        return nil
    }

    private static func isAllowed(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        switch ascii {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    private static func error(_ original: String, _ detail: String) -> SwitchboardError {
        SwitchboardError(code: .invalidChannel, message: "invalid channel \(original.debugDescription): \(detail)")
    }
}

/// Validation of the client-chosen ids that correlate AppSync Events operations (subscribe and
/// publish ids).
public enum OperationID {
    /// The most characters an id may have.
    public static let maximumLength = 128

    /// Checks an id against `^[A-Za-z0-9_+-]{1,128}$`.
    /// - Parameter id: The candidate id.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/invalidChannel``, saying why
    ///   the id is invalid (empty, too long, or which character at which position is illegal).
    public static func validate(_ id: String) throws {
        if id.isEmpty {
            throw error(id, "it is empty (an id has 1 to \(maximumLength) characters)")
        }
        let length = id.count
        if length > maximumLength {
            throw error(id, "it is too long: \(length) chars > \(maximumLength)")
        }
        for (offset, character) in id.enumerated() where !isAllowed(character) {
            throw error(
                id, "illegal character '\(character)' at position \(offset + 1) (allowed: A-Z, a-z, 0-9, '_', '+' and '-')")
        }
    }

    private static func isAllowed(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        switch ascii {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "+"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }

    private static func error(_ id: String, _ detail: String) -> SwitchboardError {
        SwitchboardError(code: .invalidChannel, message: "invalid operation id \(id.debugDescription): \(detail)")
    }
}
