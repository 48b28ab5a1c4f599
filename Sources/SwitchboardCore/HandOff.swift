import Foundation

/// An unbounded queue from any number of producers to one consuming task: the event path's
/// replacement for `AsyncStream` between Switchboard's own tasks.
///
/// `AsyncStream`'s `next()` suspends on every call, even when an element is already waiting,
/// so each element costs a trip through the executor. Here the consumer moves everything
/// buffered into its own batch in one locked swap and hands it out without suspending; it
/// suspends only when nothing is waiting. After ``fairnessLimit`` elements in a row without
/// suspending, the consumer yields (`Task.yield()`), so a flooded consumer running on an actor
/// still lets other work on that actor through.
///
/// As with `AsyncStream`, cancelling the consuming task ends the sequence like
/// ``Continuation/finish()``: later yields are refused (``YieldResult/terminated``), and the
/// consumer gets what was already buffered, then nil.
///
/// The type and its nested types are `@usableFromInline` as well as `package`: without that, the
/// compiler neither checks nor serializes the `@inlinable` members of a `package` type, so other
/// modules called them unspecialized (Swift 6.3.1).
@usableFromInline package struct HandOff<Element: Sendable>: AsyncSequence, Sendable {
    @usableFromInline package typealias Failure = Never

    /// How many elements the consumer takes without suspending before it yields.
    @usableFromInline package static var fairnessLimit: Int { 256 }

    @usableFromInline let storage: Storage

    /// Makes a sequence and the continuation that feeds it.
    package static func makeStream() -> (stream: HandOff, continuation: Continuation) {
        let storage = Storage()
        return (HandOff(storage: storage), Continuation(storage: storage))
    }

    @usableFromInline init(storage: Storage) { self.storage = storage }

    /// What became of a yielded element.
    @usableFromInline package enum YieldResult: Sendable, Equatable {
        /// It is buffered for the consumer.
        case enqueued
        /// The sequence ended (finished, or its consumer was cancelled); it was dropped.
        case terminated
    }

    /// Feeds a ``HandOff``; it can be copied and used from any task.
    @usableFromInline package struct Continuation: Sendable {
        @usableFromInline let storage: Storage

        @usableFromInline init(storage: Storage) { self.storage = storage }

        /// Appends an element for the consumer.
        @inlinable @discardableResult
        package func yield(_ element: consuming Element) -> YieldResult {
            storage.yield(element)
        }

        /// Ends the sequence once the consumer has taken what is buffered.
        @inlinable package func finish() {
            storage.finish(last: nil)
        }

        /// Appends `last` and ends the sequence in one step: nothing another producer yields
        /// concurrently can come after it.
        @inlinable package func finish(last: Element) {
            storage.finish(last: last)
        }
    }

    @usableFromInline package func makeAsyncIterator() -> AsyncIterator { AsyncIterator(storage: storage) }

    /// Consumes the sequence by handing each element to `sink` as it is yielded (what is buffered
    /// first), on the producer's thread, and nil once it ended: no task waits in between. The
    /// sequence must not be iterated as well.
    package func forward(_ sink: @escaping @Sendable (Element?) -> Void) { storage.forward(sink) }

    /// The consumer's side. The sequence has one consumer: an iterator made later carries on
    /// where the previous one stopped, and two tasks must not wait for elements at once.
    @usableFromInline package struct AsyncIterator: AsyncIteratorProtocol {
        @usableFromInline let storage: Storage

        @usableFromInline init(storage: Storage) { self.storage = storage }

        @inlinable package mutating func next() async -> Element? {
            await storage.next(isolation: nil)
        }

        /// The next element: at once when one is buffered; otherwise once one arrives. Nil once
        /// the sequence ended (finished, or the consuming task was cancelled) and everything
        /// buffered before was handed out. Runs on the caller's isolation, so an actor's loop
        /// over a hand-off does not hop off the actor.
        @inlinable package mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await storage.next(isolation: actor)
        }
    }

    /// The shared state: the producers' buffer, the consumer's wait and whether it ended, and
    /// (touched by the one consumer only, without the lock) the batch it is handing out.
    ///
    /// The buffer and the batch are raw ``Slots`` rather than arrays: code generic over
    /// `Element` that is not specialized (its non-inlinable parts, such as `forward(_:)`) then
    /// needs no type but `Element` itself, where an `[Element?]` needed a runtime metadata
    /// lookup for `Optional<Element>` and the array types on every element.
    @usableFromInline final class Storage: @unchecked Sendable {
        @usableFromInline enum State { case open, finished, cancelled }
        @usableFromInline enum Take { case took, empty, ended }

        /// A batch with more room than this is not kept for reuse once handed out, so a burst
        /// does not pin its peak capacity for the life of the sequence.
        @usableFromInline static var retainedCapacity: Int { 1_024 }

        @usableFromInline let lock = NSLock()
        /// Set by ``forward(_:)``: elements go straight to it instead of being buffered, and nil
        /// tells it the sequence ended.
        @usableFromInline var sink: (@Sendable (Element?) -> Void)?
        @usableFromInline var buffer = Slots()
        @usableFromInline var state = State.open
        @usableFromInline var waiter: UnsafeContinuation<Void, Never>?

        /// The consumer's side: what the last swap took, handed out from `index` on (each
        /// element is moved out as it is handed out), and how many elements it took since it
        /// last suspended.
        @usableFromInline var batch = Slots()
        @usableFromInline var index = 0
        @usableFromInline var sinceSuspension = 0

        @usableFromInline init() {}

        deinit {
            buffer.destroy(from: 0)
            batch.destroy(from: index)
        }

        @inlinable func next(isolation actor: isolated (any Actor)?) async -> Element? {
            sinceSuspension += 1
            if sinceSuspension > HandOff.fairnessLimit {
                sinceSuspension = 1
                await Task.yield()
            }
            if index < batch.count {
                defer { index += 1 }
                return batch.move(at: index)
            }
            batch.empty(keepingCapacityUpTo: Self.retainedCapacity)
            index = 0
            while true {
                // A cancelled consumer ends the sequence; what is buffered still comes.
                if Task.isCancelled { cancel() }
                switch take() {
                case .took:
                    index = 1
                    return batch.move(at: 0)
                case .ended:
                    return nil
                case .empty:
                    sinceSuspension = 1
                    await wait(isolation: actor)
                }
            }
        }

        @inlinable func yield(_ element: consuming Element) -> YieldResult {
            lock.lock()
            guard state == .open else {
                lock.unlock()
                return .terminated
            }
            if let sink {
                lock.unlock()
                sink(element)
                return .enqueued
            }
            buffer.append(element)
            let waiter = self.waiter
            self.waiter = nil
            lock.unlock()
            waiter?.resume()
            return .enqueued
        }

        /// Appends `last` (when given) and ends the sequence, in one step.
        @inlinable func finish(last: Element?) {
            lock.lock()
            if state == .open, let sink {
                state = .finished
                lock.unlock()
                if let last { sink(last) }
                sink(nil)
                return
            }
            if state == .open {
                if let last { buffer.append(last) }
                state = .finished
            }
            let waiter = self.waiter
            self.waiter = nil
            lock.unlock()
            waiter?.resume()
        }

        /// Ends the sequence because its consumer was cancelled: later yields are refused, what
        /// is buffered is still handed out.
        @inlinable func cancel() {
            lock.lock()
            if state == .open { state = .cancelled }
            let waiter = self.waiter
            self.waiter = nil
            lock.unlock()
            waiter?.resume()
        }

        /// Hands everything buffered to `sink`, then every later element as it is yielded, on
        /// the producer's thread, and nil once the sequence ended. The buffered elements go
        /// while the lock is held, so a concurrent yield comes after them: order is kept. For a
        /// sequence nobody iterates.
        @usableFromInline func forward(_ sink: @escaping @Sendable (Element?) -> Void) {
            lock.lock()
            defer { lock.unlock() }
            precondition(self.sink == nil && waiter == nil, "a HandOff has one consumer; it is already read")
            for index in 0..<buffer.count { sink(buffer.move(at: index)) }
            buffer.count = 0
            if state == .open {
                self.sink = sink
            } else {
                sink(nil)
            }
        }

        /// Swaps what is buffered into the consumer's batch, which is empty (its capacity is
        /// reused by the producers).
        @inlinable func take() -> Take {
            lock.lock()
            defer { lock.unlock() }
            if buffer.count > 0 {
                swap(&buffer, &batch)
                return .took
            }
            return state == .open ? .empty : .ended
        }

        /// Returns once something is buffered, the sequence ended, or the task is cancelled.
        @inlinable func wait(isolation actor: isolated (any Actor)?) async {
            await withTaskCancellationHandler {
                await withUnsafeContinuation(isolation: actor) { (continuation: UnsafeContinuation<Void, Never>) in
                    lock.lock()
                    precondition(waiter == nil, "a HandOff has one consumer; two tasks waited for it at once")
                    if buffer.count == 0, state == .open {
                        waiter = continuation
                        lock.unlock()
                    } else {
                        lock.unlock()
                        continuation.resume()
                    }
                }
            } onCancel: {
                cancel()
            }
        }
    }

    /// Elements in raw storage, for ``Storage``: `count` initialized slots from the start,
    /// growing by doubling. Moving an element out leaves its slot uninitialized; the owner
    /// keeps track of which slots still hold one.
    @usableFromInline struct Slots {
        @usableFromInline var base: UnsafeMutablePointer<Element>
        @usableFromInline var capacity: Int
        @usableFromInline var count = 0

        @usableFromInline init() {
            base = .allocate(capacity: 0)
            capacity = 0
        }

        @inlinable mutating func append(_ element: consuming Element) {
            if count == capacity { grow() }
            (base + count).initialize(to: element)
            count += 1
        }

        /// Moves out the element of slot `index`, which must hold one.
        @inlinable func move(at index: Int) -> Element {
            (base + index).move()
        }

        @usableFromInline mutating func grow() {
            let larger = UnsafeMutablePointer<Element>.allocate(capacity: Swift.max(8, capacity * 2))
            larger.moveInitialize(from: base, count: count)
            base.deallocate()
            base = larger
            capacity = Swift.max(8, capacity * 2)
        }

        /// Forgets the slots, whose elements were all moved out; frees the storage when it
        /// holds more than `retained`.
        @inlinable mutating func empty(keepingCapacityUpTo retained: Int) {
            count = 0
            if capacity > retained {
                base.deallocate()
                base = .allocate(capacity: 0)
                capacity = 0
            }
        }

        /// Destroys the elements still held from slot `start` on and frees the storage.
        @usableFromInline func destroy(from start: Int) {
            if start < count { (base + start).deinitialize(count: count - start) }
            base.deallocate()
        }
    }
}
