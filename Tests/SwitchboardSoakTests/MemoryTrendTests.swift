import Testing

@testable import SwitchboardSoak

@Suite("Memory trend rule")
struct MemoryTrendTests {
    static func samples(_ heap: (Int) -> Int, count: Int = 30) -> [MemorySample] {
        (0..<count).map { MemorySample(elapsed: Double($0), residentBytes: nil, anonymousBytes: heap($0)) }
    }

    let rule = MemoryTrend(warmUp: 6, relativeTolerance: 0.10, absoluteTolerance: 1 << 20)

    @Test("flat memory after a warm-up ramp passes")
    func flat() throws {
        let verdicts = rule.evaluate(Self.samples { $0 < 6 ? $0 * 10 << 20 : 60 << 20 })
        let heap = try #require(verdicts.first)
        #expect(verdicts.count == 1 && heap.measure == "anon")
        #expect(!heap.grew)
    }

    @Test("a steady climb after the warm-up fails")
    func leak() throws {
        let verdicts = rule.evaluate(Self.samples { (50 << 20) + $0 * (1 << 20) })
        #expect(try #require(verdicts.first).grew)
    }

    @Test("a single spike late in the run does not count as growth")
    func spike() throws {
        let verdicts = rule.evaluate(Self.samples { $0 == 28 ? 200 << 20 : 50 << 20 })
        #expect(try !#require(verdicts.first).grew)
    }

    @Test("too few samples after the warm-up give no verdict")
    func tooFew() {
        #expect(rule.evaluate(Self.samples({ $0 << 20 }, count: 10)).isEmpty)
    }

    @Test("this process can be sampled")
    func readsProcess() {
        let sample = MemorySample.read(elapsed: 0)
        #if os(Linux)
        #expect((sample.residentBytes ?? 0) > 0)
        #expect((sample.anonymousBytes ?? 0) > 0)
        #endif
    }
}
