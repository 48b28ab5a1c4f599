import CSwitchboardMalloc
import Foundation
import SwitchboardCore
import Testing

/// The sequence a transport reports through: connection-state changes carry when they were
/// yielded, so a reader behind a backlog still knows when an attempt began.
@Suite("TransportEvents")
struct TransportEventsTests {
    /// A clock the test sets by hand.
    final class Clock: @unchecked Sendable {
        private let time = LockedValue(Duration.seconds(100))
        var now: Duration {
            get { time.withLock { $0 } }
            set { time.withLock { $0 = newValue } }
        }
    }

    @Test("state changes and established subscriptions are stamped when yielded, on the reader's clock; other events and unstamped sequences carry none")
    func stamps() async {
        let (events, continuation) = TransportEvents.makeStream()
        continuation.yield(.connectionStateChanged(.connecting(attempt: 1)))  // before any clock
        let clock = Clock()
        events.stampingStateChanges(with: { clock.now })
        continuation.yield(.connectionStateChanged(.connecting(attempt: 2)))
        clock.now = .seconds(105)
        continuation.yield(.subscriptionEstablished("k"))
        continuation.yield(.connectionStateChanged(.connected))
        continuation.yield(.error(SwitchboardError(code: .network, message: "x")))
        clock.now = .seconds(200)  // read much later
        continuation.finish()

        var iterator = events.makeAsyncIterator()
        var read: [(TransportEvent, Duration?)] = []
        while let stamped = await iterator.nextStamped(isolation: nil) { read.append((stamped.event, stamped.yieldedAt)) }
        #expect(read.map(\.0) == [
            .connectionStateChanged(.connecting(attempt: 1)), .connectionStateChanged(.connecting(attempt: 2)),
            .subscriptionEstablished("k"), .connectionStateChanged(.connected), .error(SwitchboardError(code: .network, message: "x")),
        ])
        #expect(read.map(\.1) == [
            nil, .seconds(100), .seconds(105), .seconds(105), nil,
        ])
    }

    @Test("the public iterator hands out the events alone, in order")
    func plainIteration() async {
        let (events, continuation) = TransportEvents.makeStream()
        events.stampingStateChanges(with: { .seconds(1) })
        continuation.yield(.connectionStateChanged(.connected))
        continuation.yield(.error(SwitchboardError(code: .network, message: "x")))
        continuation.finish()
        var got: [TransportEvent] = []
        for await event in events { got.append(event) }
        #expect(got == [.connectionStateChanged(.connected), .error(SwitchboardError(code: .network, message: "x"))])
    }

    /// Stamps `count` state changes in rounds of 100, each read back before the next, so the
    /// queue's buffer stays small; returns how much malloc's bytes in use grew over them.
    static func heapGrowth(stamping count: Int, events: TransportEvents, continuation: TransportEvents.Continuation) async -> Int {
        var iterator = events.makeAsyncIterator()
        let before = switchboard_malloc_bytes_in_use()
        for _ in 0..<count / 100 {
            for _ in 0..<100 { continuation.yield(.connectionStateChanged(.connected)) }
            for _ in 0..<100 { _ = await iterator.nextStamped(isolation: nil) }
        }
        return Int(switchboard_malloc_bytes_in_use() - before)
    }

    #if os(Linux)
    @Test("stamping keeps no memory per state change (reading the clock once wrapped it anew every time)")
    func stampingKeepsNothing() async throws {
        try #require(switchboard_malloc_bytes_in_use() >= 0, "needs glibc's mallinfo2")
        let (events, continuation) = TransportEvents.makeStream()
        events.stampingStateChanges(with: { .seconds(1) })
        _ = await Self.heapGrowth(stamping: 1_000, events: events, continuation: continuation)  // warm up
        // 8,000 state changes kept 512 KiB when each read kept two 32-byte closure contexts.
        // The smallest of three rounds, as other tests allocate in this process meanwhile.
        var growths: [Int] = []
        for _ in 0..<3 { growths.append(await Self.heapGrowth(stamping: 8_000, events: events, continuation: continuation)) }
        #expect(growths.min()! < 128 << 10, "malloc's bytes in use grew by \(growths) bytes")
    }
    #endif
}
