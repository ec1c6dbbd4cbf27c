#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import VoiceNoteTestSupport
@testable import VoiceNoteCore

/// Whether `fd` is readable within `timeoutMilliseconds`.
func isReadable(_ fd: Int32, timeoutMilliseconds: Int32 = 0) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, timeoutMilliseconds) == 1 && entry.revents & Int16(POLLIN) != 0
}

@Suite struct EventLoopTests {
    @Test func callbacksRunOnlyInsideDispatchOnTheCallingThread() throws {
        let loop = try EventLoop()
        defer { loop.close() }
        let source = TestEventSource(dispatcher: loop)
        defer { source.close() }
        let me = pthread_self()
        let calls = Atomic<Int>(0)
        let foreign = Atomic<Int>(0)
        _ = try source.events.subscribe({ _ in
            if pthread_equal(pthread_self(), me) == 0 { foreign.add(1, ordering: .relaxed) }
            calls.add(1, ordering: .relaxed)
        }, release: nil)
        #expect(!isReadable(loop.fileDescriptor))
        try source.start(count: 50, intervalMicroseconds: 0)
        #expect(eventually(seconds: 10, pollMicroseconds: 200) { source.fired == 50 })
        #expect(isReadable(loop.fileDescriptor, timeoutMilliseconds: 5000))
        #expect(calls.load(ordering: .relaxed) == 0)
        #expect(try loop.dispatch() == 50)
        #expect(calls.load(ordering: .relaxed) == 50)
        #expect(foreign.load(ordering: .relaxed) == 0)
        #expect(!isReadable(loop.fileDescriptor))
        #expect(try loop.dispatch() == 0)
    }

    @Test func twoLoopsAreIndependent() throws {
        let first = try EventLoop(), second = try EventLoop()
        defer { first.close(); second.close() }
        let a = TestEventSource(dispatcher: first), b = TestEventSource(dispatcher: second)
        defer { a.close(); b.close() }
        let aCalls = Atomic<Int>(0), bCalls = Atomic<Int>(0)
        _ = try a.events.subscribe({ _ in aCalls.add(1, ordering: .relaxed) }, release: nil)
        _ = try b.events.subscribe({ _ in bCalls.add(1, ordering: .relaxed) }, release: nil)
        try a.emit(count: 3)
        try b.emit(count: 4)
        #expect(try first.dispatch() == 3)
        #expect(bCalls.load(ordering: .relaxed) == 0)
        #expect(isReadable(second.fileDescriptor))
        #expect(try second.wait(timeoutMilliseconds: 0))
        #expect(try second.dispatch() == 4)
        #expect(aCalls.load(ordering: .relaxed) == 3)
    }

    @Test func nestedDispatchIsMisuse() throws {
        let loop = try EventLoop()
        defer { loop.close() }
        let source = TestEventSource(dispatcher: loop)
        defer { source.close() }
        let nested = Atomic<Int32>(0)
        _ = try source.events.subscribe({ _ in
            do throws(VoiceNoteError) { _ = try loop.dispatch() } catch { nested.store(error.status.rawValue, ordering: .relaxed) }
        }, release: nil)
        try source.emit(count: 1)
        #expect(try loop.dispatch() == 1)
        #expect(nested.load(ordering: .relaxed) == Status.misuse.rawValue)
    }

    @Test func waitTimesOutWithoutEventsAndClosedLoopIsMisuse() throws {
        let clock = ManualClock()
        let loop = try EventLoop(clock: clock)
        let waiting = try Background { try? loop.wait(timeoutMilliseconds: 10) }
        #expect(eventually(seconds: 10) { clock.nextDeadline == 0.01 }, "the wait did not begin")
        try clock.advance(0.0099)
        #expect(waiting.result == nil, "the wait ended before its 10 ms")
        try clock.advance(0.0001)
        #expect(waiting.result(within: 10) == false)
        loop.close()
        #expect(loop.fileDescriptor == -1)
        #expect(throws: VoiceNoteError.self) { _ = try loop.dispatch() }
        // Events for a closed loop are dropped, and subscriptions still end and release.
        let source = TestEventSource(dispatcher: loop)
        let releases = Atomic<Int>(0)
        _ = try source.events.subscribe({ _ in }, release: { releases.add(1, ordering: .relaxed) })
        try source.emit(count: 2)
        source.close()
        #expect(releases.load(ordering: .relaxed) == 1)
    }
}

@Suite struct CoalescingTests {
    @Test func aSlowSubscriberGetsTheLatestStepNotABacklog() throws {
        let loop = try EventLoop()
        defer { loop.close() }
        let channel = EventChannel<Int>(dispatcher: loop)
        defer { channel.close() }
        let seen = Locked<[Int]>([])
        _ = try channel.subscribe({ value in seen.withLock { $0.append(value) } }, release: nil)
        channel.emit(0)
        for step in 1...50 { channel.emitCoalescing(step) }
        channel.emit(100)
        #expect(try loop.dispatch() == 3)
        #expect(seen.withLock { $0 } == [0, 50, 100])
        channel.emitCoalescing(7)
        #expect(try loop.dispatch() == 1)
        #expect(seen.withLock { $0 } == [0, 50, 100, 7])
    }

    @Test func aStepNeverOvertakesAnEventEmittedBeforeIt() throws {
        let loop = try EventLoop()
        defer { loop.close() }
        let channel = EventChannel<Int>(dispatcher: loop)
        defer { channel.close() }
        let seen = Locked<[Int]>([])
        _ = try channel.subscribe({ value in seen.withLock { $0.append(value) } }, release: nil)
        channel.emitCoalescing(1)
        channel.emitCoalescing(2)
        channel.emit(100)           // a queue's `finished`, say
        channel.emitCoalescing(3)   // the next item's first step: after it, not in the place of 2
        channel.emitCoalescing(4)
        #expect(try loop.dispatch() == 3)
        #expect(seen.withLock { $0 } == [2, 100, 4])
    }
}
