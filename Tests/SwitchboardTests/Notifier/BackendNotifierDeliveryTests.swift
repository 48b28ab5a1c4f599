import Foundation
import Switchboard
import SwitchboardTesting
import Testing

@Suite("BackendNotifier delivery", .timeLimit(.minutes(1)))
struct BackendNotifierDeliveryTests {
    @Test("AppSync: merged and per-channel streams together get each event exactly once")
    func appSyncMergedAndPerChannel() async throws {
        try await NotifierHarness.run(.appsync) { h in
            var merged = await h.notifier.deviceValues().makeAsyncIterator()
            var presence = await h.notifier.devicePresenceValues().makeAsyncIterator()
            var presence2 = await h.notifier.devicePresenceValues().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            let wildcard = NotifierHarness.channel("device/*")
            await h.waitForSubscriptions([wildcard])

            h.transport.deliver(AppSyncPayload.presence("cam-1", online: true), on: wildcard)
            h.transport.deliver(AppSyncPayload.recording("cam-1", recording: true), on: wildcard)
            h.transport.deliver(AppSyncPayload.presence("cam-2", online: false), on: wildcard)

            let mergedValues = await take(3, from: &merged)
            #expect(mergedValues.map(\.thingName) == ["cam-1", "cam-1", "cam-2"])
            #expect(mergedValues.map(\.online) == [true, nil, false])
            #expect(mergedValues.map(\.recording) == [nil, true, nil])
            #expect(mergedValues.first?.eventType == "device/presenceChanged")

            // The recording event must not reach the presence streams, and nothing twice: the
            // next value after cam-1 is cam-2.
            let first = await take(2, from: &presence)
            let second = await take(2, from: &presence2)
            for values in [first, second] {
                #expect(values.map(\.thingName) == ["cam-1", "cam-2"])
                #expect(values.map(\.online) == [true, false])
                #expect(values.first?.siteId == "s1")
            }
        }
    }

    @Test("GraphQL: one DeviceState feeds every per-channel stream whose field is set")
    func graphQLSelectionRules() async throws {
        try await NotifierHarness.run(.graphql) { h in
            var merged = await h.notifier.deviceValues().makeAsyncIterator()
            var presence = await h.notifier.devicePresenceValues().makeAsyncIterator()
            var recording = await h.notifier.deviceRecordingValues().makeAsyncIterator()
            var firmware = await h.notifier.deviceFirmwareValues().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            let key: SubscriptionKey = "graphql/subscribeDeviceState"
            await h.waitForSubscriptions([key])

            h.transport.deliver(GraphQLPayload.deviceState("cam-1", fields: #""online":true,"recording":true,"fwUpdateState":null"#), on: key)
            h.transport.deliver(GraphQLPayload.deviceState("cam-2", fields: #""fwUpdateState":3"#), on: key)
            h.transport.deliver(GraphQLPayload.deviceState("cam-3", fields: #""online":false"#), on: key)

            #expect(await take(3, from: &merged).map(\.thingName) == ["cam-1", "cam-2", "cam-3"])
            let presenceValues = await take(2, from: &presence)
            #expect(presenceValues.map(\.thingName) == ["cam-1", "cam-3"])
            #expect(presenceValues.map(\.online) == [true, false])
            #expect(presenceValues.first?.siteId == "s1")
            #expect(presenceValues.first?.eventType == nil)
            let firmwareValues = await take(1, from: &firmware)
            #expect(firmwareValues.map(\.fwUpdateState) == [3])
            // Recording: only cam-1; a later recording event proves nothing else was queued.
            h.transport.deliver(GraphQLPayload.deviceState("cam-4", fields: #""recording":false"#), on: key)
            #expect(await take(2, from: &recording).map(\.thingName) == ["cam-1", "cam-4"])
        }
    }

    @Test("the same logical event is the same typed value on both transports, apart from eventType and timestamp")
    func crossTransportEquality() async throws {
        var appSync: DevicePresenceOutput?
        var graphQL: DevicePresenceOutput?
        try await NotifierHarness.run(.appsync) { h in
            var presence = await h.notifier.devicePresenceValues().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            let key = NotifierHarness.channel("device/presenceChanged")
            await h.waitForSubscriptions([key])
            h.transport.deliver(AppSyncPayload.presence("cam-1", online: true), on: key)
            appSync = await presence.next()
        }
        try await NotifierHarness.run(.graphql) { h in
            var presence = await h.notifier.devicePresenceValues().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            let key: SubscriptionKey = "graphql/subscribeDeviceState"
            await h.waitForSubscriptions([key])
            h.transport.deliver(GraphQLPayload.deviceState("cam-1", fields: #""online":true"#), on: key)
            graphQL = await presence.next()
        }
        var fromAppSync = try #require(appSync)
        let fromGraphQL = try #require(graphQL)
        #expect(fromAppSync.eventType == "device/presenceChanged")
        #expect(fromAppSync.timestamp != nil)
        fromAppSync.eventType = nil
        fromAppSync.timestamp = nil
        #expect(fromAppSync == fromGraphQL)
    }

    @Test("an undecodable payload is reported, dead-lettered, and loses nothing else")
    func decodingFailure() async throws {
        try await NotifierHarness.run(.appsync) { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            var errors = await h.notifier.errors().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            let key = NotifierHarness.channel("roleChanged")
            await h.waitForSubscriptions([key])

            h.transport.deliver(#"{"eventType":"user/roleChanged","timestamp":"not a date"}"#, on: key)
            h.transport.deliver("not json", on: key)
            h.transport.deliver(AppSyncPayload.role("promoted"), on: key)

            #expect(await roles.next()?.reason == "promoted")
            let reported = await take(2, from: &errors)
            #expect(reported.map(\.code) == [.decodingFailed, .decodingFailed])
            let letters = h.broker.deadLetters
            #expect(letters.count == 2)
            #expect(letters.first?.payload == Data(#"{"eventType":"user/roleChanged","timestamp":"not a date"}"#.utf8))
        }
    }

    @Test("an event type no requested stream takes is ignored")
    func unknownEventType() async throws {
        try await NotifierHarness.run(.appsync) { h in
            var presence = await h.notifier.devicePresenceValues().makeAsyncIterator()
            var device = await h.notifier.deviceValues().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            let wildcard = NotifierHarness.channel("device/*")
            await h.waitForSubscriptions([wildcard])
            h.transport.deliver(#"{"eventType":"device/batteryChanged","timestamp":"2026-11-22T10:00:00Z","level":3}"#, on: wildcard)
            h.transport.deliver(AppSyncPayload.presence("cam-9", online: true), on: wildcard)
            #expect(await presence.next()?.thingName == "cam-9")
            #expect(await device.next()?.thingName == "cam-9")
            #expect(h.broker.deadLetters.isEmpty)
        }
    }

    @Test("an injected EventFilter drops events of sites the user may not see")
    func siteFilter() async throws {
        let filter = SiteAccessFilter { $0 == "s1" }
        try await NotifierHarness.run(.appsync, filter: filter) { h in
            var presence = await h.notifier.devicePresenceValues().makeAsyncIterator()
            h.session.update(NotifierHarness.signedIn())
            let key = NotifierHarness.channel("device/presenceChanged")
            await h.waitForSubscriptions([key])
            h.transport.deliver(AppSyncPayload.presence("hidden", online: true, site: "s2"), on: key)
            h.transport.deliver(AppSyncPayload.presence("visible", online: true, site: "s1"), on: key)
            #expect(await presence.next()?.thingName == "visible")
        }
    }

    @Test("every event carries metadata on the broker")
    func metadata() async throws {
        try await NotifierHarness.run(.appsync) { h in
            let records = h.broker.events(of: DevicePresenceOutput.self)
            var iterator = records.makeAsyncIterator()
            let consumer = await h.notifier.devicePresenceValues()
            h.session.update(NotifierHarness.signedIn())
            let key = NotifierHarness.channel("device/presenceChanged")
            await h.waitForSubscriptions([key])
            let receivedAt = Date(timeIntervalSince1970: 1_800_000_000)
            h.transport.deliver(AppSyncPayload.presence("cam-1", online: true), on: key, receivedAt: receivedAt)
            let record = try #require(await iterator.next())
            #expect(record.metadata.stream == "devicePresence")
            #expect(record.metadata.transport == .appsync)
            #expect(record.metadata.receivedAt == receivedAt)
            #expect(!record.metadata.eventId.isEmpty)
            withExtendedLifetime(consumer) {}
        }
    }
}
