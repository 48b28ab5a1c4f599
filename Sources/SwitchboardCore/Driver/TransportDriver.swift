import Foundation
import Logging

/// The driver both transports share: one loop per `run()` that feeds inputs to a
/// ``ConnectionMachine`` and carries out its ``DriverAction``s, with the transport's
/// ``ConnectionDialect`` for what differs between them.
///
/// It owns everything around the machine:
/// - **Lifecycle:** `run()` once at a time, `shutDown()` before, during or after it.
/// - **Sockets:** each opens in a child task and is held under its ``ConnectionID`` while it
///   opens, while it is open and, once retired, until it ends. Its frames go straight into the
///   loop's input queue as the socket yields them (no reading task in between). Whatever arrives
///   for an id the driver no longer holds is dropped here: the one staleness check.
/// - **Authorization:** a message that carries a token or signature is authorized in a child
///   task, so a slow token provider never holds up keep-alives or other sockets.
/// - **Connection checks:** the WebSocket ping runs in a child task; its pong comes back as an input.
/// - **Time:** one ``ElapsedClock`` for every instant, and one timer child sleeping towards the
///   machine's ``ConnectionMachine/nextDeadline``. A deadline that moved later lets the child
///   sleep on and wake early once; only an earlier one starts another child.
///
/// Commands only enqueue inputs and return at once.
///
/// The loop is `@inlinable` from ``run(machine:state:random:)`` down to the per-frame closure, so
/// each transport's module gets it specialized for its dialect; the types and members it touches
/// are `@usableFromInline` for that (an `@inlinable` member of a `package` type that is not is
/// neither checked nor serialized, and other modules call it unspecialized).
@usableFromInline package struct TransportDriver<Dialect: ConnectionDialect>: Sendable {
    /// The transport's connection rules.
    @usableFromInline package typealias Machine = Dialect.Machine

    /// What the loop reacts to, in the order it was queued.
    @usableFromInline package enum Input: Sendable {
        /// The owner called `connect(as:)`.
        case connect(TransportIdentity)
        /// The owner called `disconnect()`.
        case disconnect
        /// The owner added a subscription.
        case subscribe(SubscriptionRequest)
        /// The owner removed a subscription.
        case unsubscribe(SubscriptionKey)
        /// The owner called `shutDown()` while `run()` runs.
        case shutDown
        /// The owner asked for a connection check.
        case verifyConnection(timeout: Duration)
        /// A transport-specific input.
        case command(Dialect.Command)
        /// A socket opened, with what its handshake produced.
        case opened(ConnectionID, any WebSocketConnection, Machine.Handshake)
        /// Opening a socket failed.
        case openFailed(ConnectionID, ConnectFailure)
        /// A frame, decoded by the dialect as the socket delivered it (nil: dropped), with the
        /// time it arrived (on the machine's clock, and as the date its envelopes carry) and the
        /// share of the socket's ``InboundBudget`` it holds.
        case frame(
            ConnectionID, Result<Machine.ServerMessage, SwitchboardError>?, receivedAt: Duration, arrivedAt: Date,
            charge: InboundCharge)
        /// A close frame, with the time it arrived.
        case closed(ConnectionID, WebSocketClose, receivedAt: Duration)
        /// A socket's frames ended (after a close frame, too), with the error it failed with.
        case ended(ConnectionID, (any Error)?)
        /// The timer child reached its deadline.
        case timer
        /// The pong of a check's ping, with the time it arrived.
        case ponged(ConnectionID, roundTrip: Duration, receivedAt: Duration)
        /// A check's ping failed.
        case pingFailed(ConnectionID, SwitchboardError)
        /// A message authorized off the loop, ready to go out.
        case authorized(ConnectionID, Authorized<Dialect.Command>)
    }

    /// The transport's codec, authorizer and hooks.
    @usableFromInline package let dialect: Dialect
    /// The injected clock.
    @usableFromInline package let clock: any Clock<Duration>
    /// Where the transport's events go.
    @usableFromInline package let events: TransportEvents.Continuation
    /// The input queue the loop reads.
    @usableFromInline package let inputs: HandOff<Input>
    /// Feeds ``inputs``; commands, sockets, pings and timers yield into it.
    @usableFromInline package let inputContinuation: HandOff<Input>.Continuation
    /// The transport's type name, for the error of a second `run()`.
    @usableFromInline package let name: String
    /// Whether `run()` runs, and whether `shutDown()` was called.
    @usableFromInline package let lifecycle = LockedValue((running: false, shutDown: false))

    /// Makes a driver; nothing runs until ``run(machine:state:random:)``.
    /// - Parameters:
    ///   - dialect: The transport's codec, authorizer and hooks.
    ///   - clock: The injected clock.
    ///   - events: Where the transport's events go.
    ///   - name: The transport's type name, such as `GraphQLSubscriber`.
    package init(dialect: Dialect, clock: any Clock<Duration>, events: TransportEvents.Continuation, name: String) {
        self.dialect = dialect
        self.clock = clock
        self.events = events
        self.name = name
        (inputs, inputContinuation) = HandOff<Input>.makeStream()
    }

    /// Whether `shutDown()` was called.
    package var isShutDown: Bool { lifecycle.withLock { $0.shutDown } }

    /// Queues an input.
    /// - Parameter input: The input.
    /// - Returns: ``HandOff/YieldResult/terminated`` once the loop has finished.
    @discardableResult
    package func yield(_ input: Input) -> HandOff<Input>.YieldResult { inputContinuation.yield(input) }

    /// Runs the loop until ``shutDown()`` (or the task is cancelled); returns at once after a
    /// shutdown that came first.
    /// - Parameters:
    ///   - machine: The machine, fresh.
    ///   - state: The dialect's state, fresh.
    ///   - random: The random source for reconnect delays.
    /// - Throws: ``SwitchboardError`` with ``SwitchboardError/Code/shutDown`` when `run()` is
    ///   already running.
    ///
    /// Inlinable, like ``drive(machine:state:random:)``: a transport's call of it is where the
    /// loop gets specialized for its machine and dialect (a generic `package` function that is
    /// not inlinable runs unspecialized, asking the runtime for its types' metadata on every use).
    @inlinable
    package func run(machine: Machine, state: Dialect.State, random: any RandomNumberGenerator & Sendable) async throws {
        // (running already, shut down already)
        let refused = lifecycle.withLock { state -> (Bool, Bool)? in
            if state.running || state.shutDown { return (state.running, state.shutDown) }
            state.running = true
            return nil
        }
        if let (running, _) = refused {
            if running { throw SwitchboardError(code: .shutDown, message: "\(name).run() is already running") }
            return
        }
        defer { lifecycle.withLock { $0.running = false } }
        await drive(machine: machine, state: state, random: random)
    }

    /// Shuts the transport down: the running loop closes its sockets and finishes the events;
    /// without one, the events finish at once. Later calls do nothing.
    package func shutDown() {
        let (first, running) = lifecycle.withLock { state -> (Bool, Bool) in
            defer { state.shutDown = true }
            return (!state.shutDown, state.running)
        }
        guard first else { return }
        if running {
            inputContinuation.yield(.shutDown)
        } else {
            events.yield(.connectionStateChanged(.shutDown))
            events.finish()
            inputContinuation.finish()
        }
    }

    /// The loop of one `run()`: reads the inputs until ``DriverAction/finish`` or the end of the
    /// queue, then finishes the events. Inlinable, so each transport gets it specialized for
    /// its own machine and dialect: the per-frame path calls them directly.
    @inlinable
    package func drive(machine: Machine, state: Dialect.State, random: any RandomNumberGenerator & Sendable) async {
        let logger = dialect.logger
        logger.debug("\(name) running")
        await withDiscardingTaskGroup { group in
            var loop = Loop(driver: self, machine: machine, state: state, random: DriverRandom(random))
            for await input in inputs {
                await loop.handle(consume input, group: &group)
                if loop.finished { break }
            }
            loop.stop(group: &group)
            group.cancelAll()
        }
        events.finish()
        inputContinuation.finish()
        logger.debug("\(name) stopped")
    }
}
