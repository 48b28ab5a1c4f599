import Foundation
import Logging

extension TransportDriver {
    /// A socket the loop holds.
    @usableFromInline package struct Socket {
        /// Where the socket is in its one life.
        @usableFromInline package enum Stage {
            /// Being opened in a child task.
            case opening
            /// Open: frames are read and sent.
            case open(any WebSocketConnection)
            /// Retired: closed by the client, read until the server's close; nothing is sent.
            case draining
        }

        /// The socket's id.
        @usableFromInline package var id: ConnectionID
        /// Where it is.
        @usableFromInline package var stage: Stage
        /// Its inbound budget, from its first charged frame: whether the client held its reads back.
        @usableFromInline package var budget: InboundBudget?

        @usableFromInline package init(id: ConnectionID, stage: Stage) {
            self.id = id
            self.stage = stage
        }
    }

    /// The mutable side of one `run()`: the machine, the held sockets and the timer. Lives on the
    /// loop's task only.
    @usableFromInline package struct Loop {
        /// The driver.
        @usableFromInline package let driver: TransportDriver
        /// Every instant the machine sees.
        @usableFromInline package let clock: ElapsedClock
        /// The deadline the newest timer child sleeps towards (nil once it fired).
        @usableFromInline package let timerTarget = LockedValue<Duration?>(nil)
        /// The machine.
        @usableFromInline package var machine: Machine
        /// The dialect's state.
        @usableFromInline package var state: Dialect.State
        /// The random source for the machine.
        @usableFromInline package var random: DriverRandom
        /// Who the transport connects as; nil when signed out.
        @usableFromInline package var identity: TransportIdentity?
        /// The sockets held: at most a few (AppSync holds three while it replaces its connection),
        /// so a list is faster to search than a dictionary.
        @usableFromInline package var sockets: [Socket] = []
        /// The deadline a timer child sleeps towards, as far as the loop knows.
        @usableFromInline package var armed: Duration?
        /// Whether this identity's connection was up before: the next open is a reconnect.
        @usableFromInline package var wasConnected = false
        /// Set by ``DriverAction/finish``.
        @usableFromInline package var finished = false
        /// The budget share of the frame being handled, until a delivery takes it.
        @usableFromInline package var pendingCharge = InboundCharge.none
        /// The actions of the frame being handled, kept between frames for its capacity.
        @usableFromInline package var actionBuffer: [Machine.Action] = []
        /// When the frame being handled arrived: the `receivedAt` of the envelopes it delivers.
        @usableFromInline package var pendingArrival = Date.distantPast

        /// Starts a loop.
        @inlinable
        package init(driver: TransportDriver, machine: Machine, state: Dialect.State, random: DriverRandom) {
            self.driver = driver
            self.clock = ElapsedClock(driver.clock)
            self.machine = machine
            self.state = state
            self.random = random
        }

        /// The transport's logger.
        @inlinable package var logger: Logger { driver.dialect.logger }

        /// Feeds one input to the machine (or drops it, if it comes from a socket no longer
        /// held) and performs the actions. The input is consumed, and switched on once: a frame's
        /// payload is moved out, not copied and released again.
        @inlinable
        package mutating func handle(_ input: consuming Input, group: inout DiscardingTaskGroup) async {
            // A frame counts from its arrival, not from when it is handled (a keep-alive deadline
            // must not move because the loop was busy).
            switch consume input {
            case .frame(let id, let decoded, let receivedAt, let arrivedAt, let charge):
                guard holds(id, budget: charge.budget) else {
                    charge.release()
                    return
                }
                // The first event the frame delivers carries its charge on to the reader; a frame
                // that delivers none gives it back here.
                pendingCharge = charge
                pendingArrival = arrivedAt
                switch decoded {
                case .success(let message)?:
                    // Into the reused buffer: emptied again (its capacity kept) once performed.
                    var actions = [Dialect.Machine.Action]()
                    swap(&actions, &actionBuffer)
                    machine.received(message, on: id, at: receivedAt, random: &random, into: &actions)
                    await perform(actions, group: &group)
                    actions.removeAll(keepingCapacity: true)
                    actionBuffer = actions
                case .failure(let error)?: await perform(machine.receivedGarbage(error, on: id, at: receivedAt), group: &group)
                case nil: break
                }
                pendingCharge.release()
                pendingCharge = .none
            case .closed(let id, let close, let receivedAt):
                guard remove(id) != nil else { return }
                logger.debug("socket closed", metadata: ["switchboard.connection": "\(id)", "switchboard.close": "\(close.code)"])
                await perform(machine.closed(id, close: close, error: nil, at: receivedAt, random: &random), group: &group)
            case .ended(let id, let error):
                guard remove(id) != nil else { return }
                await perform(machine.closed(id, close: nil, error: error, at: clock.now(), random: &random), group: &group)
            case .timer:
                armed = nil
                let now = clock.now()
                // A socket whose reads the client held back (its consumer was behind) may have the
                // server's keep-alives waiting unread: its watchdogs count from now at the earliest.
                for socket in sockets {
                    if let budget = socket.budget, budget.takeHeldBack() { machine.readsHeldBack(on: socket.id, at: now) }
                }
                await perform(machine.timerFired(at: now, random: &random), group: &group)
            case .ponged(let id, let roundTrip, let receivedAt):
                guard openConnection(id) != nil else { return }
                logger.trace("pong", metadata: ["switchboard.connection": "\(id)", "switchboard.round_trip": "\(roundTrip)"])
                await perform(machine.pongReceived(on: id, at: receivedAt), group: &group)
            case let other:
                await handleOther(other, at: clock.now(), group: &group)
            }
            rearm(group: &group)
        }

        /// The inputs that are not a socket's frames. Inlinable for ``forward(_:id:)``, which
        /// makes the per-frame closure when a socket opens.
        @inlinable
        package mutating func handleOther(_ input: Input, at now: Duration, group: inout DiscardingTaskGroup) async {
            switch input {
            case .connect(let next):
                identity = next
                wasConnected = false
                await perform(machine.connect(), group: &group)
            case .disconnect:
                identity = nil
                await perform(machine.disconnect(), group: &group)
            case .subscribe(let request):
                await perform(machine.subscribe(request), group: &group)
            case .unsubscribe(let key):
                await perform(machine.unsubscribe(key), group: &group)
            case .verifyConnection(let timeout):
                await perform(machine.verifyConnection(timeout: timeout, at: now), group: &group)
            case .command(let command):
                await perform(driver.dialect.handle(command, machine: &machine, state: &state, at: now, random: &random), group: &group)
            case .shutDown:
                driver.dialect.shutDown(state: &state)
                await perform(machine.shutDown(), group: &group)
            case .opened(let id, let connection, let handshake):
                guard let index = sockets.firstIndex(where: { $0.id == id }), case .opening = sockets[index].stage else {
                    // Opened after the machine gave it up: it never delivers anything.
                    group.addTask { await connection.close(code: .normalClosure, reason: "stale connection") }
                    return
                }
                sockets[index].stage = .open(connection)
                logger.debug("socket open", metadata: ["switchboard.connection": "\(id)"])
                forward(connection, id: id)
                await perform(machine.opened(id, handshake: handshake, at: now), group: &group)
            case .openFailed(let id, let failure):
                guard remove(id) != nil else { return }
                logger.debug("connect failed", metadata: [
                    "switchboard.connection": "\(id)", "switchboard.error": "\(SwitchboardError.logDescription(failure.error))",
                ])
                await perform(machine.openFailed(id, failure, at: now, random: &random), group: &group)
            case .pingFailed(let id, let error):
                guard openConnection(id) != nil else { return }
                logger.debug("ping failed", metadata: [
                    "switchboard.connection": "\(id)", "switchboard.error": "\(SwitchboardError.logDescription(error))",
                ])
                await perform(machine.pingFailed(on: id, error, at: now), group: &group)
            case .authorized(let id, let authorized):
                // A socket closed or replaced meanwhile: dropped. The machine has already sent the
                // message again on the new socket if it still wants it.
                guard let connection = openConnection(id) else { return }
                switch authorized {
                case .frame(let text, let kind):
                    await send(text, kind: kind, on: connection, id: id)
                case .refused(let command):
                    await perform(driver.dialect.handle(command, machine: &machine, state: &state, at: now, random: &random), group: &group)
                case .skip:
                    break
                }
            case .frame, .closed, .ended, .timer, .ponged:
                break
            }
        }

        /// Keeps a timer child sleeping towards the machine's next deadline. Some child always
        /// wakes at or before it: a later deadline keeps the current child sleeping (it wakes
        /// early once and the loop arms again), an earlier one (or one after none) starts another,
        /// which the older child recognises on waking and ends without a word.
        @inlinable
        package mutating func rearm(group: inout DiscardingTaskGroup) {
            guard let deadline = machine.nextDeadline else { return }
            if let armed, armed <= deadline { return }
            armed = deadline
            timerTarget.withLock { $0 = deadline }
            let target = timerTarget
            let clock = clock
            let inputs = driver.inputContinuation
            group.addTask {
                do { try await clock.sleep(until: deadline) } catch { return }
                let fire = target.withLock { wanted -> Bool in
                    guard wanted == deadline else { return false }
                    wanted = nil
                    return true
                }
                if fire { inputs.yield(.timer) }
            }
        }

        /// After ``DriverAction/finish``: closes what is still open and stops the timer.
        @usableFromInline package mutating func stop(group: inout DiscardingTaskGroup) {
            for socket in sockets {
                if case .open(let connection) = socket.stage {
                    group.addTask { await connection.close(code: .goingAway, reason: "") }
                }
            }
            sockets.removeAll()
            timerTarget.withLock { $0 = nil }
        }

        // MARK: Sockets

        /// Whether the loop holds `id` (open or draining); remembers the socket's inbound budget
        /// from its first charged frame.
        @inlinable
        package mutating func holds(_ id: ConnectionID, budget: InboundBudget?) -> Bool {
            for index in sockets.indices where sockets[index].id == id {
                if case .opening = sockets[index].stage { return false }
                if sockets[index].budget == nil, let budget { sockets[index].budget = budget }
                return true
            }
            return false
        }

        /// The socket `id` if it is open.
        @inlinable
        package func openConnection(_ id: ConnectionID) -> (any WebSocketConnection)? {
            for socket in sockets where socket.id == id {
                if case .open(let connection) = socket.stage { return connection }
            }
            return nil
        }

        /// Forgets `id`; returns its stage, nil if it was not held.
        @usableFromInline package mutating func remove(_ id: ConnectionID) -> Socket.Stage? {
            guard let index = sockets.firstIndex(where: { $0.id == id }) else { return nil }
            return sockets.remove(at: index).stage
        }

        /// Feeds one socket's frames, tagged with its id, straight into the loop's inputs as the
        /// socket yields them, then its end. Each frame is decoded here, on the thread that
        /// delivers it (the socket engine's event loop), so the codec's work runs beside the
        /// loop's rather than on it. Inlinable, so the closure that runs for every frame is
        /// specialized for the dialect with the rest of the loop.
        @inlinable
        package func forward(_ connection: any WebSocketConnection, id: ConnectionID) {
            let inputs = driver.inputContinuation
            let clock = clock
            let dialect = driver.dialect
            connection.inbound.forwardCharged { item, charge in
                switch item {
                case .success(.message(let message))?:
                    // Stamped as it arrives, before the codec's work and the loop's queue.
                    let receivedAt = clock.now()
                    let arrivedAt = Date()
                    let input = Input.frame(
                        id, dialect.decode(message, on: id), receivedAt: receivedAt, arrivedAt: arrivedAt, charge: charge)
                    if case .terminated = inputs.yield(input) { charge.release() }
                case .success(.closed(let close))?:
                    charge.release()
                    inputs.yield(.closed(id, close, receivedAt: clock.now()))
                case nil: inputs.yield(.ended(id, nil))
                case .failure(let error)?:
                    charge.release()
                    inputs.yield(.ended(id, error))
                }
            }
        }

        /// Sends one encoded frame. Never logs the text: it may carry a token.
        @usableFromInline package func send(_ text: String, kind: String?, on connection: any WebSocketConnection, id: ConnectionID) async {
            var metadata: Logger.Metadata = ["switchboard.connection": "\(id)", "switchboard.bytes": "\(text.utf8.count)"]
            if let kind { metadata["switchboard.frame"] = "\(kind)" }
            logger.trace("frame out", metadata: metadata)
            do {
                try await connection.send(.text(text))
            } catch {
                // The socket's end follows, and the machine decides what comes next.
                logger.debug("send failed", metadata: ["switchboard.error": "\(SwitchboardError.logDescription(error))"])
            }
        }
    }
}

/// The driver's random source for its machine: whatever generator the transport was configured
/// with, usable where a concrete `RandomNumberGenerator` is needed.
@usableFromInline package struct DriverRandom: RandomNumberGenerator, Sendable {
    /// The configured generator.
    package var base: any RandomNumberGenerator & Sendable

    /// - Parameter base: The configured generator.
    @usableFromInline package init(_ base: any RandomNumberGenerator & Sendable) { self.base = base }

    @usableFromInline package mutating func next() -> UInt64 { base.next() }
}
