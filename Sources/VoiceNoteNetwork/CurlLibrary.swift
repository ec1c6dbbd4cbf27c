import CCurlLoader
import VoiceNoteCore

/// libcurl is opened on first use, not linked (ARCHITECTURE.md): a process that never touches a URL never loads it
/// or its ~30 dependencies. Every path into libcurl calls `require()` first; a call that skipped it aborts with the
/// function's name (CCurlLoader's trampolines) instead of crashing obscurely.
public enum CurlLibrary {
    /// Loads and initialises libcurl (once per process; cheap afterwards). `.unsupported`, naming what is missing,
    /// when this system's libcurl cannot be loaded; the answer never changes in a process.
    public static func require() throws(VoiceNoteError) {
        var message: UnsafePointer<CChar>?
        guard vnshim_curl_load(&message) == 0 else {
            throw VoiceNoteError(.unsupported, message.map { String(cString: $0) } ?? "libcurl is not available")
        }
    }

    /// The SHA-256 of `bytes`, from OpenSSL's libcrypto, the TLS library libcurl brings (loaded with it); nil
    /// when it cannot be loaded. - Throws: as `require()`.
    static func sha256(_ bytes: [UInt8]) throws(VoiceNoteError) -> [UInt8]? {
        try require()
        var digest = [UInt8](repeating: 0, count: 32)
        return vnshim_sha256(bytes, bytes.count, &digest) == 0 ? digest : nil
    }

    /// Whether libcurl has been loaded in this process (by any thread). Does not load it.
    public static var isLoaded: Bool { vnshim_curl_loaded() != 0 }

    /// How often the calling thread has asked for libcurl: tests use it to prove a path never does.
    public static var requestsOnThisThread: Int { Int(vnshim_curl_load_calls_on_thread()) }
}
