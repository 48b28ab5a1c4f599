import Foundation
import SwitchboardCore

extension TransportConformance {
    /// One check's transport, the record of what it did, and the steps the checks are made of.
    final class Session: Sendable {
        /// How a call of `run()` ended.
        enum RunEnd: Sendable, Equatable {
            case returned
            case threw(SwitchboardError.Code?, String)
        }

        /// Everything observed so far.
        struct Log: Sendable {
            var events: [TransportEvent] = []
            /// Whether `events` finished.
            var finished = false
            var runsStarted = 0
            var runEnds: [RunEnd] = []
            /// Every token the transport asked each user's provider for, in order.
            var tokens: [User: [TokenRequestReason]] = [:]
        }

        let check: Check
        let transport: any EventTransport
        let harness: any TransportConformanceHarness
        let deadline: Duration
        let log = Observed(Log())
        private let markers = LockedValue(0)
        /// Whether a `refreshAfterRejection` token fetch makes the server accept credentials again.
        let acceptCredentialsOnRefresh = LockedValue(false)

        init(check: Check, transport: any EventTransport, harness: any TransportConformanceHarness, deadline: Duration) {
            self.check = check
            self.transport = transport
            self.harness = harness
            self.deadline = deadline
        }

        /// Reads the events while `body` drives the transport, then shuts it down and waits for
        /// every `run()` to return and the events to finish.
        func perform(_ body: (Session, inout TaskGroup<Void>) async throws -> Void) async throws {
            let result: Result<Void, any Error> = await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.readEvents() }
                var result: Result<Void, any Error>
                do {
                    result = .success(try await body(self, &group))
                } catch {
                    result = .failure(error)
                }
                transport.shutDown()
                let stopped = await waitUntil { $0.runEnds.count == $0.runsStarted && $0.finished }
                if case .success = result, let undocumented = undocumentedError() {
                    result = .failure(failure(
                        expected: "errors reported through events to carry one of the codes \(Self.documentedCodes)",
                        observed: TransportConformanceFailure.describe(undocumented)))
                }
                if !stopped, case .success = result {
                    let log = log.value
                    result = .failure(failure(
                        expected: "every run() to return and events to finish after shutDown()",
                        observed: "\(log.runsStarted - log.runEnds.count) run() still running, events \(log.finished ? "finished" : "not finished") after \(deadline)"))
                }
                group.cancelAll()
                return result
            }
            try result.get()
        }

        /// The codes the contract lets a transport report through its events.
        static let documentedCodes: [SwitchboardError.Code] = [.sessionExpired, .network, .timeout, .subscriptionRejected, .protocolViolation]

        /// The first event that reports an error with a code the contract does not list.
        private func undocumentedError() -> TransportEvent? {
            log.value.events.first { event in
                switch event {
                case .error(let error), .subscriptionFailed(_, let error), .connectionStateChanged(.disconnected(let error?)):
                    !Self.documentedCodes.contains(error.code)
                default:
                    false
                }
            }
        }

        // MARK: Observing

        private func readEvents() async {
            for await event in transport.events {
                log.update { $0.events.append(event) }
            }
            log.update { $0.finished = true }
        }

        /// Starts `run()` in a child task of `group`; its end is recorded in the log.
        func startRun(in group: inout TaskGroup<Void>) {
            log.update { $0.runsStarted += 1 }
            group.addTask { await self.runTransport() }
        }

        /// Calls `run()` and records how it ended.
        func runTransport() async {
            let end: RunEnd
            do {
                try await transport.run()
                end = .returned
            } catch let error as SwitchboardError {
                end = .threw(error.code, error.description)
            } catch {
                end = .threw(nil, "\(error)")
            }
            log.update { $0.runEnds.append(end) }
        }

        /// Waits until `predicate` holds for the log, at most ``deadline``.
        /// - Returns: Whether it holds.
        func waitUntil(_ predicate: @escaping @Sendable (Log) -> Bool) async -> Bool {
            let log = log, deadline = deadline
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await log.wait(until: predicate) }
                group.addTask { try? await Task.sleep(for: deadline) }
                await group.next()
                group.cancelAll()
            }
            return predicate(log.value)
        }

        /// The number of events so far: the index the next event will have.
        func mark() -> Int { log.value.events.count }

        /// The events from `start` on.
        func events(from start: Int = 0, to end: Int? = nil) -> ArraySlice<TransportEvent> {
            let events = log.value.events
            return events[min(start, events.count)..<min(end ?? events.count, events.count)]
        }

        /// The connection states reported in `start..<end`.
        func states(from start: Int, to end: Int? = nil) -> [ConnectionState] {
            events(from: start, to: end).compactMap { event in
                if case .connectionStateChanged(let state) = event { state } else { nil }
            }
        }

        /// Waits for an event matching `match` at index `start` or later.
        /// - Returns: Its index.
        @discardableResult
        func expect(
            _ what: String, after start: Int = 0, _ match: @escaping @Sendable (TransportEvent) -> Bool
        ) async throws -> Int {
            _ = await waitUntil { log in log.finished || log.events.dropFirst(start).contains(where: match) }
            let events = log.value.events
            guard let index = events.indices.dropFirst(start).first(where: { match(events[$0]) }) else {
                throw failure(
                    expected: what,
                    observed: log.value.finished ? "the events finished without it" : "nothing of the kind within \(deadline)")
            }
            return index
        }

        /// Waits for a connection state matching `match`, at index `start` or later.
        @discardableResult
        func expectState(
            _ what: String, after start: Int = 0, _ match: @escaping @Sendable (ConnectionState) -> Bool
        ) async throws -> Int {
            try await expect(what, after: start) { event in
                if case .connectionStateChanged(let state) = event { match(state) } else { false }
            }
        }

        /// Waits for `connected`, at index `start` or later.
        @discardableResult
        func expectConnected(after start: Int = 0, _ why: String = "connect(as:)") async throws -> Int {
            try await expectState("the state connected after \(why)", after: start) { $0 == .connected }
        }

        /// Waits for `subscriptionEstablished(key)`, at index `start` or later.
        @discardableResult
        func expectEstablished(_ key: SubscriptionKey, after start: Int = 0) async throws -> Int {
            try await expect("subscriptionEstablished(\(key))", after: start) { $0 == .subscriptionEstablished(key) }
        }

        /// Fails if an event from `start` on matches `match`.
        func expectNone(
            _ what: String, from start: Int, to end: Int? = nil, _ match: (TransportEvent) -> Bool
        ) throws {
            if let event = events(from: start, to: end).first(where: match) {
                throw failure(expected: what, observed: TransportConformanceFailure.describe(event))
            }
        }

        // MARK: Driving

        /// The harness's identity for `user`, with its token provider wrapped to record each fetch.
        func identity(_ user: User) -> TransportIdentity {
            var identity = harness.identity(user)
            let tokens = identity.tokens, log = log, harness = harness, accept = acceptCredentialsOnRefresh
            identity.tokens = TokenProvider { reason in
                log.update { $0.tokens[user, default: []].append(reason) }
                if reason == .refreshAfterRejection, accept.withLock({ $0 }) { try await harness.rejectCredentials(false) }
                return try await tokens.token(for: reason)
            }
            return identity
        }

        /// Connects as `user`.
        func connect(_ user: User = .first) { transport.connect(as: identity(user)) }

        /// The connect-time token fetches (`connect` and `refreshAfterRejection`) of `user` so far.
        func connectFetches(_ user: User) -> [TokenRequestReason] {
            (log.value.tokens[user] ?? []).filter { $0 == .connect || $0 == .refreshAfterRejection }
        }

        /// Token fetch reasons as a short list.
        func describe(_ fetches: [TokenRequestReason]) -> String {
            "[" + fetches.map { "\($0)" }.joined(separator: ", ") + "]"
        }

        /// Subscribes `key` to `stream` of `user`; a throw fails the check.
        func subscribe(_ key: SubscriptionKey, to stream: Stream, of user: User = .first) throws {
            try subscribe(SubscriptionRequest(key: key, target: harness.target(stream, for: user)))
        }

        /// Subscribes; a throw fails the check.
        func subscribe(_ request: SubscriptionRequest) throws {
            do {
                try transport.subscribe(request)
            } catch {
                throw failure(expected: "subscribe(\(request.key)) to a valid target to be accepted", observed: "it threw \(error)")
            }
        }

        /// Has the server send one event on `stream` of `user`.
        /// - Returns: The marker its payload carries.
        func deliver(on stream: Stream, of user: User = .first) async throws -> String {
            let marker = markers.withLock { count -> String in
                count += 1
                return "mark-\(count)-end"
            }
            try await harnessStep("deliver \(marker) on the \(stream) of the \(user)") {
                try await self.harness.deliver(marker, on: stream, for: user)
            }
            return marker
        }

        /// Runs one of the harness's server controls, at most ``deadline``.
        func harnessStep(_ what: String, _ body: @escaping @Sendable () async throws -> Void) async throws {
            enum Step: Sendable { case done, failed(String), timedOut, cancelled }
            let deadline = deadline
            let step: Step = await withTaskGroup(of: Step.self) { group in
                group.addTask {
                    do {
                        try await body()
                        return .done
                    } catch {
                        return .failed("\(error)")
                    }
                }
                group.addTask {
                    do {
                        try await Task.sleep(for: deadline)
                        return .timedOut
                    } catch {
                        return .cancelled
                    }
                }
                let first = await group.next() ?? .cancelled
                group.cancelAll()
                return first
            }
            switch step {
            case .done: return
            case .failed(let error): throw failure(expected: "the harness to \(what)", observed: "it threw \(error)")
            case .timedOut: throw failure(expected: "the harness to \(what)", observed: "it did not finish within \(deadline)")
            case .cancelled: throw CancellationError()
            }
        }

        /// Waits until every marker was received, then checks that each arrived exactly once, on
        /// its key, from this transport, after its key was established, and in the given order
        /// per key.
        func expectDelivered(_ expected: [(key: SubscriptionKey, marker: String)]) async throws {
            let markers = expected.map(\.marker)
            _ = await waitUntil { log in markers.allSatisfy { marker in log.events.contains { $0.carries(marker) } } }
            let events = log.value.events
            var lastIndex: [SubscriptionKey: Int] = [:]
            for (key, marker) in expected {
                let carrying = events.indices.filter { events[$0].carries(marker) }
                guard let index = carrying.first else {
                    throw failure(expected: "\(marker) to be received on \(key)", observed: "it did not arrive within \(deadline)")
                }
                guard carrying.count == 1 else {
                    throw failure(expected: "\(marker) to be received once", observed: "it was received \(carrying.count) times")
                }
                guard case .received(let envelope) = events[index], envelope.subscription == key,
                    envelope.transport == transport.kind
                else {
                    throw failure(
                        expected: "\(marker) to be received on \(key) from a \(transport.kind) transport",
                        observed: TransportConformanceFailure.describe(events[index]))
                }
                guard events[..<index].contains(.subscriptionEstablished(key)) else {
                    throw failure(expected: "subscriptionEstablished(\(key)) before its events", observed: "\(marker) came first")
                }
                if let previous = lastIndex[key], previous > index {
                    throw failure(expected: "the events of \(key) in the order the server sent them", observed: "\(marker) came earlier")
                }
                lastIndex[key] = index
            }
        }

        /// Fails if any event received carries `marker`.
        func expectNotReceived(_ marker: String, _ why: String) throws {
            try expectNone("\(marker) never to be received: \(why)", from: 0) { $0.carries(marker) }
        }

        /// A failure of this check, with the events so far.
        func failure(expected: String, observed: String) -> TransportConformanceFailure {
            TransportConformanceFailure(check: check, expected: expected, observed: observed, events: log.value.events)
        }
    }
}

extension TransportEvent {
    /// Whether this is a received envelope whose payload text contains `marker`.
    func carries(_ marker: String) -> Bool {
        guard case .received(let envelope) = self else { return false }
        return String(decoding: envelope.payload, as: UTF8.self).contains(marker)
    }
}
