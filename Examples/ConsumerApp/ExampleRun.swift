import Foundation
import Switchboard

/// One run of the example: the app's session from sign-in to quit, against the local backend.
enum ExampleRun {
    struct TimedOut: Error, CustomStringConvertible {
        var timeout: Duration
        var description: String { "timed out after \(timeout) before every event arrived" }
    }

    /// Starts the emulator and the service, signs in, has the backend publish one event of each
    /// type, waits until both API generations received every one, signs out and stops.
    /// - Parameters:
    ///   - selection: The transport the app uses.
    ///   - timeout: Gives up after this long if events are missing.
    ///   - show: Receives every update as it arrives.
    /// - Returns: Every update, in the order they arrived.
    static func run(
        selection: TransportSelection, timeout: Duration = .seconds(20),
        show: @escaping AppUpdate.Show = { _ in }
    ) async throws -> [AppUpdate] {
        try await LocalBackend.withEmulator { emulator, backend in
            let (updates, continuation) = AsyncStream.makeStream(of: AppUpdate.self)
            let service = try BackendEventsService(selection: selection, backend: backend) { continuation.yield($0) }
            return try await withThrowingTaskGroup(of: [AppUpdate]?.self) { group in
                // The app starts the service once, at launch.
                group.addTask {
                    try await service.run()
                    return nil
                }
                group.addTask {
                    // The user signs in; the notifier connects and subscribes.
                    service.signIn(userId: LocalBackend.userId, orgId: LocalBackend.orgId) { LocalBackend.apiKey }
                    try await LocalBackend.waitForSubscriptions(emulator)
                    let expected = try LocalBackend.publishSampleEvents(on: emulator) * AppUpdate.Generation.allCases.count
                    var received: [AppUpdate] = []
                    var signedOut = false
                    for await update in updates {
                        show(update)
                        received.append(update)
                        if !signedOut, received.eventCount == expected {
                            // Both generations saw every event: the user signs out…
                            service.signOut()
                            signedOut = true
                        }
                        // … the notifier disconnects (back to idle), and the app quits.
                        if signedOut, update == .connection(.idle) { break }
                    }
                    await service.stop()
                    return received
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw TimedOut(timeout: timeout)
                }
                while let result = try await group.next() {
                    if let received = result {
                        group.cancelAll()
                        return received
                    }
                }
                return []
            }
        }
    }
}

extension [AppUpdate] {
    /// How many typed events these updates hold.
    var eventCount: Int {
        count { if case .event = $0 { true } else { false } }
    }
}
