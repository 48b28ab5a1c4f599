import Switchboard
import SwitchboardTesting
import Testing

@Suite("MockNotifier", .timeLimit(.minutes(1)))
struct MockNotifierTests {
    @Test("each consumer gets its own stream: a value sent reaches every consumer of its stream once")
    func ownStreamPerConsumer() async {
        let mock = MockNotifier()
        let notifier: any BackendNotifying = mock
        var first = await notifier.devicePresenceValues().makeAsyncIterator()
        var second = await notifier.devicePresenceValues().makeAsyncIterator()
        let online = DevicePresenceOutput(orgId: "o1", siteId: "s1", thingName: "cam-1", online: true)
        let offline = DevicePresenceOutput(orgId: "o1", siteId: "s1", thingName: "cam-1", online: false)
        #expect(mock.send(online) == 2)
        #expect(mock.send(offline) == 2)
        // Each consumer sees both values in order; a shared stream would split them between the two.
        #expect(await first.next() == online)
        #expect(await first.next() == offline)
        #expect(await second.next() == online)
        #expect(await second.next() == offline)
    }

    @Test("a value goes to the streams of its own type only")
    func routedByType() async {
        let mock = MockNotifier()
        var device = await mock.deviceValues().makeAsyncIterator()
        var plan = await mock.planValues().makeAsyncIterator()
        #expect(mock.send(DevicePresenceOutput(thingName: "cam-1", online: true)) == 0, "nobody asked for devicePresenceValues")
        #expect(mock.send(RoleChangeOutput(reason: "promoted")) == 0)
        #expect(mock.send(PlanStateOutput(orgId: "o1", isFreePlan: true)) == 1)
        #expect(mock.send(DeviceStateOutput(thingName: "cam-2", recording: true)) == 1)
        #expect(await plan.next() == PlanStateOutput(orgId: "o1", isFreePlan: true))
        #expect(await device.next() == DeviceStateOutput(thingName: "cam-2", recording: true))
    }

    @Test("records which streams were requested, in order, and counts the consumers that still hold one")
    func recordsRequests() async {
        let mock = MockNotifier()
        let role = await mock.roleValues()
        _ = await mock.connectionStates()
        do {
            let errors = await mock.errors()
            _ = await mock.roleValues()
            #expect(mock.requests == [.values(.role), .connectionStates, .errors, .values(.role)])
            #expect(mock.requests.map(\.description) == ["role", "connectionStates", "errors", "role"])
            #expect(mock.consumerCount(of: .errors) == 1)
            withExtendedLifetime(errors) {}
        }
        #expect(mock.consumerCount(of: .errors) == 0, "a released stream no longer counts")
        #expect(mock.consumerCount(of: .connectionStates) == 0)
        #expect(mock.consumerCount(of: .values(.role)) == 1, "the stream not kept was released")
        #expect(mock.consumerCount(of: .values(.plan)) == 0)
        withExtendedLifetime(role) {}
    }

    @Test("a consumer that stops iterating (its task cancelled) no longer counts; waitForConsumers waits for one")
    func consumerEnds() async {
        let mock = MockNotifier()
        let consumer = Task {
            var seen: [LicenseStateOutput] = []
            for await value in await mock.licenseValues() { seen.append(value) }
            return seen
        }
        await mock.waitForConsumers(of: .values(.license))
        #expect(mock.send(LicenseStateOutput(orgId: "o1")) == 1)
        consumer.cancel()
        _ = await consumer.value
        #expect(mock.consumerCount(of: .values(.license)) == 0)
        #expect(mock.send(LicenseStateOutput(orgId: "o2")) == 0)
    }

    @Test("connection states: a new stream starts with the last state sent, then every change; errors are sent as is")
    func statesAndErrors() async {
        let mock = MockNotifier(connectionState: .connecting(attempt: 1))
        var early = await mock.connectionStates().makeAsyncIterator()
        var errors = await mock.errors().makeAsyncIterator()
        #expect(mock.send(.connected) == 1)
        var late = await mock.connectionStates().makeAsyncIterator()
        let failure = SwitchboardError(code: .network, message: "keep-alive timeout: no frame from the server within 300 s")
        #expect(mock.send(failure) == 1)
        mock.send(.waitingToReconnect(attempt: 1, delay: .seconds(1)))
        #expect(await early.next() == .connecting(attempt: 1))
        #expect(await early.next() == .connected)
        #expect(await early.next() == .waitingToReconnect(attempt: 1, delay: .seconds(1)))
        #expect(await late.next() == .connected)
        #expect(await late.next() == .waitingToReconnect(attempt: 1, delay: .seconds(1)))
        #expect(await errors.next() == failure)
    }

    @Test("finish ends every stream; streams requested afterwards end at once")
    func finish() async {
        let mock = MockNotifier()
        var values = await mock.archiveValues().makeAsyncIterator()
        var states = await mock.connectionStates().makeAsyncIterator()
        mock.finish()
        #expect(await values.next() == nil)
        #expect(await states.next() == .idle)
        #expect(await states.next() == nil)
        var later = await mock.aiSettingsValues().makeAsyncIterator()
        #expect(await later.next() == nil)
        #expect(mock.requests.last == .values(.aiSettings))
        #expect(mock.consumerCount(of: .values(.aiSettings)) == 0)
    }
}
