import Testing

@testable import SwitchboardSoak

@Suite("Memory slope rule")
struct MemorySlopeTests {
    static let mebibyte = 1 << 20

    /// Samples every 5 s for `minutes`, anonymous memory from `heap(seconds)`.
    static func samples(minutes: Int, _ heap: (Double) -> Double) -> [MemorySample] {
        stride(from: 0.0, through: Double(minutes * 60), by: 5).map {
            MemorySample(elapsed: $0, residentBytes: nil, anonymousBytes: Int(heap($0)))
        }
    }

    /// Deterministic noise in [-1, 1) (a linear congruential generator), for repeatable runs.
    struct Noise {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) * 2 - 1
        }
    }

    let rule = MemoryTrend(warmUp: 120, absoluteTolerance: 16 << 20)

    func anon(_ samples: [MemorySample]) throws -> MemoryTrend.Verdict {
        let verdicts = rule.evaluate(samples)
        return try #require(verdicts.first { $0.measure == "anon" })
    }

    @Test("a straight line is fitted exactly")
    func exactFit() throws {
        let fit = try #require(MemoryTrend.Slope.fit([(0, 10), (1, 12), (2, 14), (3, 16)]))
        #expect(fit.slope == 2)
        #expect(fit.standardError == 0)
        #expect(MemoryTrend.Slope.fit([(1, 1), (1, 2)]) == nil)
    }

    @Test("flat memory with noise of ±3 MiB passes, over an hour")
    func flatWithNoise() throws {
        var noise = Noise()
        let verdict = try anon(Self.samples(minutes: 60) { _ in Double(60 * Self.mebibyte) + noise.next() * Double(3 * Self.mebibyte) })
        let slope = try #require(verdict.slope)
        #expect(slope.judged)
        #expect(abs(slope.mebibytesPerHour) < 2, "\(slope)")
        #expect(!verdict.climbs && !verdict.grew)
    }

    @Test("a steady leak of 1.5 MiB a minute fails on its slope, reported in MiB per hour")
    func steadyLeak() throws {
        var noise = Noise()
        let verdict = try anon(Self.samples(minutes: 30) { seconds in
            Double(40 * Self.mebibyte) + seconds / 60 * 1.5 * Double(Self.mebibyte) + noise.next() * Double(Self.mebibyte)
        })
        let slope = try #require(verdict.slope)
        #expect(abs(slope.mebibytesPerHour - 90) < 2, "\(slope)")
        #expect(verdict.climbs)
        let report = SoakReport(transport: .appsync, seed: 1, duration: .seconds(1800), rate: 1, catchUp: true)
        var failing = report
        failing.memoryJudged = true
        failing.memoryVerdicts = [verdict]
        let fitted = SoakReport.slope(slope.mebibytesPerHour)
        #expect(fitted.hasPrefix("+8") || fitted.hasPrefix("+9"), "\(fitted)")
        #expect(failing.failures.contains { $0.hasPrefix("memory climbs: anon \(fitted) fitted after warm-up") }, "\(failing.failures)")
        #expect(failing.lines().contains { $0.hasPrefix("memory slope (anon, least squares after warm-up): \(fitted)") && $0.hasSuffix("CLIMBS") })
    }

    @Test("a leak of 3 MiB an hour, inside the jump's 16 MiB tolerance, fails on its slope")
    func slowLeak() throws {
        let verdict = try anon(Self.samples(minutes: 60) { seconds in Double(50 * Self.mebibyte) + seconds / 3600 * 3 * Double(Self.mebibyte) })
        #expect(!verdict.grew)
        #expect(verdict.climbs)
    }

    @Test("a single step after the warm-up is judged by the jump, as before, not as a slope",
          arguments: [(4, false), (40, true)])
    func step(mebibytes: Int, grows: Bool) throws {
        let verdict = try anon(Self.samples(minutes: 60) { seconds in
            Double(50 * Self.mebibyte) + (seconds > 1800 ? Double(mebibytes * Self.mebibyte) : 0)
        })
        let slope = try #require(verdict.slope)
        #expect(slope.mebibytesPerHour > 2, "the overall line does rise: \(slope)")
        #expect(!verdict.climbs, "\(slope)")
        #expect(verdict.grew == grows)
    }

    @Test("a short run reports its slope without judging it")
    func shortRun() throws {
        let verdict = try anon(Self.samples(minutes: 4) { seconds in Double(50 * Self.mebibyte) + seconds * 1000 })
        let slope = try #require(verdict.slope)
        #expect(!slope.judged && !verdict.climbs)
        #expect(SoakReport.slopeLine("anon", slope).hasSuffix("not judged (120 s after warm-up, under the 300 s needed)"))
    }

    @Test("malloc's bytes in use are judged on their own: a live leak under flat anonymous memory fails")
    func heapLeakUnderFlatAnon() throws {
        var noise = Noise()
        let samples = stride(from: 0.0, through: 3600, by: 5).map { seconds in
            MemorySample(
                elapsed: seconds, residentBytes: nil, anonymousBytes: 60 * Self.mebibyte + Int(noise.next() * 2e6),
                heapBytes: 20 * Self.mebibyte + Int(seconds / 3600 * 3 * Double(Self.mebibyte)))
        }
        let verdicts = rule.evaluate(samples)
        let heap = try #require(verdicts.first { $0.measure == "heap" })
        #expect(try !anon(samples).climbs)
        #expect(heap.climbs && !heap.grew)
        var report = SoakReport(transport: .appsync, seed: 1, duration: .seconds(3600), rate: 1, catchUp: true)
        report.memoryJudged = true
        report.memoryVerdicts = verdicts
        #expect(report.failures.contains { $0.hasPrefix("memory climbs: heap +3.0 MiB/hour") }, "\(report.failures)")
    }

    @Test("samples without a heap figure (not glibc) judge anonymous memory alone")
    func noHeapFigure() {
        let verdicts = rule.evaluate(Self.samples(minutes: 30) { _ in Double(50 * Self.mebibyte) })
        #expect(verdicts.map(\.measure) == ["anon"])
    }
}
