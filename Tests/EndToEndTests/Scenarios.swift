import Foundation
import Switchboard
import SwitchboardEmulator
import SwitchboardTesting
import Testing

/// The end-to-end scenarios every transport must pass against the emulator.
enum Scenarios {
    /// Nine events, one per channel: each per-channel stream gets its typed value, and the
    /// merged device and organization streams get theirs.
    static func allStreamsDeliver(_ h: EndToEnd, legacy: Bool) async throws {
        try await allStreamsDeliver(
            h.notifier, legacy: legacy, waitForSubscriptions: { try await h.waitForSubscriptions(5) },
            publishAll: {
                try h.publish("device/presenceChanged", Payload.presence(online: true))
                try h.publish("device/recordingStateChanged", Payload.recording(true))
                try h.publish("device/firmwareUpdated", Payload.firmware(7))
                try h.publish("archive/stateChanged", Payload.archive("a-1"))
                try h.publish("organization/licensePhaseChanged", Payload.license("GracePeriod"))
                try h.publish("organization/planChanged", Payload.plan(free: false))
                try h.publish("organization/aiSettingsChanged", Payload.aiSettings("ai-1"))
                try h.publish("roleChanged", Payload.role("promoted"))
                try h.publish("tokenRevoked", Payload.revoke("req-1"))
            })
    }

    /// ``allStreamsDeliver(_:legacy:)`` against any server: `publishAll` publishes the nine events
    /// in that order, once `waitForSubscriptions` has seen the five subscriptions in place.
    static func allStreamsDeliver(
        _ n: BackendNotifier, legacy: Bool,
        waitForSubscriptions: () async throws -> Void, publishAll: () async throws -> Void
    ) async throws {
        var presence = await n.devicePresenceValues().makeAsyncIterator()
        var recording = await n.deviceRecordingValues().makeAsyncIterator()
        var firmware = await n.deviceFirmwareValues().makeAsyncIterator()
        var archive = await n.archiveValues().makeAsyncIterator()
        var license = await n.licenseValues().makeAsyncIterator()
        var plan = await n.planValues().makeAsyncIterator()
        var ai = await n.aiSettingsValues().makeAsyncIterator()
        var role = await n.roleValues().makeAsyncIterator()
        var revoke = await n.revokeValues().makeAsyncIterator()
        var device = await n.deviceValues().makeAsyncIterator()
        var organization = await n.organizationValues().makeAsyncIterator()
        try await waitForSubscriptions()
        try await publishAll()

        let p = await presence.next()
        #expect(p?.online == true && p?.thingName == "cam-1" && p?.siteId == "site-1")
        #expect(await recording.next()?.recording == true)
        #expect(await firmware.next()?.fwUpdateState == 7)
        let a = await archive.next()
        #expect(a?.archiveId == "a-1" && a?.videoSize == 3_000_000_000 && a?.status == .ready)
        #expect(await license.next()?.licensePhase == .gracePeriod)
        #expect(await plan.next()?.isFreePlan == false)
        #expect(await ai.next()?.aiControlSetting?.uuid == "ai-1")
        #expect(await role.next()?.reason == "promoted")
        let r = await revoke.next()
        #expect(r?.requestId == "req-1" && r?.userId == "user-1")
        var devices: [DeviceStateOutput] = []
        for _ in 0..<3 { if let value = await device.next() { devices.append(value) } }
        #expect(devices.map(\.online) == [true, nil, nil])
        #expect(devices.map(\.fwUpdateState) == [nil, nil, 7])
        var organizations: [OrganizationStateOutput] = []
        for _ in 0..<3 { if let value = await organization.next() { organizations.append(value) } }
        #expect(organizations.map(\.isFreePlan) == [nil, false, nil])
        #expect(organizations.last?.aiControlSetting?.uuid == "ai-1")
        // The new contract carries eventType and timestamp; the legacy one does not.
        #expect((p?.timestamp == nil) == legacy)
    }

    /// The server drops every connection; the transport reconnects (zero delay), resubscribes,
    /// and the next event arrives.
    static func recoversFromDrop(_ h: EndToEnd) async throws {
        var roles = await h.notifier.roleValues().makeAsyncIterator()
        try await h.waitForSubscriptions(1)
        try h.publish("roleChanged", Payload.role("before"))
        #expect(await roles.next()?.reason == "before")
        var states = await h.notifier.connectionStates().makeAsyncIterator()
        #expect(h.emulator.dropAllConnections(code: 1011, reason: "server restart") >= 1)
        // Wait for the drop to be noticed, then for the new connection.
        while let state = await states.next() { if state != .connected { break } }
        while let state = await states.next() { if state == .connected { break } }
        // The server may not have forgotten the old connection's subscription yet, so the
        // count cannot tell when the new one is in place: publish until it arrives.
        let publisher = Task {
            while !Task.isCancelled {
                try? h.publish("roleChanged", Payload.role("after"))
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(await roles.next()?.reason == "after")
        publisher.cancel()
    }

    /// The server goes silent (no keep-alives, no data): once the transport's keep-alive
    /// deadline passes on its clock, it reconnects by itself.
    static func detectsKeepAliveStall(_ h: EndToEnd, deadline: Duration) async throws {
        var roles = await h.notifier.roleValues().makeAsyncIterator()
        var errors = await h.notifier.errors().makeAsyncIterator()
        try await h.waitForSubscriptions(1)
        var states = await h.notifier.connectionStates().makeAsyncIterator()
        #expect(await states.next() == .connected)
        #expect(h.emulator.stallConnections(for: .seconds(3600)) >= 1)
        // A keep-alive already in flight when the stall began moves the deadline on, so keep
        // stepping the transport's clock by the deadline until the loss is noticed. The
        // timeout itself is measured on the manual clock only.
        let clock = h.clock
        let ticker = Task {
            while !Task.isCancelled {
                clock.advance(by: deadline)
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        while let state = await states.next() { if state != .connected { break } }
        ticker.cancel()
        // The watchdog noticed it (not, say, a socket failure).
        let error = await errors.next()
        #expect(error?.code == .network && error?.message.hasPrefix("keep-alive timeout:") == true, "\(String(describing: error))")
        h.emulator.resetFaults()
        while let state = await states.next() {
            if state == .connected { break }
            h.clock.advance(by: .seconds(1))
        }
        // The stalled connection may still count as a subscriber on the server, so the count
        // cannot tell when the new subscription is in place: publish until it arrives.
        let publisher = Task {
            while !Task.isCancelled {
                try? h.publish("roleChanged", Payload.role("after stall"))
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(await roles.next()?.reason == "after stall")
        publisher.cancel()
    }

    /// A user subscription is refused (the JWT's user is someone else), the organization one is
    /// not: the refusal is reported for its stream only and the other stream keeps delivering.
    static func rejectedSubscriptionIsLocal(_ h: EndToEnd) async throws {
        var errors = await h.notifier.errors().makeAsyncIterator()
        var plans = await h.notifier.planValues().makeAsyncIterator()
        let roles = await h.notifier.roleValues()
        // A busy machine can drop the first connection (a network error, then a reconnect);
        // what matters is the rejection.
        var error = await errors.next()
        while let dropped = error, dropped.code == .network { error = await errors.next() }
        #expect(error?.code == .subscriptionRejected, "\(String(describing: error))")
        // Only the organization subscription is accepted for another user's token: it is in
        // place (again, after a reconnect) before the plan is published.
        try await h.waitForSubscriptions(1)
        _ = try h.emulator.publish(channel: "vortex-app/user/\(EndToEnd.userId)/organization/planChanged", event: Payload.plan(free: true))
        #expect(await plans.next()?.isFreePlan == true)
        withExtendedLifetime(roles) {}
    }

    /// Every connect is refused as unauthorized: one refresh, then `sessionExpired`, no loop.
    static func rejectedTokenExpiresSession(_ h: EndToEnd) async throws {
        h.emulator.rejectAuthentication(nextConnections: nil)
        let roles = await h.notifier.roleValues()
        var states = await h.notifier.connectionStates().makeAsyncIterator()
        var expired: SwitchboardError?
        while let state = await states.next() {
            if case .disconnected(let error?) = state, error.code == .sessionExpired {
                expired = error
                break
            }
            h.clock.advance(by: .seconds(1))
        }
        #expect(expired != nil)
        withExtendedLifetime(roles) {}
    }
}
