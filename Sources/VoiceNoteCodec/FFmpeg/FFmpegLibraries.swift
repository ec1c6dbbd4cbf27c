import CFFmpegLoader
import VoiceNoteCore

/// FFmpeg's libraries are opened on first use, not linked (ARCHITECTURE.md): a process that only reads and writes
/// Opus never loads them. Every path into FFmpeg calls `require()` first; a call that skipped it aborts with the
/// function's name (CFFmpegLoader's trampolines) instead of crashing obscurely.
enum FFmpegLibraries {
    /// Loads FFmpeg (once per process; cheap afterwards) and quiets its log. `.unsupported`, naming the missing
    /// library or function, when this system's FFmpeg cannot be loaded; the answer never changes in a process.
    static func require() throws(VoiceNoteError) {
        var message: UnsafePointer<CChar>?
        guard vnshim_ffmpeg_load(&message) == 0 else {
            throw VoiceNoteError(.unsupported, message.map { String(cString: $0) } ?? "FFmpeg is not available")
        }
        FFmpegLogging.prepare()
    }

    /// Whether FFmpeg has been loaded in this process (by any thread). Does not load it.
    static var isLoaded: Bool { vnshim_ffmpeg_loaded() != 0 }

    /// How often the calling thread has asked for FFmpeg: tests use it to prove a path never does.
    static var requestsOnThisThread: Int { Int(vnshim_ffmpeg_load_calls_on_thread()) }
}
