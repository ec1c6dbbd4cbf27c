#if canImport(Glibc)
import Glibc
#endif

/// Whether this test process runs under ThreadSanitizer or AddressSanitizer (`make test` runs every suite under
/// both): their runtimes are linked in, and their shadow memory grows with the memory a process touches, so
/// memory budgets measured on whole processes of this build are loosened under them.
public enum Sanitizers {
    /// True when the TSan or ASan runtime is in the process.
    public static let active: Bool = thread || address

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
