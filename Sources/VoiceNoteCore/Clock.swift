#if canImport(Glibc)
import Glibc
#endif

/// Time for the objects that measure it (the recording flow's minimum press, its tip's hiding, the player's back-off,
/// a download's stall timeout, the waits of the event loop, the uploader and the waveform batch): the present,
/// one-shot timers, and blocking waits with a deadline. Nothing that uses a clock reads time any other way, so a test
/// gives it a `ManualClock` and never sleeps.
public protocol VoiceNoteClock: AnyObject, Sendable {
    /// Seconds since a fixed point of this clock; never goes back.
    var now: Double { get }

    /// Runs `action` once, `seconds` from now (0 or less: as soon as the clock runs timers). Timers due at the same
    /// moment run in the order they were scheduled.
    /// - Returns: the timer, to cancel it.
    func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> ClockTimer

    /// Waits on `monitor`, which the caller holds (inside `monitor.locked`), for a broadcast or until `now` reaches
    /// `deadline` (a time of this clock). Returns false when the deadline has passed, true otherwise (a broadcast,
    /// or a spurious wake-up: loop on a condition). The default, for a clock that moves only when told: a timer at
    /// `deadline` broadcasts `monitor`, so the wait ends inside the `advance` that reaches it, and never by itself.
    func wait(on monitor: Monitor, until deadline: Double) -> Bool
}

extension VoiceNoteClock {
    public func wait(on monitor: Monitor, until deadline: Double) -> Bool {
        guard now < deadline else { return false }
        // The action takes the monitor, so it cannot broadcast before this thread waits; it may run after the wait
        // ended (an advance racing a broadcast): a spurious wake-up of a later wait then, which the caller allows.
        let timer = schedule(after: deadline - now) { monitor.locked { monitor.broadcast() } }
        monitor.wait()
        timer.discard()  // not `cancel`: its action may be waiting for the monitor this thread holds
        return now < deadline
    }
}

/// A timer scheduled on a `VoiceNoteClock`.
public final class ClockTimer: Sendable {
    private let queue: TimerQueue
    let id: UInt64

    init(queue: TimerQueue, id: UInt64) {
        self.queue = queue
        self.id = id
    }

    /// Cancels the timer. When this returns its action will not start, and has finished if it had started (unless
    /// this is called from inside the action itself, which then goes on). Any thread; cancelling twice, or after the
    /// action ran, does nothing.
    public func cancel() { queue.cancel(id) }

    /// Removes the timer if it has not started, without waiting for an action that runs now (for a caller that
    /// may hold what the action waits for).
    func discard() { queue.remove(id) }
}

/// The steady clock (CLOCK_MONOTONIC). Timers run on one library thread, `vn-timers`, started with the first timer
/// and kept for the process; an action must not block it for long, since the others wait.
public final class MonotonicClock: VoiceNoteClock {
    /// The process's one monotonic clock.
    public static let shared = MonotonicClock()

    private let queue = TimerQueue()
    private let thread = Locked<LibraryThread?>(nil)

    private init() {}

    public var now: Double { Double(monotonicNanoseconds()) / 1e9 }

    /// A timed wait of the monitor's condition (CLOCK_MONOTONIC, the same time as `now`); no timer is involved.
    public func wait(on monitor: Monitor, until deadline: Double) -> Bool {
        guard deadline.isFinite else {
            monitor.wait()
            return true
        }
        guard deadline > 0 else { return false }
        return monitor.wait(untilMonotonicNanoseconds: UInt64(min(deadline, 1e9) * 1e9))
    }

    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        let timer = queue.add(at: now + (seconds.isFinite ? max(0, seconds) : .greatestFiniteMagnitude), action)
        startThreadOnce()
        return timer
    }

    private func startThreadOnce() {
        thread.withLock { thread in
            guard thread == nil else { return }
            // Should the thread fail to start (no memory for a stack), the next timer tries again.
            thread = try? LibraryThread(name: "vn-timers") { [queue] in
                while true { queue.runNextWhenDue { Double(monotonicNanoseconds()) / 1e9 } }
            }
        }
    }
}

/// A clock that moves only when told (`advance`), for tests: timers run inside `advance`, on its caller's thread,
/// in the order of their deadlines, with `now` at each one's deadline while it runs (the way swift-nio's embedded
/// event loop runs its scheduled tasks).
public final class ManualClock: VoiceNoteClock {
    private let queue = TimerQueue()
    private let state = Locked<(now: Double, advancing: Bool)>((0, false))

    /// A clock at 0 s.
    public init() {}

    public var now: Double { state.withLock { $0.now } }

    public func schedule(after seconds: Double, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        queue.add(at: now + (seconds.isFinite ? max(0, seconds) : .greatestFiniteMagnitude), action)
    }

    /// The deadline of the earliest timer not yet run, nil when none is: a test waits for it to know that a thread
    /// has begun a timed wait (whose timer it is) before it advances past the wait's end.
    public var nextDeadline: Double? { queue.firstDeadline }

    /// Moves the clock `seconds` forward, running every timer that falls due on the way (also those the actions
    /// schedule meanwhile, when they fall due before the end).
    /// - Throws: `.invalidArgument` for a negative or non-finite `seconds`; `.misuse` from inside an action (or
    ///   while another thread advances).
    public func advance(_ seconds: Double) throws(VoiceNoteError) {
        guard seconds.isFinite, seconds >= 0 else {
            throw VoiceNoteError(.invalidArgument, "a manual clock advances by a finite number of seconds ≥ 0, not \(seconds)")
        }
        let target: Double = try state.withLock { (state) throws(VoiceNoteError) -> Double in
            guard !state.advancing else { throw VoiceNoteError(.misuse, "the manual clock is already advancing (inside a timer's action?)") }
            state.advancing = true
            return state.now + seconds
        }
        defer { state.withLock { $0 = (max($0.now, target), false) } }
        while queue.runFirst(dueBy: target, settingNow: { deadline in self.state.withLock { $0.now = max($0.now, deadline) } }) {}
    }
}

/// The timers of one clock, by deadline then scheduling order; runs them with no lock held.
final class TimerQueue: @unchecked Sendable {
    private struct Entry {
        let deadline: Double
        let id: UInt64
        let action: @Sendable () -> Void
    }

    private let monitor = Monitor()
    private var entries: [Entry] = []  // sorted by (deadline, id)
    private var nextID: UInt64 = 1
    /// The timer whose action runs now, and the thread running it.
    private var running: (id: UInt64, thread: pthread_t)?

    func add(at deadline: Double, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        let id: UInt64 = monitor.locked {
            let id = nextID
            nextID += 1
            let entry = Entry(deadline: deadline, id: id, action: action)
            let index = entries.firstIndex { $0.deadline > deadline } ?? entries.endIndex
            entries.insert(entry, at: index)
            monitor.broadcast()
            return id
        }
        return ClockTimer(queue: self, id: id)
    }

    /// The earliest deadline waiting.
    var firstDeadline: Double? { monitor.locked { entries.first?.deadline } }

    /// Removes a timer that has not started; returns at once.
    func remove(_ id: UInt64) {
        monitor.locked { entries.removeAll { $0.id == id } }
    }

    func cancel(_ id: UInt64) {
        monitor.locked {
            entries.removeAll { $0.id == id }
            while let running, running.id == id, pthread_equal(running.thread, pthread_self()) == 0 { monitor.wait() }
        }
    }

    /// Runs the first timer if it is due by `limit`: `settingNow(deadline)` first, then its action. Returns whether
    /// one ran.
    func runFirst(dueBy limit: Double, settingNow: (Double) -> Void) -> Bool {
        guard let entry: Entry = monitor.locked({
            guard let first = entries.first, first.deadline <= limit else { return nil }
            entries.removeFirst()
            running = (first.id, pthread_self())
            return first
        }) else { return false }
        settingNow(entry.deadline)
        entry.action()
        monitor.locked {
            running = nil
            monitor.broadcast()
        }
        return true
    }

    /// Waits until the first timer is due by `now()` (or one is added), then runs what is due; for a timer thread.
    func runNextWhenDue(now: () -> Double) {
        monitor.locked {
            while true {
                guard let first = entries.first else {
                    monitor.wait()
                    continue
                }
                let current = now()
                if first.deadline <= current { return }
                let wait = min(first.deadline - current, 3600)
                _ = monitor.wait(untilMonotonicNanoseconds: monotonicNanoseconds() + UInt64(wait * 1e9))
            }
        }
        while runFirst(dueBy: now(), settingNow: { _ in }) {}
    }
}
