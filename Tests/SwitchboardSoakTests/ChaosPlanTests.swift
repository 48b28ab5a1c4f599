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

    @Test("kinds come in rounds: every kind once, in a seeded order, before any comes again")
    func rounds() {
        for seed: UInt64 in [1, 42, 43, 711] {
            var plan = ChaosPlan(seed: seed)
            let count = ChaosFault.Kind.allCases.count
            let drawn = (0..<(3 * count)).map { _ in plan.next().fault.kind }
            for start in stride(from: 0, to: drawn.count, by: count) {
                #expect(Set(drawn[start..<(start + count)]) == Set(ChaosFault.Kind.allCases), "seed \(seed): \(drawn)")
            }
            #expect(drawn[0..<count] != drawn[count..<(2 * count)] || drawn[count..<(2 * count)] != drawn[(2 * count)...],
                    "rounds are shuffled anew")
        }
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
