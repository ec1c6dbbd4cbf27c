#if canImport(Glibc)
import Glibc
#endif

/// A mutex with a condition variable (pthread), for the places that must wait for a state change:
/// Swift's `Mutex` has no condition variable. Not recursive.
public final class Monitor: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// Makes an unlocked monitor.
    public init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` with the mutex held.
    @inline(__always)
    public func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for a signal; call only with the mutex held (inside `locked`). Wakes spuriously: loop on a condition.
    public func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Waits for a signal or until `deadlineNanoseconds` on the monotonic clock; call with the mutex held.
    /// Returns false when the deadline passed.
    public func wait(untilMonotonicNanoseconds deadline: UInt64) -> Bool {
        var time = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &time) != ETIMEDOUT
    }

    /// Wakes every waiter; call with the mutex held.
    public func broadcast() {
        pthread_cond_broadcast(condition)
    }
}

/// Nanoseconds on the monotonic clock.
public func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}
