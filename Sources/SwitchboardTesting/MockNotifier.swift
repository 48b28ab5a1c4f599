import Switchboard
import SwitchboardCore

/// A ``/Switchboard/BackendNotifying`` for the tests of code that consumes a notifier (view
/// models, stores): the test sends typed values, connection states and errors, and checks which
/// streams the code asked for. No transport, no clock, no server.
///
/// ```swift
/// let notifier = MockNotifier()
/// let model = DevicesModel(notifier: notifier)
/// let running = Task { await model.run() }
/// await notifier.waitForConsumers(of: .values(.devicePresence))
/// notifier.send(DevicePresenceOutput(orgId: "o1", siteId: "s1", thingName: "cam-1", online: true))
/// ```
///
/// Like ``/Switchboard/BackendNotifier``, every call returns a new stream for one consumer, and a
/// value reaches only the consumers that hold a stream when it is sent (use
/// ``waitForConsumers(of:count:)`` first). A value goes to the streams of its own type only:
/// a ``/Switchboard/DevicePresenceOutput`` is not repeated on ``deviceValues()``. A connection
/// state is remembered: a new ``connectionStates()`` stream starts with the last one sent.
/// Streams are unbounded.
public final class MockNotifier: BackendNotifying {
    /// One of the methods a consumer calls to get a stream.
    public struct Request: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// ``MockNotifier/connectionStates()``.
        public static let connectionStates = Request("connectionStates")
        /// ``MockNotifier/errors()``.
        public static let errors = Request("errors")
        /// The method of a value stream, such as ``MockNotifier/devicePresenceValues()`` for
        /// ``/Switchboard/NotifierStream/devicePresence``.
        /// - Parameter stream: The stream.
        /// - Returns: The request.
        public static func values(_ stream: NotifierStream) -> Request { Request(stream.name) }

        public var description: String { name }
    }

    private struct Consumer: Sendable {
        var yield: @Sendable (any Sendable) -> Void
        var finish: @Sendable () -> Void
    }

    private struct State: Sendable {
        var requests: [Request] = []
        var consumers: [Request: [Int: Consumer]] = [:]
        var nextID = 0
        var connectionState: ConnectionState
        var isFinished = false
    }

    private let state: Observed<State>

    /// Creates a mock.
    /// - Parameter connectionState: The state a new ``connectionStates()`` stream starts with
    ///   until the test sends another.
    public init(connectionState: ConnectionState = .idle) {
        state = Observed(State(connectionState: connectionState))
    }

    // MARK: What the code under test asked for

    /// Every stream requested, in the order of the calls (a repeated call appears again).
    public var requests: [Request] { state.value.requests }

    /// How many consumers hold a stream of `request` now (a consumer that stopped iterating
    /// and released its stream no longer counts).
    /// - Parameter request: The stream.
    /// - Returns: The number of consumers.
    public func consumerCount(of request: Request) -> Int { state.value.consumers[request]?.count ?? 0 }

    /// Suspends until at least `count` consumers hold a stream of `request` (or the task is
    /// cancelled).
    /// - Parameters:
    ///   - request: The stream.
    ///   - count: How many consumers to wait for; 1 by default.
    public func waitForConsumers(of request: Request, count: Int = 1) async {
        await state.wait { ($0.consumers[request]?.count ?? 0) >= count }
    }

    // MARK: Driving

    /// Sends a value to every consumer of its stream.
    /// - Parameter value: A value of one of the eleven stream models, such as
    ///   ``/Switchboard/DevicePresenceOutput``; any other type is a programming error.
    /// - Returns: How many consumers it reached.
    @discardableResult
    public func send<Value: SwitchboardEvent>(_ value: Value) -> Int {
        guard let stream = NotifierStream.yielding(Value.self) else {
            preconditionFailure("\(Value.self) is not the model of a notifier stream")
        }
        return deliver(value, to: .values(stream))
    }

    /// Sends a connection state to every ``connectionStates()`` consumer, and remembers it for
    /// the streams requested later.
    /// - Parameter connectionState: The new state.
    /// - Returns: How many consumers it reached.
    @discardableResult
    public func send(_ connectionState: ConnectionState) -> Int {
        let targets = state.update { state -> [Consumer] in
            state.connectionState = connectionState
            return Array((state.consumers[.connectionStates] ?? [:]).values)
        }
        for target in targets { target.yield(connectionState) }
        return targets.count
    }

    /// Sends an error to every ``errors()`` consumer.
    /// - Parameter error: The error.
    /// - Returns: How many consumers it reached.
    @discardableResult
    public func send(_ error: SwitchboardError) -> Int { deliver(error, to: .errors) }

    /// Finishes every stream, as a notifier that shut down does; streams requested afterwards
    /// finish at once.
    public func finish() {
        let finished = state.update { state -> [Consumer] in
            state.isFinished = true
            defer { state.consumers.removeAll() }
            return state.consumers.values.flatMap(\.values)
        }
        for consumer in finished { consumer.finish() }
    }

    // MARK: BackendNotifying

    public func deviceValues() async -> AsyncStream<DeviceStateOutput> { stream(.values(.device)) }
    public func archiveValues() async -> AsyncStream<ArchiveStateOutput> { stream(.values(.archive)) }
    public func organizationValues() async -> AsyncStream<OrganizationStateOutput> { stream(.values(.organization)) }
    public func roleValues() async -> AsyncStream<RoleChangeOutput> { stream(.values(.role)) }
    public func revokeValues() async -> AsyncStream<UserTokenRevokeOutput> { stream(.values(.tokenRevoke)) }
    public func devicePresenceValues() async -> AsyncStream<DevicePresenceOutput> { stream(.values(.devicePresence)) }
    public func deviceRecordingValues() async -> AsyncStream<DeviceRecordingOutput> { stream(.values(.deviceRecording)) }
    public func deviceFirmwareValues() async -> AsyncStream<DeviceFirmwareOutput> { stream(.values(.deviceFirmware)) }
    public func licenseValues() async -> AsyncStream<LicenseStateOutput> { stream(.values(.license)) }
    public func planValues() async -> AsyncStream<PlanStateOutput> { stream(.values(.plan)) }
    public func aiSettingsValues() async -> AsyncStream<AISettingsOutput> { stream(.values(.aiSettings)) }
    public func connectionStates() async -> AsyncStream<ConnectionState> { stream(.connectionStates) }
    public func errors() async -> AsyncStream<SwitchboardError> { stream(.errors) }

    // MARK: Plumbing

    private func deliver(_ value: some Sendable, to request: Request) -> Int {
        let targets = state.value.consumers[request].map { Array($0.values) } ?? []
        for target in targets { target.yield(value) }
        return targets.count
    }

    /// A new stream for one consumer of `request`, registered until its consumer stops.
    private func stream<Element: Sendable>(_ request: Request) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream()
        let consumer = Consumer(
            yield: { value in if let value = value as? Element { continuation.yield(value) } },
            finish: { continuation.finish() })
        let (id, finished) = state.update { state -> (Int, Bool) in
            state.requests.append(request)
            let id = state.nextID
            state.nextID += 1
            // The current state goes first, before a state sent meanwhile can reach the stream.
            if request == .connectionStates { consumer.yield(state.connectionState) }
            if !state.isFinished { state.consumers[request, default: [:]][id] = consumer }
            return (id, state.isFinished)
        }
        if finished {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [state] _ in
            state.update { $0.consumers[request]?[id] = nil }
        }
        return stream
    }
}
