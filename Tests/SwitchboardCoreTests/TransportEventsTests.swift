import Foundation
import SwitchboardCore
import Testing

/// The sequence a transport reports through: connection-state changes carry when they were
/// yielded, so a reader behind a backlog still knows when an attempt began.
@Suite("TransportEvents")
struct TransportEventsTests {
    /// A clock the test sets by hand.
    final class Clock: @unchecked Sendable {
        private let time = LockedValue(Date(timeIntervalSince1970: 100))
        var now: Date {
            get { time.withLock { $0 } }
            set { time.withLock { $0 = newValue } }
        }
    }

    @Test("state changes are stamped when yielded, on the reader's clock; other events and unstamped sequences carry none")
    func stamps() async {
        let (events, continuation) = TransportEvents.makeStream()
        continuation.yield(.connectionStateChanged(.connecting(attempt: 1)))  // before any clock
        let clock = Clock()
        events.stampingStateChanges(with: { clock.now })
        continuation.yield(.connectionStateChanged(.connecting(attempt: 2)))
        clock.now = Date(timeIntervalSince1970: 105)
        continuation.yield(.subscriptionEstablished("k"))
        continuation.yield(.connectionStateChanged(.connected))
        clock.now = Date(timeIntervalSince1970: 200)  // read much later
        continuation.finish()

        var iterator = events.makeAsyncIterator()
        var read: [(TransportEvent, Date?)] = []
        while let stamped = await iterator.nextStamped(isolation: nil) { read.append(stamped) }
        #expect(read.map(\.0) == [
            .connectionStateChanged(.connecting(attempt: 1)), .connectionStateChanged(.connecting(attempt: 2)),
            .subscriptionEstablished("k"), .connectionStateChanged(.connected),
        ])
        #expect(read.map(\.1) == [
            nil, Date(timeIntervalSince1970: 100), nil, Date(timeIntervalSince1970: 105),
        ])
    }

    @Test("the public iterator hands out the events alone, in order")
    func plainIteration() async {
        let (events, continuation) = TransportEvents.makeStream()
        events.stampingStateChanges(with: { Date(timeIntervalSince1970: 1) })
        continuation.yield(.connectionStateChanged(.connected))
        continuation.yield(.error(SwitchboardError(code: .network, message: "x")))
        continuation.finish()
        var got: [TransportEvent] = []
        for await event in events { got.append(event) }
        #expect(got == [.connectionStateChanged(.connected), .error(SwitchboardError(code: .network, message: "x"))])
    }
}
