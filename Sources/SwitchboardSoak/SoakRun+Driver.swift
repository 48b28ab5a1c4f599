import Foundation
import Switchboard
import SwitchboardCore
import SwitchboardEmulator

/// What the soak's tasks share.
struct SoakState: Sendable {
    /// Where the auth-rejection fault stands: a second rejection before the transport got
    /// through after the first would be two in a row, which ends the session by design.
    enum AuthGate: Sendable {
        case ready
        case armed(sawDisconnect: Bool)
    }

    var ledger: SoakLedger
    var published = 0
    /// The events the publisher sent on its schedule and how far behind its time its worst send
    /// was (``PublishSchedule/largestLag``), once it finished.
    var publishing: (events: Int, lag: Duration)?
    var connections = 0
    var lastState = ConnectionState.idle
    var errors: [String: Int] = [:]
    var faults: [ChaosFault.Kind: Int] = [:]
    var sessionExpirations = 0
    var auth = AuthGate.ready
    var memory: [MemorySample] = []
    var runFailure: String?

    /// Follows the notifier's state; true when the session expired.
    mutating func observe(_ state: ConnectionState) -> Bool {
        lastState = state
        switch (state, auth) {
        case (.connected, .armed(sawDisconnect: true)): auth = .ready
        case (.connected, _): break
        case (_, .armed): auth = .armed(sawDisconnect: true)
        case (_, .ready): break
        }
        if state == .connected { connections += 1 }
        if case .disconnected(let error?) = state, error.code == .sessionExpired {
            sessionExpirations += 1
            return true
        }
        return false
    }

    /// Arms an auth rejection if the last one has been got through; false to skip this one.
    mutating func armAuthRejection() -> Bool {
        guard case .ready = auth, lastState == .connected else { return false }
        auth = .armed(sawDisconnect: false)
        return true
    }
}

extension SoakRun {
    /// One soak in progress.
    struct Driver: Sendable {
        let configuration: SoakConfiguration
        let workload: SoakWorkload
        let identities: [SoakLedger.Identity]
        let server: any SoakServer
        let notifier: BackendNotifier
        let session: SessionSource
        let state: LockedValue<SoakState>

        func run() async throws -> SoakReport {
            let start = ContinuousClock.now
            // Every consumer and observer exists before the notifier runs, so the first
            // connection subscribes them all.
            let consumers = await makeConsumers()
            let states = await notifier.connectionStates()
            let errors = await notifier.errors()
            var quiesceTime: Duration?
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    do { try await notifier.run() } catch { state.withLock { $0.runFailure = "\(error)" } }
                }
                for consume in consumers { group.addTask { await consume() } }
                group.addTask { await observe(states) }
                group.addTask {
                    for await error in errors { state.withLock { $0.errors["\(error.code)", default: 0] += 1 } }
                }
                group.addTask { await sampleMemory(since: start) }
                do {
                    try await waitForSubscriptions()
                    let begin = ContinuousClock.now
                    let end = begin + configuration.duration
                    try await withThrowingTaskGroup(of: Void.self) { chaos in
                        chaos.addTask { try await publish(from: begin) }
                        chaos.addTask { try await injectFaults(until: end) }
                        try await chaos.waitForAll()
                    }
                    quiesceTime = try await quiesce()
                } catch {
                    await notifier.shutDown()
                    throw error
                }
                await notifier.shutDown()
                group.cancelAll()
                try await group.waitForAll()
            }
            return report(quiesceTime: quiesceTime)
        }

        // MARK: Consumers

        private func makeConsumers() async -> [@Sendable () async -> Void] {
            let workload = workload
            let license = identities[SoakStream.license.rawValue]
            let plan = identities[SoakStream.plan.rawValue]
            return [
                consume(await notifier.devicePresenceValues(), .devicePresence) { SoakWorkload.round(tag: $0.thingName) },
                consume(await notifier.deviceRecordingValues(), .deviceRecording) { SoakWorkload.round(tag: $0.thingName) },
                consume(await notifier.deviceFirmwareValues(), .deviceFirmware) { SoakWorkload.round(tag: $0.thingName) },
                consume(await notifier.archiveValues(), .archive) { SoakWorkload.round(tag: $0.archiveId) },
                consume(await notifier.licenseValues(), .license) { workload.slot(license: $0, identity: license) },
                consume(await notifier.planValues(), .plan) { workload.slot(plan: $0, identity: plan) },
                consume(await notifier.aiSettingsValues(), .aiSettings) { SoakWorkload.round(tag: $0.aiControlSetting?.uuid) },
                consume(await notifier.roleValues(), .role) { SoakWorkload.round(tag: $0.reason) },
                consume(await notifier.revokeValues(), .revoke) { SoakWorkload.round(tag: $0.requestId) },
            ]
        }

        private func consume<Value: Sendable>(
            _ values: AsyncStream<Value>, _ stream: SoakStream, slot: @escaping @Sendable (Value) -> Int?
        ) -> @Sendable () async -> Void {
            let state = state
            return {
                for await value in values {
                    let slot = slot(value)
                    state.withLock { $0.ledger.delivered(stream.rawValue, slot: slot) }
                }
            }
        }

        private func observe(_ states: AsyncStream<ConnectionState>) async {
            for await connectionState in states where state.withLock({ $0.observe(connectionState) }) {
                // An app signs in again when its session expires; so does the soak (reported).
                session.update(.signedIn(userId: workload.userId, orgId: workload.orgId) { _ in SoakRun.apiKey })
            }
        }

        // MARK: Publishing and faults

        private func waitForSubscriptions() async throws {
            // Five subscriptions cover the nine streams on either transport (AppSync Events
            // subscribes to the device and organization families with wildcards).
            let expected = 5
            let deadline = ContinuousClock.now + .seconds(60)
            while true {
                let subscribed = try await server.subscriptionCount()
                if subscribed >= expected, state.withLock({ $0.lastState == .connected }) { return }
                guard ContinuousClock.now < deadline else {
                    throw SoakError("the notifier did not subscribe within 60 s (\(subscribed) of \(expected))")
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }

        /// Publishes at the configured rate from `begin`, each tick what fell due (a late tick
        /// catches up at no more than twice the rate, see ``PublishSchedule``), until all
        /// `rate × duration` events are out.
        private func publish(from begin: ContinuousClock.Instant) async throws {
            var schedule = PublishSchedule(rate: configuration.rate, duration: configuration.duration)
            var lastSend = Duration.zero
            while !schedule.isDone {
                let due = schedule.due(at: ContinuousClock.now - begin, lastSend: lastSend)
                if !due.isEmpty {
                    let started = ContinuousClock.now
                    try await publish(due)
                    lastSend = ContinuousClock.now - started
                }
                if !schedule.isDone { try await Task.sleep(for: server.publishTick) }
            }
            state.withLock { $0.publishing = (schedule.sent, schedule.largestLag) }
        }

        private func publish(_ indices: Range<Int>) async throws {
            let events = indices.map { workload.event($0) }
            // Counted before they are sent, so a fast delivery never precedes its publication.
            state.withLock { state in
                for event in events {
                    state.ledger.published(event.stream.rawValue, slot: workload.slot(of: event, identity: identities[event.stream.rawValue]))
                }
                state.published = indices.upperBound
            }
            try await server.publish(events.map { (channel: $0.channel, payload: $0.payload) })
        }

        private func injectFaults(until end: ContinuousClock.Instant) async throws {
            guard !configuration.faults.isEmpty else { return }
            var plan = ChaosPlan(
                seed: configuration.seed, kinds: configuration.faults, pause: configuration.faultPause,
                longestStall: Int(configuration.keepAliveInterval.seconds * 4000))
            // A latency fault lasts a while before it is lifted: lifted in a child task, so the
            // next fault's pause starts at once (a 4 s run would otherwise spend half its time
            // waiting inside one fault). The emulator has one latency setting: a later latency
            // fault may be lifted early by an earlier one's lifting.
            try await withThrowingTaskGroup(of: Void.self) { lifting in
                while true {
                    let (pause, fault) = plan.next()
                    guard ContinuousClock.now + pause < end else { break }
                    try await Task.sleep(for: pause)
                    if case .latency(let latency, let lasting) = fault {
                        try await server.send(.latency(latency))
                        state.withLock { $0.faults[fault.kind, default: 0] += 1 }
                        lifting.addTask {
                            try await Task.sleep(for: lasting)
                            try await server.send(.latency(nil))
                        }
                    } else {
                        try await inject(fault)
                    }
                }
                try await lifting.waitForAll()
            }
        }

        /// Injects one fault (a latency fault is lifted after it lasted).
        private func inject(_ fault: ChaosFault) async throws {
            switch fault {
            case .drop(let code): try await server.send(.drop(code: code, reason: "soak"))
            case .abort: try await server.send(.abort)
            case .stall(let duration): try await server.send(.stall(duration))
            case .garbage: try await server.send(.garbage)
            case .rejectAuthentication:
                guard state.withLock({ $0.armAuthRejection() }) else { return }
                try await server.send(.rejectAuthentication(next: 1))
                try await server.send(.drop(code: 1001, reason: "soak: credentials revoked"))
            case .latency(let latency, let lasting):
                try await server.send(.latency(latency))
                try await Task.sleep(for: lasting)
                try await server.send(.latency(nil))
            }
            state.withLock { $0.faults[fault.kind, default: 0] += 1 }
        }

        /// Stops the faults, publishes one more round once connected, and waits until every
        /// event arrived; then watches a little longer for late duplicates. Returns how long
        /// delivery took after publishing stopped, or nil if it did not complete in time.
        private func quiesce() async throws -> Duration? {
            let stopped = ContinuousClock.now
            let deadline = stopped + configuration.quiesceTimeout
            try await server.send(.reset)
            while state.withLock({ $0.lastState != .connected }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            let next = state.withLock { $0.published }
            try await publish(next..<(next + SoakStream.allCases.count))
            var complete = false
            while !complete, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                complete = state.withLock { $0.ledger.isComplete }
            }
            guard complete else { return nil }
            let took = ContinuousClock.now - stopped
            try await Task.sleep(for: configuration.settle)
            return took
        }

        // MARK: Memory and the report

        private func sampleMemory(since start: ContinuousClock.Instant) async {
            while !Task.isCancelled {
                let sample = MemorySample.read(
                    elapsed: (ContinuousClock.now - start).seconds,
                    releasingFreePages: configuration.releaseFreePagesBeforeSampling)
                let status = state.withLock { state in
                    state.memory.append(sample)
                    let anonymous = sample.anonymousBytes.map(SoakReport.mebibytes) ?? "-"
                    let resident = sample.residentBytes.map(SoakReport.mebibytes) ?? "-"
                    let heap = sample.heapBytes.map(SoakReport.mebibytes) ?? "-"
                    return "t=\(Int(sample.elapsed)) s published \(state.published) delivered \(state.ledger.deliveredTotal) "
                        + "reconnects \(max(0, state.connections - 1)) heap \(heap) anon \(anonymous) rss \(resident)"
                }
                configuration.progress?(status)
                do { try await Task.sleep(for: configuration.sampleInterval) } catch { return }
            }
        }

        private func report(quiesceTime: Duration?) -> SoakReport {
            let snapshot = state.withLock { $0 }
            var report = SoakReport(
                transport: configuration.transport, seed: configuration.seed, duration: configuration.duration,
                rate: configuration.rate, catchUp: configuration.catchUp)
            report.clocks = [
                configuration.clientClock().summary,
                configuration.backendClockOffset == .zero ? nil : "emulator clock \(SoakClockJump.signed(configuration.backendClockOffset))",
            ].compactMap { $0 }
            report.tallies = SoakStream.allCases.map { snapshot.ledger.tally($0.rawValue) }
            report.reconnects = max(0, snapshot.connections - 1)
            report.faults = snapshot.faults
            report.errors = snapshot.errors
            report.sessionExpirations = snapshot.sessionExpirations
            report.memory = snapshot.memory
            report.memoryJudged = configuration.memoryTrend != nil
            report.memoryVerdicts = configuration.memoryTrend?.evaluate(snapshot.memory) ?? []
            report.quiesceTime = quiesceTime
            report.publishing = snapshot.publishing
            report.runFailure = snapshot.runFailure
            return report
        }
    }
}
