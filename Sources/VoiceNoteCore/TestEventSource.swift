import Synchronization

/// One event of a `TestEventSource`.
public struct TestEvent: Sendable, Equatable {
    /// 1 for the source's first event, then 2, 3, ... with no gaps.
    public let sequence: UInt64
    /// Whether the source's own thread fired it (rather than `emit` on a caller's thread).
    public let fromLibraryThread: Bool
}

/// Fires numbered events from a library thread, so hosts and bindings can test the subscription contract
/// (threads, order, unsubscribe and destroy from callbacks, event loops) with no audio involved.
public final class TestEventSource: Sendable {
    private struct State {
        var fired: UInt64 = 0
        var firing: LibraryThread?
        /// The `fired` count at which the current finite run ends; nil for an endless run.
        var runEnd: UInt64?
        var closed = false
    }

    /// The subscribers; public so the C layer can subscribe with its own handler type.
    public let events: EventChannel<TestEvent>
    private let state = Locked(State())
    private let stopRequested = Atomic<Bool>(false)
    /// Wakes the firing thread from the wait between events when `stop` is called.
    private let pacing = Monitor()
    /// What the interval between events is measured on.
    private let clock: any VoiceNoteClock

    /// Makes a source that delivers through `dispatcher` (the event thread unless a loop is given), pacing its
    /// thread's events on `clock`.
    public init(dispatcher: any EventDispatcher = EventThread.shared, clock: any VoiceNoteClock = MonotonicClock.shared) {
        events = EventChannel(dispatcher: dispatcher)
        self.clock = clock
    }

    /// How many events were fired so far.
    public var fired: UInt64 { state.withLock { $0.fired } }

    /// The most events one `emit` fires: a synchronous loop must end in reasonable time.
    public static let maximumEmitCount: UInt64 = 1 << 24

    /// Fires `count` events from the calling thread (queued as usual); `.invalidArgument` above `maximumEmitCount`.
    public func emit(count: UInt64) throws(VoiceNoteError) {
        guard count <= Self.maximumEmitCount else {
            throw VoiceNoteError(.invalidArgument, "count \(count) is outside 0…\(Self.maximumEmitCount)")
        }
        for _ in 0..<count {
            guard fireOne(fromLibraryThread: false) else { throw VoiceNoteError(.misuse, "the source was destroyed") }
        }
    }

    /// Starts the source's thread: `count` events (0: until stopped), `intervalMicroseconds` apart.
    public func start(count: UInt64, intervalMicroseconds: UInt32) throws(VoiceNoteError) {
        try state.withLock { (state) throws(VoiceNoteError) in
            guard !state.closed else { throw VoiceNoteError(.misuse, "the source was destroyed") }
            if let finished = state.firing, let end = state.runEnd, state.fired >= end {
                finished.join()  // a finite run that fired its last event; it exits without waiting
                state.firing = nil
            }
            guard state.firing == nil else { throw VoiceNoteError(.misuse, "the source is already firing") }
            stopRequested.store(false, ordering: .relaxed)
            let (end, overflow) = state.fired.addingReportingOverflow(count)
            state.runEnd = count == 0 || overflow ? nil : end
            state.firing = try LibraryThread(name: "vn-test-source") { [self] in
                var sent: UInt64 = 0
                while (count == 0 || sent < count) && !stopRequested.load(ordering: .relaxed) {
                    guard fireOne(fromLibraryThread: true) else { break }
                    sent += 1
                    if intervalMicroseconds > 0 && sent != count { waitOut(microseconds: intervalMicroseconds) }
                }
            }
        }
    }

    /// The pause between two events; `stop` ends it at once, however long the interval (up to 71 minutes).
    private func waitOut(microseconds: UInt32) {
        let deadline = clock.now + Double(microseconds) / 1e6
        pacing.locked {
            while !stopRequested.load(ordering: .relaxed) && clock.wait(on: pacing, until: deadline) {}
        }
    }

    /// Stops the source's thread and waits for it. Events it already fired are still delivered.
    public func stop() {
        stopRequested.store(true, ordering: .relaxed)
        pacing.locked { pacing.broadcast() }
        let thread = state.withLock { state in
            defer { state.firing = nil }
            return state.firing
        }
        thread?.joinOrDetach()
    }

    /// Stops firing and ends every subscription; later calls fail with `.misuse`. Idempotent.
    public func close() {
        state.withLock { $0.closed = true }
        stop()
        events.close()
    }

    /// Numbers and queues one event atomically, so sequence order is delivery order.
    private func fireOne(fromLibraryThread: Bool) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.fired += 1
            events.emit(TestEvent(sequence: state.fired, fromLibraryThread: fromLibraryThread))
            return true
        }
    }
}
