#if canImport(Glibc)
import Glibc
#endif

/// Sleeps the calling thread; for pacing producers, never for waiting on a condition.
public func sleepMicroseconds(_ microseconds: UInt32) {
    var request = timespec(tv_sec: Int(microseconds / 1_000_000), tv_nsec: Int(microseconds % 1_000_000) * 1000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
}
