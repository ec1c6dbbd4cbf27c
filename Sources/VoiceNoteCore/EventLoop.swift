#if canImport(Glibc)
import Glibc
#endif
import CShims

/// Manual delivery for GUI main loops: events wait here until the host calls `dispatch` on its own thread.
/// An eventfd is readable while events are pending, so GLib, Qt or `poll()` can watch it.
public final class EventLoop: EventDispatcher {
    private let monitor = Monitor()
    /// What `wait`'s timeout is measured on.
    private let clock: any VoiceNoteClock
    /// The eventfd; -1 after `close`.
    private nonisolated(unsafe) var descriptor: Int32
    private nonisolated(unsafe) var pending: [PendingEvent] = []
    private nonisolated(unsafe) var dispatching = false
    private nonisolated(unsafe) var closed = false

    /// Makes a loop with its eventfd; `wait`'s timeouts run on `clock` (a `ManualClock` ends them inside its
    /// `advance`).
    public init(clock: any VoiceNoteClock = MonotonicClock.shared) throws(VoiceNoteError) {
        self.clock = clock
        let fd = vnshim_eventfd()
        guard fd >= 0 else { throw VoiceNoteError.fromErrno(errno, "eventfd") }
        descriptor = fd
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// The pollable descriptor, readable while events are pending; -1 after `close`.
    public var fileDescriptor: Int32 { monitor.locked { descriptor } }

    /// Queues callbacks and makes the descriptor readable. Dropped after `close`.
    public func enqueue(_ events: [PendingEvent]) {
        guard !events.isEmpty else { return }
        monitor.locked {
            guard !closed else { return }
            if pending.isEmpty { signal() }
            pending.append(contentsOf: events)
            monitor.broadcast()
        }
    }

    /// Runs the callbacks pending now on the calling thread, in order, and returns how many ran (events of
    /// subscriptions that ended meanwhile are dropped, not counted).
    /// Throws `.misuse` when nested in its own dispatch, when another thread is dispatching, or after `close`.
    public func dispatch() throws(VoiceNoteError) -> Int {
        let batch: [PendingEvent] = try monitor.locked { () throws(VoiceNoteError) -> [PendingEvent] in
            guard !closed else { throw VoiceNoteError(.misuse, "the event loop was destroyed") }
            guard !dispatching else {
                throw VoiceNoteError(.misuse, "the event loop is already being dispatched (nested or on another thread)")
            }
            dispatching = true
            drainSignal()
            defer { pending = [] }
            return pending
        }
        defer { monitor.locked { dispatching = false } }
        return batch.reduce(0) { ran, event in ran + (event.run() ? 1 : 0) }
    }

    /// Waits until events are pending or `timeoutMilliseconds` passes (negative: no limit). Returns whether any are.
    public func wait(timeoutMilliseconds: Int32) throws(VoiceNoteError) -> Bool {
        let deadline = timeoutMilliseconds < 0 ? Double.infinity : clock.now + Double(timeoutMilliseconds) / 1000
        return try monitor.locked { () throws(VoiceNoteError) -> Bool in
            while !closed && pending.isEmpty {
                if !clock.wait(on: monitor, until: deadline) { break }
            }
            guard !closed else { throw VoiceNoteError(.misuse, "the event loop was destroyed") }
            return !pending.isEmpty
        }
    }

    /// Drops pending events, closes the descriptor and wakes waiters; later events are dropped.
    public func close() {
        let dropped: [PendingEvent] = monitor.locked {
            closed = true
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
            monitor.broadcast()
            defer { pending = [] }
            return pending
        }
        _ = dropped  // released outside the lock: an event's captures may run arbitrary deinit code
    }

    /// Makes the eventfd readable; call with the monitor held.
    private func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
    }

    /// Makes the eventfd unreadable; call with the monitor held.
    private func drainSignal() {
        var count: UInt64 = 0
        _ = read(descriptor, &count, MemoryLayout<UInt64>.size)
    }
}
