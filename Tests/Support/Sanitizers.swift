#if canImport(Glibc)
import Glibc
#endif

/// Whether this test process runs under ThreadSanitizer or AddressSanitizer (`make test` runs the Swift suites
/// under ASan, and the threaded ones under TSan too): tests that repeat hurried calls thousands of times do fewer
/// rounds under them.
public enum Sanitizers {
    /// True when the ThreadSanitizer runtime is in the process.
    public static let thread: Bool = linked("__tsan_init")

    /// True when the AddressSanitizer runtime is in the process.
    public static let address: Bool = linked("__asan_init")

    private static func linked(_ symbol: String) -> Bool {
        let handle = dlopen(nil, RTLD_NOW)
        defer { if let handle { dlclose(handle) } }
        return dlsym(handle, symbol) != nil
    }
}
