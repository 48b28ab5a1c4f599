// A view model test to copy: the model gets a `MockNotifier` instead of a `BackendNotifier`,
// the test sends typed values, connection states and errors, and waits for the model to change
// (through Observation, never by sleeping).
import ExampleViewModel
import Observation
import Switchboard
import SwitchboardTesting
import Testing

@MainActor
@Suite("DevicesViewModel, driven by MockNotifier", .timeLimit(.minutes(1)))
struct DevicesViewModelTests {
    /// Starts the model's `run()` and waits until it holds its three streams, so nothing sent is missed.
    static func running(_ model: DevicesViewModel, on notifier: MockNotifier) async -> Task<Void, Never> {
        let task = Task { await model.run() }
        await notifier.waitForConsumers(of: .values(.devicePresence))
        await notifier.waitForConsumers(of: .connectionStates)
        await notifier.waitForConsumers(of: .errors)
        return task
    }

    @Test("presence changes fill the list, sorted, one row per camera")
    func presence() async {
        let notifier = MockNotifier()
        let model = DevicesViewModel(notifier: notifier)
        let task = await Self.running(model, on: notifier)
        #expect(notifier.requests == [.values(.devicePresence), .connectionStates, .errors])

        notifier.send(DevicePresenceOutput(thingName: "yard", online: true))
        notifier.send(DevicePresenceOutput(thingName: "door", online: true))
        notifier.send(DevicePresenceOutput(thingName: "yard", online: false))
        await model.until { $0.devices.count == 2 && $0.devices.last?.isOnline == false }
        #expect(model.devices == [.init(name: "door", isOnline: true), .init(name: "yard", isOnline: false)])

        task.cancel()
        await task.value
        #expect(notifier.consumerCount(of: .values(.devicePresence)) == 0, "the model let go of its streams")
    }

    @Test("live while connected; a network error shows a banner until connected again")
    func connection() async {
        let notifier = MockNotifier(connectionState: .connected)
        let model = DevicesViewModel(notifier: notifier)
        let task = await Self.running(model, on: notifier)
        await model.until { $0.isLive }

        notifier.send(SwitchboardError(code: .network, message: "keep-alive timeout: no frame from the server within 300 s"))
        notifier.send(.waitingToReconnect(attempt: 1, delay: .seconds(1)))
        await model.until { !$0.isLive && $0.banner != nil }
        #expect(model.banner == "Connection lost. Reconnecting…")
        #expect(!model.needsSignIn)

        notifier.send(.connected)
        await model.until { $0.isLive }
        #expect(model.banner == nil)
        task.cancel()
        await task.value
    }

    @Test("an expired session asks the user to sign in again")
    func sessionExpired() async {
        let notifier = MockNotifier()
        let model = DevicesViewModel(notifier: notifier)
        let task = await Self.running(model, on: notifier)
        notifier.send(SwitchboardError(code: .sessionExpired, message: "credentials rejected after a token refresh"))
        await model.until { $0.needsSignIn }
        #expect(model.banner == "Please sign in again.")
        // The notifier shuts down: the model's run() returns by itself.
        notifier.finish()
        await task.value
    }
}

extension DevicesViewModel {
    /// Suspends until `predicate` holds, woken by every change Observation reports; returns
    /// early when the test is cancelled (its time limit), so the assertions after it fail.
    func until(_ predicate: (DevicesViewModel) -> Bool) async {
        while !predicate(self), !Task.isCancelled {
            let (changed, continuation) = AsyncStream<Void>.makeStream()
            withObservationTracking {
                _ = (devices, isLive, banner, needsSignIn)
            } onChange: {
                continuation.finish()
            }
            if predicate(self) { return }
            for await _ in changed {}
        }
    }
}
