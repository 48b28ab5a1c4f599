import Foundation
import Testing
@testable import SwitchboardCore

@Suite("HandOff: the event path's queue between tasks")
struct HandOffTests {
    @Test("elements arrive in the order they were yielded, across batches and waits")
    func order() async {
        let (stream, continuation) = HandOff<Int>.makeStream()
        let producer = Task {
            for value in 0..<5_000 {
                continuation.yield(value)
                if value.isMultiple(of: 97) { await Task.yield() }
            }
            continuation.finish()
        }
        var received: [Int] = []
        for await value in stream { received.append(value) }
        await producer.value
        #expect(received == Array(0..<5_000))
    }

    @Test("several producers at once: nothing lost, each producer's elements in order")
    func concurrentProducers() async {
        let (stream, continuation) = HandOff<(producer: Int, value: Int)>.makeStream()
        let producers = 4
        let each = 5_000
        let received = Task {
            var byProducer = Array(repeating: [Int](), count: producers)
            for await element in stream { byProducer[element.producer].append(element.value) }
            return byProducer
        }
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<producers {
                group.addTask {
                    for value in 0..<each { continuation.yield((producer, value)) }
                }
            }
        }
        continuation.finish()
        let byProducer = await received.value
        for values in byProducer { #expect(values == Array(0..<each)) }
    }

    @Test("after finish: what was buffered, then nil; later yields are refused")
    func finish() async {
        let (stream, continuation) = HandOff<String>.makeStream()
        #expect(continuation.yield("a") == .enqueued)
        #expect(continuation.yield("b") == .enqueued)
        continuation.finish()
        #expect(continuation.yield("c") == .terminated)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == "a")
        #expect(await iterator.next() == "b")
        #expect(await iterator.next() == nil)
        #expect(await iterator.next() == nil)
    }

    @Test("a finish or a cancellation wakes a waiting consumer with nil; later yields are refused", arguments: [true, false])
    func endWakesWaiter(byCancelling: Bool) async {
        let (stream, continuation) = HandOff<Int>.makeStream()
        let consumer = Task {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        await Self.waitUntilSuspended(stream)
        if byCancelling {
            consumer.cancel()
        } else {
            continuation.finish()
        }
        #expect(await consumer.value == nil)
        #expect(continuation.yield(1) == .terminated)
    }

    @Test("cancelling the consumer ends the sequence as finish does: what was buffered still comes, later yields are refused")
    func cancelWithBuffered() async {
        let (stream, continuation) = HandOff<Int>.makeStream()
        for value in 0..<10 { continuation.yield(value) }
        let gate = HandOff<Void>.makeStream()
        let consumer = Task {
            var iterator = stream.makeAsyncIterator()
            var gateIterator = gate.stream.makeAsyncIterator()
            _ = await gateIterator.next()
            // Cancelled by now, before the first element was taken.
            var received: [Int] = []
            while let value = await iterator.next() { received.append(value) }
            return received
        }
        consumer.cancel()
        gate.continuation.yield(())
        #expect(await consumer.value == Array(0..<10))
        #expect(continuation.yield(10) == .terminated)
    }

    @Test("a flooded consumer on an actor lets other calls on that actor through")
    func fairness() async {
        let (stream, continuation) = HandOff<Int>.makeStream()
        let total = 20 * HandOff<Int>.fairnessLimit
        for value in 0..<total { continuation.yield(value) }
        continuation.finish()
        let seenAt = await FloodedLoop().consume(stream)
        // Without yielding, the call would get in only once the loop ran dry (nil).
        #expect(seenAt != nil)
        #expect((seenAt ?? total) <= HandOff<Int>.fairnessLimit + 1)
    }

    @Test("an iterator made later carries on where the previous one stopped")
    func laterIterator() async {
        let (stream, continuation) = HandOff<Int>.makeStream()
        for value in 0..<5 { continuation.yield(value) }
        var first: [Int] = []
        for await value in stream {
            first.append(value)
            break
        }
        continuation.yield(5)
        continuation.finish()
        var rest: [Int] = []
        for await value in stream { rest.append(value) }
        #expect(first == [0])
        #expect(rest == [1, 2, 3, 4, 5])
    }

    @Test("finish with a last element: nothing yielded afterwards comes after it")
    func finishWithLast() async {
        let (stream, continuation) = HandOff<String>.makeStream()
        continuation.yield("a")
        continuation.finish(last: "end")
        #expect(continuation.yield("late") == .terminated)
        var received: [String] = []
        for await value in stream { received.append(value) }
        #expect(received == ["a", "end"])
    }

    /// Waits until the consumer of `stream` is suspended waiting for an element.
    private static func waitUntilSuspended<Element>(_ stream: HandOff<Element>) async {
        while stream.storage.lock.withLock({ stream.storage.waiter == nil }) {
            await Task.yield()
        }
    }
}

/// An actor whose loop takes a flood of elements, noting when another call got in.
private actor FloodedLoop {
    private var interrupted = false

    /// Returns how many elements the loop had taken when ``interrupt()`` ran, nil if never. At the
    /// first element it queues that call on this actor, behind the running loop.
    func consume(_ stream: HandOff<Int>) async -> Int? {
        var taken = 0
        for await _ in stream {
            if taken == 0 { Task { await self.interrupt() } }
            taken += 1
            if interrupted { return taken }
        }
        return nil
    }

    func interrupt() { interrupted = true }
}

@Suite("Forwarding a queue without a reading task")
struct HandOffForwardTests {
    @Test("what was buffered goes first, then each yield as it happens, then the end; nothing after it")
    func order() {
        let (stream, continuation) = HandOff<Int>.makeStream()
        let received = LockedValue<[Int?]>([])
        continuation.yield(1)
        continuation.yield(2)
        stream.forward { value in received.withLock { $0.append(value) } }
        #expect(received.withLock { $0 } == [1, 2])
        continuation.yield(3)
        continuation.finish(last: 4)
        #expect(continuation.yield(5) == .terminated)
        #expect(received.withLock { $0 } == [1, 2, 3, 4, nil])
    }

    @Test("a sequence that ended before it was forwarded hands over what it held and its end")
    func endedBefore() {
        let (stream, continuation) = HandOff<Int>.makeStream()
        continuation.yield(7)
        continuation.finish()
        let received = LockedValue<[Int?]>([])
        stream.forward { value in received.withLock { $0.append(value) } }
        #expect(received.withLock { $0 } == [7, nil])
    }

    @Test("a producer yielding while the queue is being forwarded loses nothing and keeps its order")
    func concurrent() async {
        let (stream, continuation) = HandOff<Int>.makeStream()
        let received = LockedValue<[Int]>([])
        let producer = Task.detached {
            for value in 0..<20_000 { continuation.yield(value) }
            continuation.finish()
        }
        // While the producer runs (wherever it is by then: before, during or after its yields).
        stream.forward { value in if let value { received.withLock { $0.append(value) } } }
        await producer.value
        #expect(received.withLock { $0 } == Array(0..<20_000))
    }

    @Test("a WebSocket's inbound forwards events, then nil at a normal end or the error it failed with")
    func inbound() {
        let (inbound, continuation) = WebSocketInbound.makeStream()
        let received = LockedValue<[String]>([])
        continuation.yield(.message(.text("a")))
        inbound.forward { item in
            let line = switch item {
            case .success(.message(.text(let text)))?: text
            case .success(let other)?: "\(other)"
            case .failure(let error)?: "failed: \(error)"
            case nil: "end"
            }
            received.withLock { $0.append(line) }
        }
        continuation.yield(.message(.text("b")))
        continuation.finish(throwing: SwitchboardError(code: .network, message: "gone"))
        #expect(received.withLock { $0 } == ["a", "b", "failed: SwitchboardError.network: gone"], "the failure is the end: no nil after it")
    }
}
