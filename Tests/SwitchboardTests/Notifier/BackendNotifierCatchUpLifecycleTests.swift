import Foundation
@testable import Switchboard
import SwitchboardCore
import SwitchboardSync
import SwitchboardTesting
import Testing

/// Catch-up across the app lifecycle, and the data-sync system events.
extension BackendNotifierCatchUpTests {
    @Test("resume after a suspension fills the gap: what was published while suspended comes first, once, in order")
    func resumeFillsTheGap() async throws {
        try await run { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            await connected(h)
            h.publishRole("a")
            #expect(await take(1, from: &roles) == ["a"])
            await h.notifier.suspend()
            await h.transport.waitUntil { !$0.isConnected && $0.commands.last == .disconnect }
            h.publishRole("b", missed: true)
            h.publishRole("c", missed: true)
            let connectsBefore = h.transport.state.connectionCount
            await h.notifier.resume()
            await h.transport.waitUntil { $0.connectionCount == connectsBefore + 1 }
            h.publishRole("d")
            #expect(await take(3, from: &roles) == ["b", "c", "d"])
        }
    }

    @Test("every catch-up publishes data-sync started and completed, with its statistics")
    func dataSyncEvents() async throws {
        try await run { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            await connected(h)
            while h.broker.published(DataSyncCompletedEvent.self).isEmpty { try await Task.sleep(for: .milliseconds(1)) }
            h.publishRole("a", missed: true)
            h.publishRole("b", missed: true)
            h.transport.dropConnection()
            #expect(await take(2, from: &roles) == ["a", "b"])
            while h.broker.published(DataSyncCompletedEvent.self).count < 2 { try await Task.sleep(for: .milliseconds(1)) }
            let started = h.broker.published(DataSyncStartedEvent.self).map(\.reason)
            #expect(started == ["start", "reconnected"])
            let completed = h.broker.published(DataSyncCompletedEvent.self)
            #expect(completed.map(\.reason) == ["start", "reconnected"])
            #expect(completed.last?.fetchedEvents == 2)
            #expect(completed.last?.deliveredEvents == 2)
            #expect(completed.last?.skippedEvents == 0)
            #expect(completed.last?.attempts == 1)
            #expect(completed.last?.completedOverStream == true)
            #expect(h.broker.published(DataSyncFailedEvent.self).isEmpty)
            let progress: [DataSyncProgressEvent] = h.broker.published(CatchUpProgressEvent.self)
            #expect(progress.last?.percentage == 100)
        }
    }

    @Test("a catch-up that fails for good publishes data-sync failed with the error")
    func dataSyncFailed() async throws {
        try await run { h in
            let roles = await h.notifier.roleValues()
            await connected(h)
            while h.broker.published(DataSyncCompletedEvent.self).isEmpty { try await Task.sleep(for: .milliseconds(1)) }
            h.log.failNext(SwitchboardError(code: .sessionExpired, message: "sync refused"))
            h.transport.dropConnection()
            while h.broker.published(DataSyncFailedEvent.self).isEmpty { try await Task.sleep(for: .milliseconds(1)) }
            let failed = try #require(h.broker.published(DataSyncFailedEvent.self).first)
            #expect(failed.reason == "reconnected")
            #expect(failed.error.code == .sessionExpired)
            #expect(failed.attempts == 1, "not a transient failure: no retry")
            withExtendedLifetime(roles) {}
        }
    }

    @Test("a memory warning moves the checkpoint on so the remembered live deliveries can go")
    func memoryWarningFlushesRememberedDeliveries() async throws {
        try await run { h in
            var roles = await h.notifier.roleValues().makeAsyncIterator()
            await connected(h)
            while h.broker.published(DataSyncCompletedEvent.self).isEmpty { try await Task.sleep(for: .milliseconds(1)) }
            h.publishRole("a")
            h.publishRole("b")
            #expect(await take(2, from: &roles) == ["a", "b"])
            let callsBefore = h.log.calls
            let trim = await h.notifier.didReceiveMemoryWarning()
            #expect(trim.rememberedDeliveries == 2)
            while h.broker.published(DataSyncCompletedEvent.self).count < 2 { try await Task.sleep(for: .milliseconds(1)) }
            #expect(h.log.calls == callsBefore + 1)
            #expect(h.broker.published(DataSyncStartedEvent.self).last?.reason == "remembered deliveries full")
            // Nothing was delivered twice: the catch-up skipped what had come live.
            let flush = try #require(h.broker.published(DataSyncCompletedEvent.self).last)
            #expect(flush.fetchedEvents == 2 && flush.deliveredEvents == 0 && flush.skippedEvents == 2, "\(flush)")
            let again = await h.notifier.didReceiveMemoryWarning()
            #expect(again.rememberedDeliveries == 0, "forgotten once the checkpoint moved past them")
        }
    }
}
