#if canImport(Glibc)
import Glibc
#endif
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

    #if os(Linux)
    @Test("malloc's bytes in use follow what is held, and giving free pages back lowers anonymous memory")
    func heapAndFreePages() throws {
        // 64 MiB in 32 KiB blocks, below glibc's mmap threshold. Every other block is freed
        // while its neighbours stay held, so malloc cannot merge the freed ones into the top of
        // its heap and return them on its own; only giving free pages back releases them.
        let size = 32_768
        let before = try #require(MemorySample.read(elapsed: 0).heapBytes)
        let blocks = (0..<2_048).map { _ -> UnsafeMutableRawPointer in
            let block = malloc(size)!
            memset(block, 1, size)  // make the pages resident
            return block
        }
        let holding = try #require(MemorySample.read(elapsed: 0).heapBytes)
        #expect(holding - before > 48 << 20, "held \(holding - before) bytes more")
        for index in stride(from: 0, to: blocks.count, by: 2) { free(blocks[index]) }
        let kept = try #require(MemorySample.read(elapsed: 0).anonymousBytes)
        let released = MemorySample.read(elapsed: 0, releasingFreePages: true)
        for index in stride(from: 1, to: blocks.count, by: 2) { free(blocks[index]) }
        let after = try #require(MemorySample.read(elapsed: 0).heapBytes)
        #expect(after - before < 16 << 20, "after freeing: \(after - before) bytes more than before")
        #expect(try kept - #require(released.anonymousBytes) > 16 << 20, "anonymous \(kept) -> \(released.anonymousBytes ?? 0)")
    }
    #endif
}
