import Foundation
import Testing
import VoiceNoteCore
import VoiceNoteTestSupport

/// The clocks of the core: a manual one that runs timers in order inside `advance`, and the monotonic one with its
/// timer thread.
@Suite struct ClockTests {
    /// What timers did, in order.
    final class Trace: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func add(_ item: String) { lock.withLock { items.append(item) } }
        var all: [String] { lock.withLock { items } }
    }

    @Test func aManualClockRunsDueTimersInDeadlineThenSchedulingOrder() throws {
        let clock = ManualClock()
        let trace = Trace()
        _ = clock.schedule(after: 2) { trace.add("b@\(clock.now)") }
        _ = clock.schedule(after: 0.5) { trace.add("a@\(clock.now)") }
        _ = clock.schedule(after: 2) { trace.add("c@\(clock.now)") }
        _ = clock.schedule(after: 5) { trace.add("late") }
        try clock.advance(1.9)
        #expect(trace.all == ["a@0.5"] && clock.now == 1.9)
        try clock.advance(0.1)
        #expect(trace.all == ["a@0.5", "b@2.0", "c@2.0"] && clock.now == 2)
        try clock.advance(0)
        #expect(trace.all.count == 3)
    }

    @Test func aTimerScheduledByAnActionRunsInTheSameAdvanceWhenDue() throws {
        let clock = ManualClock()
        let trace = Trace()
        _ = clock.schedule(after: 1) {
            trace.add("first@\(clock.now)")
            _ = clock.schedule(after: 0.5) { trace.add("second@\(clock.now)") }
            _ = clock.schedule(after: 5) { trace.add("third") }
        }
        try clock.advance(3)
        #expect(trace.all == ["first@1.0", "second@1.5"] && clock.now == 3)
    }

    @Test func aCancelledTimerNeverRuns() throws {
        let clock = ManualClock()
        let trace = Trace()
        let timer = clock.schedule(after: 1) { trace.add("cancelled") }
        let later = Locked<ClockTimer?>(nil)
        _ = clock.schedule(after: 0.5) {
            trace.add("cancels the later one")
            later.withLock { $0?.cancel() }
        }
        later.withLock { $0 = clock.schedule(after: 0.7) { trace.add("never") } }
        timer.cancel()
        timer.cancel()
        try clock.advance(2)
        #expect(trace.all == ["cancels the later one"])
    }

    @Test func advanceRefusesBadTimeAndReentry() throws {
        let clock = ManualClock()
        for bad in [-1, Double.nan, .infinity] {
            #expect(throws: VoiceNoteError.self) { try clock.advance(bad) }
        }
        let inner = Locked<VoiceNoteError?>(nil)
        _ = clock.schedule(after: 1) {
            do { try clock.advance(1) } catch let error as VoiceNoteError { inner.withLock { $0 = error } } catch {}
        }
        try clock.advance(1)
        #expect(inner.withLock { $0?.status } == .misuse)
        #expect(clock.now == 1)
    }

    @Test func theMonotonicClockRunsATimerAtItsDeadlineOnItsThread() throws {
        let clock = MonotonicClock.shared
        let before = clock.now
        let fired = DispatchSemaphore(value: 0)
        let seen = Locked<(at: Double, thread: String)?>(nil)
        let scheduled = clock.now
        _ = clock.schedule(after: 0.05) {
            seen.withLock { $0 = (clock.now, currentThreadName()) }
            fired.signal()
        }
        #expect(fired.wait(timeout: .now() + 10) == .success)
        let firing = try #require(seen.withLock { $0 })
        #expect(scheduled >= before && firing.at >= scheduled + 0.05)
        #expect(firing.thread == "vn-timers")
    }

    @Test func aCancelledMonotonicTimerNeverRunsAndCancelWaitsForARunningOne() throws {
        let clock = MonotonicClock.shared
        let trace = Trace()
        let cancelled = clock.schedule(after: 0.01) { trace.add("cancelled") }
        cancelled.cancel()
        // A running action: cancel from another thread returns only after it finished.
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let running = clock.schedule(after: 0) {
            started.signal()
            _ = release.wait(timeout: .now() + 10)
            trace.add("running finished")
        }
        #expect(started.wait(timeout: .now() + 10) == .success)
        let cancelReturned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            running.cancel()
            trace.add("cancel returned")
            cancelReturned.signal()
        }
        #expect(cancelReturned.wait(timeout: .now() + 0.2) == .timedOut, "cancel returned while the action ran")
        release.signal()
        #expect(cancelReturned.wait(timeout: .now() + 10) == .success)
        // A later timer runs after the cancelled one's deadline: by then it would have run.
        let after = DispatchSemaphore(value: 0)
        _ = clock.schedule(after: 0.02) { after.signal() }
        #expect(after.wait(timeout: .now() + 10) == .success)
        #expect(trace.all == ["running finished", "cancel returned"])
    }

    @Test func aWaitOnAManualClockEndsInsideTheAdvanceThatReachesItsDeadline() throws {
        let clock = ManualClock()
        let monitor = Monitor()
        try clock.advance(10)
        let timed = try Background { monitor.locked { clock.wait(on: monitor, until: 12.5) } }
        #expect(eventually(seconds: 10) { clock.nextDeadline == 12.5 }, "the wait scheduled no wake-up")
        try clock.advance(2.4)
        #expect(timed.result == nil, "the wait ended before its deadline")
        try clock.advance(0.1)
        #expect(timed.result(within: 10) == false)
        // A deadline already passed does not wait; a broadcast ends a wait early (true) and drops its wake-up.
        #expect(monitor.locked { clock.wait(on: monitor, until: 12) } == false)
        let woken = try Background { monitor.locked { clock.wait(on: monitor, until: 20) } }
        #expect(eventually(seconds: 10) { clock.nextDeadline == 20 })
        monitor.locked { monitor.broadcast() }
        #expect(woken.result(within: 10) == true)
        #expect(clock.nextDeadline == nil)
    }

    @Test func aWaitOnTheMonotonicClockEndsAtItsDeadline() {
        let clock = MonotonicClock.shared
        let monitor = Monitor()
        let deadline = clock.now + 0.02
        let woken = monitor.locked { () -> Bool in
            while clock.wait(on: monitor, until: deadline) {}
            return false
        }
        #expect(!woken && clock.now >= deadline)
        #expect(monitor.locked { clock.wait(on: monitor, until: clock.now - 1) } == false)
    }
}
