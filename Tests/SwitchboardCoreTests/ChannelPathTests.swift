import SwitchboardCore
import Testing

private func channelError(_ channel: String, _ detail: String) -> SwitchboardError {
    SwitchboardError(code: .invalidChannel, message: "invalid channel \(channel.debugDescription): \(detail)")
}

private let fifty = String(repeating: "a", count: 50)
private let fiftyOne = String(repeating: "b", count: 51)

@Suite("ChannelPath")
struct ChannelPathTests {
    @Test("valid paths parse and normalise", arguments: [
        ("default", ["default"]),
        ("/default/x", ["default", "x"]),
        ("default/x/", ["default", "x"]),
        ("/a/b/c/d/e/", ["a", "b", "c", "d", "e"]),
        ("a-b/C-9/x", ["a-b", "C-9", "x"]),
        ("ns/\(fifty)", ["ns", fifty]),
        ("A/b", ["A", "b"]),
        ("1/2", ["1", "2"]),
    ])
    func valid(string: String, segments: [String]) throws {
        for allowWildcard in [false, true] {
            let path = try ChannelPath(string, allowWildcard: allowWildcard)
            #expect(path.segments == segments)
            #expect(path.namespace == segments[0])
            #expect(path.description == segments.joined(separator: "/"))
            #expect(!path.isWildcard)
        }
    }

    @Test("invalid paths throw invalidChannel saying which segment and why", arguments: [
        ("", "it has no segments (a channel needs 1 to 5)"),
        ("/", "it has no segments (a channel needs 1 to 5)"),
        ("a//b", "segment 2 is empty (double slash)"),
        ("//a", "segment 1 is empty (double slash)"),
        ("a/b//", "segment 3 is empty (double slash)"),
        ("a/b/c/d/e/f", "too many segments (6 > 5)"),
        ("ns/\(fiftyOne)", "segment 2 \"\(fiftyOne)\" is too long: 51 chars > 50"),
        ("ns/user_1", #"segment 2 "user_1" has illegal character '_' at position 5 (allowed: A-Z, a-z, 0-9 and '-')"#),
        ("ns/a b", #"segment 2 "a b" has illegal character ' ' at position 2 (allowed: A-Z, a-z, 0-9 and '-')"#),
        ("ns/x/é", #"segment 3 "é" has illegal character 'é' at position 1 (allowed: A-Z, a-z, 0-9 and '-')"#),
        ("ns/ab*", #"segment 2 "ab*" has illegal character '*' at position 3 (allowed: A-Z, a-z, 0-9 and '-')"#),
        ("ns.v1/x", #"segment 1 "ns.v1" has illegal character '.' at position 3 (allowed: A-Z, a-z, 0-9 and '-')"#),
        ("-ns/x", #"segment 1 "-ns" starts with '-'"#),
        ("ns/x-", #"segment 2 "x-" ends with '-'"#),
        ("ns/-", #"segment 2 "-" starts with '-'"#),
        ("ns/*/x", #"segment 2 "*": a wildcard is allowed only as the last segment"#),
        ("*", #"segment 1 "*": the namespace cannot be a wildcard"#),
        ("/*/", #"segment 1 "*": the namespace cannot be a wildcard"#),
    ])
    func invalid(string: String, detail: String) {
        for allowWildcard in [false, true] {
            #expect(throws: channelError(string, detail)) { try ChannelPath(string, allowWildcard: allowWildcard) }
        }
    }

    @Test("a final wildcard is allowed to subscribe, not to publish")
    func wildcardOnlyForSubscribe() throws {
        let path = try ChannelPath("/vortex-app/user/42/device/*", allowWildcard: true)
        #expect(path.isWildcard)
        #expect(path.description == "vortex-app/user/42/device/*")
        #expect(throws: channelError("vortex-app/user/42/device/*",
            #"segment 5 "*": a wildcard is not allowed for publish"#)
        ) { try ChannelPath("vortex-app/user/42/device/*", allowWildcard: false) }
    }

    @Test("paths are case-sensitive and equal regardless of slashes")
    func equality() throws {
        #expect(try ChannelPath("/a/B/", allowWildcard: false) == ChannelPath("a/B", allowWildcard: false))
        #expect(try ChannelPath("a/B", allowWildcard: false) != ChannelPath("a/b", allowWildcard: false))
    }

    @Test("wildcards match any depth below their prefix", arguments: [
        ("a/*", "a/b", true), ("a/*", "a/b/c", true), ("a/*", "a/b/c/d/e", true), ("a/*", "a", false),
        ("a/*", "b/c", false), ("a/b/*", "a/b/c", true), ("a/b/*", "a/c/d", false), ("a/b/*", "A/b/c", false),
        ("a/b/*", "a/b/c/*", true), ("a/b", "a/b", true), ("a/b", "a/b/c", false), ("a/b", "a/B", false),
    ])
    func matching(pattern: String, concrete: String, expected: Bool) throws {
        let pattern = try ChannelPath(pattern, allowWildcard: true)
        let concrete = try ChannelPath(concrete, allowWildcard: true)
        #expect(pattern.matches(concrete) == expected)
    }

    @Test("the builder validates each segment")
    func builder() throws {
        let path = try ChannelPath(namespace: "vortex-app", segments: ["user", "u-1", "device", "*"], allowWildcard: true)
        #expect(path.description == "vortex-app/user/u-1/device/*")
        #expect(try ChannelPath(namespace: "ns", segments: []).description == "ns")
        #expect(throws: channelError("ns/a/b",
            #"segment 2 "a/b" has illegal character '/' at position 2 (allowed: A-Z, a-z, 0-9 and '-')"#)
        ) { try ChannelPath(namespace: "ns", segments: ["a/b"]) }
        #expect(throws: channelError("ns/x/*", #"segment 3 "*": a wildcard is not allowed for publish"#)) {
            try ChannelPath(namespace: "ns", segments: ["x", "*"])
        }
        #expect(throws: channelError("ns//x", "segment 2 is empty (double slash)")) {
            try ChannelPath(namespace: "ns", segments: ["", "x"])
        }
    }

    @Test("validateSegment checks one concrete segment", arguments: [
        ("", "is empty"),
        ("*", "is a wildcard, not a concrete segment"),
        ("user@example.com", "has illegal character '@' at position 5 (allowed: A-Z, a-z, 0-9 and '-')"),
        ("-1", "starts with '-'"),
        (fiftyOne, "is too long: 51 chars > 50"),
    ])
    func validateSegmentInvalid(segment: String, problem: String) {
        #expect(throws: SwitchboardError(
            code: .invalidChannel, message: "invalid channel segment \(segment.debugDescription): it \(problem)")
        ) { try ChannelPath.validateSegment(segment) }
    }

    @Test("validateSegment accepts good ids", arguments: ["u-123", "A", fifty, "0f8fad5b-d9cb-469f-a165-70867728950e"])
    func validateSegmentValid(segment: String) throws {
        try ChannelPath.validateSegment(segment)
    }

    @Test("the contract's 11 channels are valid for a sample user")
    func contractChannels() throws {
        let userId = "0f8fad5b-d9cb-469f-a165-70867728950e"
        let relative = [
            "device/presenceChanged", "device/recordingStateChanged", "device/firmwareUpdated",
            "archive/stateChanged", "organization/licensePhaseChanged", "organization/planChanged",
            "organization/aiSettingsChanged", "roleChanged", "tokenRevoked", "device/*", "organization/*",
        ]
        #expect(relative.count == 11)
        for channel in relative {
            let path = try ChannelPath("vortex-app/user/\(userId)/\(channel)", allowWildcard: true)
            #expect(path.namespace == "vortex-app")
            #expect(path.isWildcard == channel.hasSuffix("*"))
        }
        let merged = try ChannelPath("vortex-app/user/\(userId)/device/*", allowWildcard: true)
        #expect(merged.matches(try ChannelPath("vortex-app/user/\(userId)/device/presenceChanged", allowWildcard: false)))
        #expect(!merged.matches(try ChannelPath("vortex-app/user/\(userId)/roleChanged", allowWildcard: false)))
    }
}

@Suite("OperationID")
struct OperationIDTests {
    @Test("valid ids", arguments: [
        "a", "sub-1", "A_b+c-D", "0f8fad5b-d9cb-469f-a165-70867728950e", String(repeating: "x", count: 128),
    ])
    func valid(id: String) throws {
        try OperationID.validate(id)
    }

    @Test("invalid ids say why", arguments: [
        ("", "it is empty (an id has 1 to 128 characters)"),
        (String(repeating: "x", count: 129), "it is too long: 129 chars > 128"),
        ("sub 1", "illegal character ' ' at position 4 (allowed: A-Z, a-z, 0-9, '_', '+' and '-')"),
        ("a/b", "illegal character '/' at position 2 (allowed: A-Z, a-z, 0-9, '_', '+' and '-')"),
        ("ab=", "illegal character '=' at position 3 (allowed: A-Z, a-z, 0-9, '_', '+' and '-')"),
    ])
    func invalid(id: String, detail: String) {
        #expect(throws: SwitchboardError(
            code: .invalidChannel, message: "invalid operation id \(id.debugDescription): \(detail)")
        ) { try OperationID.validate(id) }
    }
}
