import SwitchboardCore
import SwitchboardTesting
import Testing

@testable import Switchboard

@Suite("Connection gate")
struct ConnectionGateTests {
    struct PathStep: Equatable {
        var previous: NetworkPath?
        var change: ConnectionGate.PathChange
    }

    let signedIn = ConnectionGate.Facts(signedIn: true, shutDown: false, switching: false)

    @Test("a connection is wanted only signed in, running, in the foreground, online and not switching")
    func wanted() {
        var gate = ConnectionGate()
        #expect(gate.wantsConnection(signedIn))
        #expect(!gate.wantsConnection(.init(signedIn: false, shutDown: false, switching: false)))
        #expect(!gate.wantsConnection(.init(signedIn: true, shutDown: true, switching: false)))
        #expect(!gate.wantsConnection(.init(signedIn: true, shutDown: false, switching: true)))
        let suspended = gate.suspend()
        #expect(suspended)
        #expect(!gate.wantsConnection(signedIn))
        let resumption = gate.resume()
        #expect(resumption == .connect)
        #expect(gate.wantsConnection(signedIn))
    }

    @Test("suspending twice does nothing the second time; resuming without a suspension checks the connection")
    func suspendResume() {
        var gate = ConnectionGate()
        let unsuspended = gate.resume()
        let suspensions = [gate.suspend(), gate.suspend()]
        let resumptions = [gate.resume(), gate.resume()]
        #expect(unsuspended == .checkConnection)
        #expect(suspensions == [true, false])
        #expect(resumptions == [.connect, .checkConnection])
    }

    @Test("a lost path disconnects only a wanted connection; its return connects; other interfaces, and a first report, are checked")
    func paths() {
        var gate = ConnectionGate()
        let wifi = NetworkPath.satisfied(.wifi)
        func apply(_ path: NetworkPath, _ facts: ConnectionGate.Facts) -> PathStep {
            let (previous, change) = gate.apply(path, facts)
            return PathStep(previous: previous, change: change)
        }
        #expect(apply(wifi, signedIn) == PathStep(previous: nil, change: .none))
        #expect(apply(wifi, signedIn) == PathStep(previous: wifi, change: .none))
        #expect(apply(.unsatisfied, signedIn) == PathStep(previous: wifi, change: .disconnect))
        #expect(gate.pathLost)
        #expect(!gate.wantsConnection(signedIn))
        #expect(apply(.satisfied(.cellular), signedIn) == PathStep(previous: .unsatisfied, change: .connect))
        #expect(gate.wantsConnection(signedIn))
        #expect(apply(wifi, signedIn) == PathStep(previous: .satisfied(.cellular), change: .checkConnection))
        let signedOut = ConnectionGate.Facts(signedIn: false, shutDown: false, switching: false)
        #expect(apply(.unsatisfied, signedOut) == PathStep(previous: wifi, change: .none))
        #expect(gate.pathLost)

        // A monitor that knew no path at start: its first report while connected is checked.
        var started = ConnectionGate()
        started.start(on: nil)
        var connected = signedIn
        connected.connected = true
        let (previous, change) = started.apply(.satisfied(.cellular), connected)
        #expect(previous == nil && change == .checkConnection)
        // One that knew the path: the same path again is nothing, a lost one at start holds the connection.
        started.start(on: .unsatisfied)
        #expect(!started.wantsConnection(signedIn))
        let again = started.apply(.unsatisfied, signedIn)
        #expect(again.previous == .unsatisfied && again.change == .none)
    }
}

@Suite("Transport switch")
struct TransportSwitchTests {
    typealias Switch = TransportSwitch<String, Int>
    let selection = TransportSelection(kind: .graphql, source: .code)

    @Test("before the notifier runs, the next transport takes over at once")
    func notRunning() {
        var switching = Switch()
        let takeover = switching.begin(to: "next", from: .appsync, selection: selection, running: false)
        #expect(takeover == .now)
        #expect(switching.generation == 1)
        #expect(!switching.isPending)
    }

    @Test("while running, the switch waits for the previous transport; stale events are counted; waiters are resumed")
    func running() {
        var switching = Switch()
        let takeover = switching.begin(to: "next", from: .appsync, selection: selection, running: true)
        #expect(takeover == .afterPreviousStops)
        #expect(switching.isPending)
        #expect(!switching.isFinalEnd(of: 0), "the previous transport's end is not the notifier's")
        switching.countStaleEvent()
        switching.countStaleEvent()
        switching.addWaiter(7, 70)
        switching.addWaiter(8, 80)
        let removed = switching.removeWaiter(8)
        #expect(removed == 80)
        let early = switching.previousStopped(1)
        #expect(early == nil, "only the retiring generation completes it")
        let pending = switching.previousStopped(0)
        #expect(pending?.next == "next")
        #expect(pending?.from == .appsync)
        #expect(pending?.staleEvents == 2)
        #expect(!switching.isPending)
        let waiters = [switching.takeWaiters(), switching.takeWaiters()]
        #expect(waiters == [[70], []])
        #expect(switching.isFinalEnd(of: 1))
    }

    @Test("a shutdown abandons the pending switch and hands back its waiters")
    func shutDown() {
        var switching = Switch()
        _ = switching.begin(to: "next", from: .appsync, selection: selection, running: true)
        switching.addWaiter(1, 10)
        let (abandoned, waiters) = switching.shutDown()
        #expect(abandoned == "next")
        #expect(waiters == [10])
        #expect(!switching.isPending)
        let again = switching.shutDown()
        #expect(again.abandoned == nil)
    }
}

@Suite("Session follower")
struct SessionFollowerTests {
    func identity(_ user: String, _ org: String = "o1") -> TransportIdentity {
        TransportIdentity(userId: user, orgId: org, tokens: TokenProvider { _ in "t" })
    }

    @Test("sign-in, a refresh of the same identity, another identity, sign-out")
    func steps() {
        var follower = SessionFollower()
        let updates: [Session] = [.signedOut, .signedIn(identity("u1")), .signedIn(identity("u1")), .signedIn(identity("u1", "o2"))]
        let steps = updates.map { follower.follow($0) }
        #expect(steps == [.none, .signIn, .refresh, .change])
        #expect(follower.identity?.orgId == "o2")
        let signOut = follower.follow(.signedOut)
        #expect(signOut == .signOut)
        #expect(!follower.isSignedIn)
    }

    @Test("a lost connection is a gap unless the notifier asked for it; the gap is handed over once connected")
    func gaps() {
        var follower = SessionFollower()
        _ = follower.follow(.signedIn(identity("u1")))
        let first = follower.connectionChanged(from: .idle, to: .connected)
        #expect(first == nil)
        let lost = follower.connectionChanged(from: .connected, to: .waitingToReconnect(attempt: 1, delay: .seconds(1)))
        #expect(lost == nil)
        #expect(follower.pendingGap == .reconnected)
        let back = follower.connectionChanged(from: .connecting(attempt: 1), to: .connected)
        #expect(back == .reconnected)
        #expect(follower.pendingGap == nil)

        _ = follower.follow(.signedIn(identity("u2")))
        #expect(follower.connectionResetRequested)
        let dropped = follower.connectionChanged(from: .connected, to: .idle)
        let again = follower.connectionChanged(from: .idle, to: .connected)
        #expect(dropped == nil)
        #expect(again == nil, "a change of identity is no gap")
        #expect(!follower.connectionResetRequested)
    }

    @Test("a switch of transport is a gap while signed in; session updates during it")
    func switching() {
        var follower = SessionFollower()
        let signedOutSwitch = follower.switchBegan(from: .appsync, to: .graphql)
        #expect(!signedOutSwitch)
        let steps = [follower.followDuringSwitch(.signedIn(identity("u1"))), follower.followDuringSwitch(.signedIn(identity("u1")))]
        #expect(steps == [.signIn(first: true), .signIn(first: false)])
        let signedInSwitch = follower.switchBegan(from: .appsync, to: .graphql)
        #expect(signedInSwitch)
        let gap = follower.connectionChanged(from: .connecting(attempt: 1), to: .connected)
        #expect(gap == .transportSwitched(from: .appsync, to: .graphql))
        let signOut = follower.followDuringSwitch(.signedOut)
        #expect(signOut == .signOut)
        #expect(follower.identity == nil)
    }
}

@Suite("Subscription book")
struct SubscriptionBookTests {
    @Test("a planning failure is reported once until the failures are forgotten")
    func failuresOnce() {
        var book = SubscriptionBook()
        let bad = TransportIdentity(userId: "not a valid/user", orgId: "o1", tokens: TokenProvider { _ in "t" })
        let first = book.replan(for: [StreamCatalog.role], on: ScriptedTransport(kind: .appsync), identity: bad, namespace: "ns")
        #expect(first.failures.map(\.stream) == [StreamCatalog.role])
        #expect(first.commands.isEmpty)
        let second = book.replan(for: [StreamCatalog.role], on: ScriptedTransport(kind: .appsync), identity: bad, namespace: "ns")
        #expect(second.failures.isEmpty)
        book.forgetReportedFailures()
        let third = book.replan(for: [StreamCatalog.role], on: ScriptedTransport(kind: .appsync), identity: bad, namespace: "ns")
        #expect(third.failures.count == 1)
    }

    @Test("planned subscriptions are unacknowledged until established")
    func unacknowledged() {
        var book = SubscriptionBook()
        let identity = TransportIdentity(userId: "u1", orgId: "o1", tokens: TokenProvider { _ in "t" })
        let planned = book.replan(for: [StreamCatalog.role], on: ScriptedTransport(kind: .appsync), identity: identity, namespace: "ns")
        #expect(planned.failures.isEmpty)
        guard case .subscribe(let request) = planned.commands.first else {
            Issue.record("expected a subscribe, got \(planned.commands)")
            return
        }
        #expect(book.unacknowledged.map(\.request.key) == [request.key])
        _ = book.table.established(request.key)
        #expect(book.unacknowledged.isEmpty)
    }
}
