import Switchboard
import Testing

@testable import switchboard_example

/// Not part of what an app team copies: proves in CI that the consumer app example
/// (`swift run switchboard-example`) runs to the end on both transports, and that both of its
/// API generations see every event.
@Suite("The consumer app example runs on both transports", .serialized, .timeLimit(.minutes(1)))
struct ConsumerAppTests {
    /// Only bounds a run that went wrong; a loaded CI machine may take several seconds per run.
    static let timeout = Duration.seconds(45)

    @Test("every published event reaches both API generations, then the app signs out", arguments: TransportKind.builtIn)
    func run(_ kind: TransportKind) async throws {
        let updates = try await ExampleRun.run(selection: TransportSelection(kind: kind, source: .code), timeout: Self.timeout)
        let events = updates.compactMap { update -> (AppUpdate.Generation, String)? in
            guard case .event(let generation, let method, _) = update else { return nil }
            return (generation, method)
        }
        #expect(events.filter { $0.0 == .legacy }.count == 9)
        #expect(Set(events.filter { $0.0 == .legacy }.map(\.1)).count == 5)
        #expect(Set(events.filter { $0.0 == .perChannel }.map(\.1)).count == 9)
        #expect(updates.contains(.connection(.connected)))
        #expect(updates.last == .connection(.idle))
        #expect(!updates.contains { if case .error = $0 { true } else { false } })
    }

    @Test("what the app shows is the same on AppSync Events and on GraphQL")
    func sameOnBothTransports() async throws {
        func shown(_ kind: TransportKind) async throws -> [String] {
            try await ExampleRun.run(selection: TransportSelection(kind: kind, source: .code), timeout: Self.timeout).map(\.description).sorted()
        }
        #expect(try await shown(.appsync) == (try await shown(.graphql)))
    }
}
