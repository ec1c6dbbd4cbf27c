#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a pthread mutex, with the shape of `Synchronization.Mutex`.
///
/// Used instead of `Mutex` because on Linux a contended `Mutex` waits in the kernel (futex) where ThreadSanitizer
/// cannot see it, which makes TSan report races on state that is only ever touched under the lock. pthread mutexes
/// are intercepted by TSan, so `--sanitize=thread` runs stay meaningful.
public final class Locked<Value>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    /// Guards `value`.
    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    public func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
