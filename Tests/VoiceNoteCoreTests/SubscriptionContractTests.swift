#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import VoiceNoteTestSupport
@testable import VoiceNoteCore

/// Per-subscription bookkeeping shared between a test and its callbacks.
final class Probe: Sendable {
    let calls = Atomic<Int>(0)
    let releases = Atomic<Int>(0)
    let unsubscribed = Atomic<Bool>(false)
    let lateCalls = Atomic<Int>(0)
    let lastSequence = Atomic<UInt64>(0)
    let outOfOrder = Atomic<Int>(0)

    func record(_ event: TestEvent) {
        if unsubscribed.load(ordering: .acquiring) { lateCalls.add(1, ordering: .relaxed) }
        let previous = lastSequence.exchange(event.sequence, ordering: .relaxed)
        if previous != 0 && event.sequence <= previous { outOfOrder.add(1, ordering: .relaxed) }
        calls.add(1, ordering: .relaxed)
    }
}

@Suite struct SubscriptionContractTests {
    @Test func noCallbackAfterUnsubscribeAndReleaseOnce() throws {
        let source = TestEventSource()
        defer { source.close() }
        try source.start(count: 0, intervalMicroseconds: 0)
        var probes: [Probe] = []
        for _ in 0..<10_000 {
            let probe = Probe()
            let id = try source.events.subscribe({ probe.record($0) }, release: { probe.releases.add(1, ordering: .relaxed) })
            try SubscriptionRegistry.shared.end(id: id)
            probe.unsubscribed.store(true, ordering: .releasing)
            probes.append(probe)
        }
        source.stop()
        // Drain: one more subscriber sees an event fired after every earlier one, so all earlier ones were handled.
        let last = Probe()
        _ = try source.events.subscribe({ last.record($0) }, release: nil)
        try source.emit(count: 1)
        #expect(eventually(seconds: 10, pollMicroseconds: 200) { last.calls.load(ordering: .relaxed) == 1 })
        #expect(probes.allSatisfy { $0.lateCalls.load(ordering: .relaxed) == 0 })
        #expect(probes.allSatisfy { $0.releases.load(ordering: .relaxed) == 1 })
        #expect(source.fired > 0)
    }

    @Test func eventsArriveInOrderWithoutGaps() throws {
        let source = TestEventSource()
        defer { source.close() }
        let probes = (0..<8).map { _ in Probe() }
        for probe in probes { _ = try source.events.subscribe({ probe.record($0) }, release: nil) }
        try source.start(count: 5000, intervalMicroseconds: 0)
        try source.emit(count: 100)
        #expect(eventually(seconds: 10, pollMicroseconds: 200) { probes.allSatisfy { $0.calls.load(ordering: .relaxed) == 5100 } })
        #expect(probes.allSatisfy { $0.outOfOrder.load(ordering: .relaxed) == 0 })
        #expect(probes.allSatisfy { $0.lastSequence.load(ordering: .relaxed) == 5100 })
    }

    @Test func unsubscribeInsideCallbackDoesNotWait() throws {
        let source = TestEventSource()
        defer { source.close() }
        let probe = Probe()
        let id = Atomic<UInt64>(0)
        let status = Atomic<Int32>(1)
        id.store(try source.events.subscribe({ event in
            probe.record(event)
            do throws(VoiceNoteError) { try SubscriptionRegistry.shared.end(id: id.load(ordering: .acquiring)); status.store(0, ordering: .relaxed) }
            catch { status.store(error.status.rawValue, ordering: .relaxed) }
            probe.unsubscribed.store(true, ordering: .releasing)
        }, release: { probe.releases.add(1, ordering: .relaxed) }), ordering: .releasing)
        try source.emit(count: 3)
        #expect(eventually(seconds: 10, pollMicroseconds: 200) { probe.releases.load(ordering: .relaxed) == 1 })
        #expect(status.load(ordering: .relaxed) == 0)
        #expect(probe.calls.load(ordering: .relaxed) == 1)
    }

    @Test func destroyInsideCallbackDoesNotWait() throws {
        let source = TestEventSource()
        let probe = Probe()
        _ = try source.events.subscribe({ event in
            probe.record(event)
            source.close()
        }, release: { probe.releases.add(1, ordering: .relaxed) })
        try source.start(count: 0, intervalMicroseconds: 0)
        #expect(eventually(seconds: 10, pollMicroseconds: 200) { probe.releases.load(ordering: .relaxed) == 1 })
        #expect(probe.calls.load(ordering: .relaxed) == 1)
        #expect(throws: VoiceNoteError.self) { try source.emit(count: 1) }
    }

    @Test func unsubscribeFromAnotherThreadWaitsForRunningCallback() throws {
        let source = TestEventSource()
        defer { source.close() }
        let entered = Atomic<Bool>(false)
        let mayLeave = Atomic<Bool>(false)
        let left = Atomic<Bool>(false)
        let id = try source.events.subscribe({ _ in
            entered.store(true, ordering: .releasing)
            _ = eventually(seconds: 10, pollMicroseconds: 200) { mayLeave.load(ordering: .acquiring) }
            left.store(true, ordering: .releasing)
        }, release: nil)
        try source.emit(count: 1)
        #expect(eventually(seconds: 10, pollMicroseconds: 200) { entered.load(ordering: .acquiring) })
        let releaser = try LibraryThread(name: "test-releaser") {
            usleep(50_000)  // keeps the callback running while `end` waits: a deliberate delay
            mayLeave.store(true, ordering: .releasing)
        }
        try SubscriptionRegistry.shared.end(id: id)
        let callbackFinished = left.load(ordering: .acquiring)
        #expect(callbackFinished)
        releaser.join()
    }

    @Test func doubleAndUnknownUnsubscribeAreMisuse() throws {
        let source = TestEventSource()
        defer { source.close() }
        let id = try source.events.subscribe({ _ in }, release: nil)
        try SubscriptionRegistry.shared.end(id: id)
        #expect(throws: VoiceNoteError(.misuse, "unknown or already ended subscription id \(id)")) {
            try SubscriptionRegistry.shared.end(id: id)
        }
        #expect(throws: VoiceNoteError.self) { try SubscriptionRegistry.shared.end(id: 0) }
        #expect(throws: VoiceNoteError.self) { try SubscriptionRegistry.shared.end(id: UInt64.max) }
    }

    @Test func subscribeAfterCloseIsMisuseAndDoesNotRelease() {
        let source = TestEventSource()
        source.close()
        let probe = Probe()
        #expect(throws: VoiceNoteError.self) {
            _ = try source.events.subscribe({ _ in }, release: { probe.releases.add(1, ordering: .relaxed) })
        }
        #expect(probe.releases.load(ordering: .relaxed) == 0)
    }
}

@Suite struct CrossThreadCallbackTests {
    @Test func callbacksOnTwoThreadsEndingEachOthersSubscriptionsDoNotDeadlock() throws {
        let loop = try EventLoop()
        defer { loop.close() }
        let onEventThread = TestEventSource()
        let onLoop = TestEventSource(dispatcher: loop)
        defer { onEventThread.close(); onLoop.close() }
        let ids = Locked<(a: UInt64, b: UInt64)>((0, 0))
        let startedA = Atomic<Bool>(false), startedB = Atomic<Bool>(false)
        let finishedA = Atomic<Bool>(false), finishedB = Atomic<Bool>(false)
        let releases = Atomic<Int>(0)
        let a = try onEventThread.events.subscribe({ _ in
            startedA.store(true, ordering: .releasing)
            _ = eventually(seconds: 10, pollMicroseconds: 200) { startedB.load(ordering: .acquiring) }
            try? SubscriptionRegistry.shared.end(id: ids.withLock { $0.b })
            finishedA.store(true, ordering: .releasing)
        }, release: { releases.add(1, ordering: .relaxed) })
        let b = try onLoop.events.subscribe({ _ in
            startedB.store(true, ordering: .releasing)
            _ = eventually(seconds: 10, pollMicroseconds: 200) { startedA.load(ordering: .acquiring) }
            try? SubscriptionRegistry.shared.end(id: ids.withLock { $0.a })
            finishedB.store(true, ordering: .releasing)
        }, release: { releases.add(1, ordering: .relaxed) })
        ids.withLock { $0 = (a, b) }
        try onEventThread.emit(count: 1)
        try onLoop.emit(count: 1)
        let dispatcher = try LibraryThread(name: "test-dispatch") { _ = try? loop.dispatch() }
        #expect(eventually(seconds: 10, pollMicroseconds: 200) { finishedA.load(ordering: .acquiring) && finishedB.load(ordering: .acquiring) })
        dispatcher.join()
        #expect(releases.load(ordering: .relaxed) == 2)
    }
}
