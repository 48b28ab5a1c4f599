import Foundation
import Switchboard
import SwitchboardCore

/// Everything a ``/Switchboard/BackendNotifier`` yielded to its consumers during a run: the values of each of
/// its eleven event streams, in order, the codes of the errors it reported and the connection
/// states it went through.
///
/// Two observations are compared to prove that two transports look the same to consumers; see
/// ``differences(from:includingErrorsAndStates:)`` and ``withoutTransportMetadata()``.
public struct NotifierObservation: Sendable, Equatable {
    /// `deviceValues()`.
    public var device: [DeviceStateOutput] = []
    /// `archiveValues()`.
    public var archive: [ArchiveStateOutput] = []
    /// `organizationValues()`.
    public var organization: [OrganizationStateOutput] = []
    /// `roleValues()`.
    public var role: [RoleChangeOutput] = []
    /// `revokeValues()`.
    public var revoke: [UserTokenRevokeOutput] = []
    /// `devicePresenceValues()`.
    public var devicePresence: [DevicePresenceOutput] = []
    /// `deviceRecordingValues()`.
    public var deviceRecording: [DeviceRecordingOutput] = []
    /// `deviceFirmwareValues()`.
    public var deviceFirmware: [DeviceFirmwareOutput] = []
    /// `licenseValues()`.
    public var license: [LicenseStateOutput] = []
    /// `planValues()`.
    public var plan: [PlanStateOutput] = []
    /// `aiSettingsValues()`.
    public var aiSettings: [AISettingsOutput] = []
    /// The codes of `errors()`, in order. Messages are left out: each transport words them its
    /// own way (a rejected subscription carries the server's message).
    public var errors: [SwitchboardError.Code] = []
    /// `connectionStates()`, in order, starting with the state when observation began.
    public var states: [ConnectionState] = []

    /// Creates an empty observation.
    public init() {}

    /// How many event values were observed, over all eleven streams.
    public var valueCount: Int {
        device.count + archive.count + organization.count + role.count + revoke.count + devicePresence.count
            + deviceRecording.count + deviceFirmware.count + license.count + plan.count + aiSettings.count
    }

    /// The observation with the metadata only AppSync Events carries (`eventType`, `timestamp`)
    /// cleared from every value, so that it compares equal to one made over GraphQL.
    public func withoutTransportMetadata() -> NotifierObservation {
        var copy = self
        copy.device = device.map { var value = $0; value.eventType = nil; value.timestamp = nil; return value }
        copy.archive = archive.map { var value = $0; value.eventType = nil; value.timestamp = nil; return value }
        copy.organization = organization.map { var value = $0; value.eventType = nil; value.timestamp = nil; return value }
        copy.role = role.map { var value = $0; value.eventType = nil; value.timestamp = nil; return value }
        copy.revoke = revoke.map { var value = $0; value.eventType = nil; value.timestamp = nil; return value }
        copy.devicePresence = devicePresence.map { var value = $0; value.eventType = nil; value.timestamp = nil; return value }
        copy.deviceRecording = deviceRecording.map { var value = $0; value.eventType = nil; value.timestamp = nil; return value }
        copy.deviceFirmware = deviceFirmware.map { var value = $0; value.eventType = nil; value.timestamp = nil; return value }
        copy.license = license.map { var value = $0; value.eventType = nil; value.timestamp = nil; return value }
        copy.plan = plan.map { var value = $0; value.eventType = nil; value.timestamp = nil; return value }
        copy.aiSettings = aiSettings.map { var value = $0; value.eventType = nil; value.timestamp = nil; return value }
        return copy
    }

    /// The streams on which this observation and `other` differ, one line each, naming the first
    /// position where they part; empty when they are equal.
    /// - Parameters:
    ///   - other: The observation to compare with.
    ///   - includingErrorsAndStates: Whether the error codes and connection states are compared
    ///     too; by default they are.
    public func differences(from other: NotifierObservation, includingErrorsAndStates: Bool = true) -> [String] {
        var lines: [String] = []
        func compare<Value: Equatable>(_ name: String, _ mine: [Value], _ theirs: [Value]) {
            guard mine != theirs else { return }
            if let index = zip(mine, theirs).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                lines.append("\(name)[\(index)]: \(mine[index]) ≠ \(theirs[index])")
            } else {
                let longer = mine.count > theirs.count ? mine : theirs
                let extra = longer[min(mine.count, theirs.count)]
                lines.append("\(name): \(mine.count) values ≠ \(theirs.count) values (first unmatched: \(extra))")
            }
        }
        compare("deviceValues", device, other.device)
        compare("archiveValues", archive, other.archive)
        compare("organizationValues", organization, other.organization)
        compare("roleValues", role, other.role)
        compare("revokeValues", revoke, other.revoke)
        compare("devicePresenceValues", devicePresence, other.devicePresence)
        compare("deviceRecordingValues", deviceRecording, other.deviceRecording)
        compare("deviceFirmwareValues", deviceFirmware, other.deviceFirmware)
        compare("licenseValues", license, other.license)
        compare("planValues", plan, other.plan)
        compare("aiSettingsValues", aiSettings, other.aiSettings)
        if includingErrorsAndStates {
            compare("errors", errors, other.errors)
            // States carry an error whose message each transport words its own way; compare
            // them as described (the case, attempt, delay and error code).
            compare("connectionStates", states.map(\.description), other.states.map(\.description))
        }
        return lines
    }
}

extension NotifierObservation {
    /// Observes every stream of `notifier` while `body` runs, then shuts the notifier down and
    /// returns what its consumers got.
    ///
    /// The streams are opened before `body` runs, so nothing is missed; the notifier must not be
    /// running yet, and this runs it.
    /// - Parameters:
    ///   - notifier: A notifier that has not been run.
    ///   - body: Drives the scenario; it is handed the states seen so far, to wait on.
    public static func observe(
        _ notifier: BackendNotifier,
        during body: @Sendable (_ states: StateLog) async throws -> Void
    ) async throws -> NotifierObservation {
        let collected = LockedValue(NotifierObservation())
        let log = StateLog()
        try await withThrowingTaskGroup(of: Void.self) { group in
            func collect<Value: Sendable>(_ stream: AsyncStream<Value>, into path: any WritableKeyPath<NotifierObservation, [Value]> & Sendable) {
                group.addTask {
                    for await value in stream { collected.withLock { $0[keyPath: path].append(value) } }
                }
            }
            collect(await notifier.deviceValues(), into: \.device)
            collect(await notifier.archiveValues(), into: \.archive)
            collect(await notifier.organizationValues(), into: \.organization)
            collect(await notifier.roleValues(), into: \.role)
            collect(await notifier.revokeValues(), into: \.revoke)
            collect(await notifier.devicePresenceValues(), into: \.devicePresence)
            collect(await notifier.deviceRecordingValues(), into: \.deviceRecording)
            collect(await notifier.deviceFirmwareValues(), into: \.deviceFirmware)
            collect(await notifier.licenseValues(), into: \.license)
            collect(await notifier.planValues(), into: \.plan)
            collect(await notifier.aiSettingsValues(), into: \.aiSettings)
            let errors = await notifier.errors()
            group.addTask {
                for await error in errors { collected.withLock { $0.errors.append(error.code) } }
            }
            let states = await notifier.connectionStates()
            group.addTask {
                for await state in states { log.append(state) }
            }
            group.addTask { try await notifier.run() }
            do {
                try await body(log)
            } catch {
                await notifier.shutDown()
                throw error
            }
            await notifier.shutDown()
            try await group.waitForAll()
        }
        var result = collected.withLock { $0 }
        result.states = log.states
        return result
    }

    /// The connection states a notifier reported, in order, which a test can wait on.
    public final class StateLog: Sendable {
        private let observed = Observed([ConnectionState]())

        init() {}

        func append(_ state: ConnectionState) { observed.update { $0.append(state) } }

        /// Every state so far.
        public var states: [ConnectionState] { observed.value }

        /// Waits until the states so far satisfy `predicate`; returns early if the task is cancelled.
        public func wait(until predicate: @escaping @Sendable ([ConnectionState]) -> Bool) async {
            await observed.wait(until: predicate)
        }

        /// Waits until the notifier has gone through `attempts` connect attempts and then come to
        /// rest: disconnected, or waiting to reconnect (or idle) after `attempts` reported
        /// `connecting` states.
        ///
        /// Every value the transport received on those connections was delivered before that last
        /// state, so once this returns the observation is complete.
        public func settled(afterAttempts attempts: Int) async {
            await wait { states in
                let connecting = states.filter { if case .connecting = $0 { true } else { false } }.count
                switch states.last {
                case .connecting?, .connected?, nil: return false
                // Nothing follows a disconnect until the app acts, so it is final. (A connect
                // that retries at once with a fresh token reports no second `connecting`.)
                case .disconnected?, .shutDown?: return connecting > 0
                case .waitingToReconnect?, .idle?: return connecting >= attempts
                }
            }
        }
    }
}

extension NotifierObservation {
    /// Replays a fixture to a notifier and returns what its consumers got.
    ///
    /// The notifier runs over the transport `makeTransport` builds around the ``FixturePlayer``
    /// and the clock, signed in as the fixture's user (or `user-1`/`org-1` without a header);
    /// every stream is observed from the start; the fixture is played to the end, the notifier
    /// settles and is shut down.
    /// - Parameters:
    ///   - fixture: The recording to replay.
    ///   - token: The token the session hands out; fixtures have their credentials redacted, so
    ///     any value works unless the transport checks its shape.
    ///   - makeTransport: Builds the transport under test with the player as its connector and
    ///     the manual clock as its clock.
    /// - Returns: The observation and the player's report; a replay that went as recorded has no
    ///   mismatches.
    public static func replay(
        _ fixture: Fixture,
        token: String = "fixture-token",
        makeTransport: (_ connector: FixturePlayer, _ clock: ManualClock) throws -> any EventTransport
    ) async throws -> (observation: NotifierObservation, report: FixturePlayer.Report) {
        let clock = ManualClock()
        let log = LockedValue<StateLog?>(nil)
        let player = FixturePlayer(fixture, clock: clock) { ended in
            await log.withLock { $0 }?.wait { states in
                states.filter { state in
                    switch state {
                    case .waitingToReconnect, .disconnected: true
                    default: false
                    }
                }.count >= ended
            }
        }
        let transport = try makeTransport(player, clock)
        let session = SessionSource(.signedIn(
            userId: fixture.header?.userId ?? "user-1", orgId: fixture.header?.orgId ?? "org-1") { _ in token })
        let notifier = BackendNotifier(transport: transport, session: session)
        let report = LockedValue<FixturePlayer.Report?>(nil)
        let observation = try await observe(notifier) { states in
            log.withLock { $0 = states }
            let played = await player.play()
            report.withLock { $0 = played }
            if played.mismatches.isEmpty {
                await states.settled(afterAttempts: played.connectAttempts)
            }
        }
        return (observation, report.withLock { $0 } ?? FixturePlayer.Report(linesPlayed: 0, connectAttempts: 0, mismatches: ["not played"]))
    }
}
