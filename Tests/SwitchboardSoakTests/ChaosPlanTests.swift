import Testing

@testable import SwitchboardSoak

@Suite("Chaos plan")
struct ChaosPlanTests {
    @Test("a seed replays the same faults and pauses; another seed does not")
    func seeded() {
        func draw(_ seed: UInt64) -> [String] {
            var plan = ChaosPlan(seed: seed)
            return (0..<50).map { _ in "\(plan.next())" }
        }
        #expect(draw(7) == draw(7))
        #expect(draw(7) != draw(8))
    }

    @Test("every kind is drawn, within the configured bounds")
    func bounds() {
        var plan = ChaosPlan(seed: 1, pause: 10...20, longestStall: 300)
        var kinds: Set<ChaosFault.Kind> = []
        for _ in 0..<500 {
            let (pause, fault) = plan.next()
            #expect(pause >= .milliseconds(10) && pause <= .milliseconds(20))
            if case .stall(let duration) = fault { #expect(duration <= .milliseconds(300)) }
            kinds.insert(fault.kind)
        }
        #expect(kinds == Set(ChaosFault.Kind.allCases))
        var drops = ChaosPlan(seed: 1, kinds: [.drop])
        #expect((0..<20).allSatisfy { _ in drops.next().fault.kind == .drop })
    }

    @Test("--faults parses lists, all and none, and names the allowed kinds on a typo")
    func parsing() throws {
        #expect(try ChaosPlan.kinds(parsing: "drop,stall,drop") == [.drop, .stall])
        #expect(try ChaosPlan.kinds(parsing: "all") == ChaosFault.Kind.allCases)
        #expect(try ChaosPlan.kinds(parsing: "none") == [])
        let error = #expect(throws: SoakError.self) { try ChaosPlan.kinds(parsing: "drop,flood") }
        #expect(error?.description.contains("latency") == true)
        #expect(try SoakTransport(parsing: "graphql") == .graphQLWS)
        #expect(throws: SoakError.self) { try SoakTransport(parsing: "mqtt") }
    }
}
