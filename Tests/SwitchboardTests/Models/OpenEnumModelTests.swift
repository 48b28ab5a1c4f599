import Foundation
import Switchboard
import SwitchboardCore
import Testing

extension ModelTests {
    @Suite("Enums with an unknown case")
    struct OpenEnums {
        /// Wraps an enum so it can be decoded from a JSON object on every Foundation.
        struct Box<Value: Codable & Equatable>: Codable, Equatable {
            var value: Value
        }

        static func decode<Value: Codable & Equatable>(_ type: Value.Type, _ raw: String) throws -> Value {
            try JSONDecoder().decode(Box<Value>.self, from: Data(#"{"value":"\#(raw)"}"#.utf8)).value
        }

        static func encodedRaw<Value: Codable & Equatable>(_ value: Value) throws -> String {
            String(decoding: try JSONEncoder().encode(Box(value: value)), as: UTF8.self)
        }

        @Test(
            "ArchiveStatus wire values",
            arguments: zip(
                ["Pending", "Uploading", "Processing", "Ready", "Failed", "Deleted"],
                [ArchiveStatus.pending, .uploading, .processing, .ready, .failed, .deleted]
            )
        )
        func archiveStatus(raw: String, status: ArchiveStatus) throws {
            #expect(ArchiveStatus(rawValue: raw) == status)
            #expect(status.rawValue == raw)
            #expect(try Self.decode(ArchiveStatus.self, raw) == status)
            #expect(try Self.encodedRaw(status) == #"{"value":"\#(raw)"}"#)
        }

        @Test(
            "LicensePhase wire values",
            arguments: zip(
                ["SetupStatus", "Valid", "NoticePeriod", "GracePeriod", "RenewalOverdue", "Invalid"],
                [LicensePhase.setupStatus, .valid, .noticePeriod, .gracePeriod, .renewalOverdue, .invalid]
            )
        )
        func licensePhase(raw: String, phase: LicensePhase) throws {
            #expect(LicensePhase(rawValue: raw) == phase)
            #expect(phase.rawValue == raw)
            #expect(try Self.decode(LicensePhase.self, raw) == phase)
            #expect(try Self.encodedRaw(phase) == #"{"value":"\#(raw)"}"#)
        }

        @Test("TokenRevokeReason wire values")
        func tokenRevokeReason() throws {
            #expect(TokenRevokeReason(rawValue: "PASSWORD_CHANGED") == .passwordChanged)
            #expect(TokenRevokeReason.passwordChanged.rawValue == "PASSWORD_CHANGED")
            #expect(try Self.decode(TokenRevokeReason.self, "PASSWORD_CHANGED") == .passwordChanged)
            #expect(try Self.encodedRaw(TokenRevokeReason.passwordChanged) == #"{"value":"PASSWORD_CHANGED"}"#)
        }

        @Test("known-case lists are complete and exclude unknown")
        func knownCases() {
            #expect(ArchiveStatus.knownCases.map(\.rawValue) == ["Pending", "Uploading", "Processing", "Ready", "Failed", "Deleted"])
            #expect(LicensePhase.knownCases.map(\.rawValue)
                == ["SetupStatus", "Valid", "NoticePeriod", "GracePeriod", "RenewalOverdue", "Invalid"])
            #expect(TokenRevokeReason.knownCases == [.passwordChanged])
        }

        @Test("unknown raw values decode to unknown(raw) and encode back unchanged", arguments: ["Archived", "ready", "", "PASSWORD_RESET"])
        func unknownValues(raw: String) throws {
            let status = try Self.decode(ArchiveStatus.self, raw)
            #expect(status == .unknown(raw))
            #expect(try Self.encodedRaw(status) == #"{"value":"\#(raw)"}"#)
            let phase = try Self.decode(LicensePhase.self, raw)
            #expect(phase == .unknown(raw))
            #expect(try Self.encodedRaw(phase) == #"{"value":"\#(raw)"}"#)
            let reason = try Self.decode(TokenRevokeReason.self, raw)
            #expect(reason == .unknown(raw))
            #expect(try Self.encodedRaw(reason) == #"{"value":"\#(raw)"}"#)
        }

        @Test("matching is case-sensitive and an unknown case never equals another raw value")
        func caseSensitivity() {
            if case .unknown("ready") = ArchiveStatus(rawValue: "ready") {} else {
                Issue.record("lower-case 'ready' must be unknown")
            }
            #expect(ArchiveStatus.unknown("Archived") != .unknown("Deleted"))
            #expect(LicensePhase(rawValue: "valid") != .valid)
        }

        @Test("equality and hashing follow the wire text")
        func equalityByRawValue() {
            #expect(ArchiveStatus.unknown("Ready") == .ready)
            #expect(Set([ArchiveStatus.unknown("Ready"), .ready]).count == 1)
            #expect(Set(LicensePhase.knownCases).count == LicensePhase.knownCases.count)
        }
    }
}
