import Foundation
import Switchboard
import SwitchboardTesting
import Testing

/// The migration's promise: for every recorded scenario, a consumer sees the same typed values,
/// in the same order, on every one of the eleven value streams, on AppSync Events as on the
/// legacy GraphQL transport in each of its dialects, apart from the metadata only AppSync Events
/// carries (`eventType`, `timestamp`); and the same error codes and connection states.
///
/// Parameterised over `Fixtures/<scenario>/`: add a scenario by adding its recordings.
@Suite("Parity: the legacy fixtures and the AppSync fixtures give consumers the same streams", .timeLimit(.minutes(1)))
struct ParityTests {
    static let cases: [(String, MigrationTransport)] = Fixtures.scenarios.flatMap { scenario in
        MigrationTransport.legacy.map { (scenario, $0) }
    }

    @Test("every committed scenario has a recording for each transport")
    func fixturesAreComplete() throws {
        #expect(Fixtures.scenarios.count >= 4)
        for scenario in Fixtures.scenarios {
            for transport in MigrationTransport.allCases {
                let fixture = try Fixtures.load(scenario, transport)
                #expect(fixture.header?.scenario == scenario)
                #expect(fixture.header?.dialect == transport.rawValue)
                #expect(!fixture.entries.isEmpty)
            }
        }
    }

    @Test("the legacy transport and AppSync Events yield the same typed streams", arguments: cases)
    func parity(scenario: String, legacy: MigrationTransport) async throws {
        let (appSync, appSyncReport) = try await MigrationTransport.appSync.replay(try Fixtures.load(scenario, .appSync))
        let (graphQL, graphQLReport) = try await legacy.replay(try Fixtures.load(scenario, legacy))
        #expect(appSyncReport.mismatches == [])
        #expect(graphQLReport.mismatches == [])
        // A scenario that shows nothing proves nothing.
        #expect(appSync.valueCount + appSync.errors.count > 0)
        // The eleven value streams, the error codes and the connection states must all match.
        let differences = appSync.withoutTransportMetadata().differences(from: graphQL.withoutTransportMetadata())
        #expect(differences == [], "\(scenario): AppSync Events vs \(legacy)")
    }
}
