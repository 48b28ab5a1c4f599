import Foundation
import Switchboard
import Testing

@Suite("Stream catalog")
struct StreamCatalogTests {
    /// contract.md §3 and §4: stream, channel below `vortex-app/user/{userId}/`, eventTypes, legacy
    /// field (which SwitchboardGraphQLTests' planning tests check against `GraphQLSubscriber.plan`).
    static let contract: [(StreamID, String, Set<String>, String)] = [
        ("devicePresence", "device/presenceChanged", ["device/presenceChanged"], "subscribeDeviceState"),
        ("deviceRecording", "device/recordingStateChanged", ["device/recordingStateChanged"], "subscribeDeviceState"),
        ("deviceFirmware", "device/firmwareUpdated", ["device/firmwareUpdated"], "subscribeDeviceState"),
        ("archive", "archive/stateChanged", ["archive/stateChanged"], "subscribeArchiveState"),
        ("license", "organization/licensePhaseChanged", ["organization/licensePhaseChanged"], "subscribeOrganizationState"),
        ("plan", "organization/planChanged", ["organization/planChanged"], "subscribeOrganizationState"),
        ("aiSettings", "organization/aiSettingsChanged", ["organization/aiSettingsChanged"], "subscribeOrganizationState"),
        ("role", "roleChanged", ["user/roleChanged"], "subscribeRoleChange"),
        ("tokenRevoke", "tokenRevoked", ["user/tokenRevoked"], "subscribeUserTokenRevoke"),
        ("device", "device/*", ["device/presenceChanged", "device/recordingStateChanged", "device/firmwareUpdated"], "subscribeDeviceState"),
        ("organization", "organization/*",
         ["organization/licensePhaseChanged", "organization/planChanged", "organization/aiSettingsChanged"],
         "subscribeOrganizationState"),
    ]

    @Test("the catalog has exactly the contract's eleven streams")
    func elevenStreams() {
        #expect(Set(StreamCatalog.all.map(\.id)) == Set(Self.contract.map(\.0)))
        #expect(StreamCatalog.all.count == 11)
        #expect(Set(StreamCatalog.all.map { ObjectIdentifier($0.outputType) }).count == 11, "one model type per stream")
    }

    @Test("each entry matches the contract", arguments: contract.map { $0.0.rawValue })
    func entry(id: String) throws {
        let expected = try #require(Self.contract.first { $0.0.rawValue == id })
        let descriptor = StreamCatalog.descriptor(expected.0)
        #expect(descriptor.channel == expected.1)
        #expect(descriptor.eventTypes == expected.2)
        let channel = StreamCatalog.channel(descriptor.channel, namespace: "vortex-app", userId: "user-1")
        #expect(throws: Never.self) { try ChannelPath(channel, allowWildcard: true) }
    }

    @Test("a merged stream covers exactly its family's event types")
    func mergedCoversFamily() {
        for merged in StreamCatalog.all where merged.isMerged {
            let members = StreamCatalog.all.filter { $0.family == merged.family && !$0.isMerged }
            #expect(members.count == 3)
            #expect(merged.eventTypes == Set(members.flatMap(\.eventTypes)))
        }
    }
}
