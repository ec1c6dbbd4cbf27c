import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Waits up to `seconds` for `condition`, looking again every `pollMicroseconds`; returns whether it holds. The
/// one bounded wait of the tests: for a condition another thread makes true, never a sleep standing in for it.
public func eventually(seconds: Double = 20, pollMicroseconds: UInt32 = 500, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now.advanced(by: .microseconds(Int64(seconds * 1e6)))
    while !condition() {
        if ContinuousClock.now >= deadline { return condition() }
        usleep(pollMicroseconds)
    }
    return true
}
