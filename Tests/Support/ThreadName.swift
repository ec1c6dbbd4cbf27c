import Foundation

/// The calling thread's name, as the kernel has it (the library names its threads `vn-…`).
public func currentThreadName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
}
