import Foundation

/// A microphone (or speaker) that fails on cue: the ALSA external plugin in `Tests/Devices/pcm_vnfault.c`, compiled
/// once per test process with `cc` and loaded by alsa-lib like any third-party PCM. It delivers (or takes) raw S16
/// mono frames as fast as they are read (or written) and raises real `-EPIPE`, `-ESTRPIPE` and `-ENODEV` at the
/// frame positions the test names, so the capture and playback loops' recovery paths run against alsa-lib's own
/// `snd_pcm_recover`/`snd_pcm_resume`.
public enum FaultMicrophone {
    /// One fault: what happens, once the reader has read `frame` frames in all.
    public enum Fault: Sendable, CustomStringConvertible {
        /// An overrun that `snd_pcm_recover` fixes.
        case xrun(at: Int)
        /// A suspend (`-ESTRPIPE`); resumable or not, as the microphone was configured.
        case suspend(at: Int)
        /// The device disappears (`-ENODEV`).
        case unplug(at: Int)
        /// An overrun after which every prepare fails (`snd_pcm_recover` cannot fix it).
        case broken(at: Int)
        /// No error then, but every later prepare fails: capture cannot restart after a pause.
        case dead(at: Int)
        /// Overruns on every read from then on, though prepare succeeds.
        case stuck(at: Int)

        public var description: String {
            switch self {
            case .xrun(let frame): "xrun@\(frame)"
            case .suspend(let frame): "suspend@\(frame)"
            case .unplug(let frame): "unplug@\(frame)"
            case .broken(let frame): "broken@\(frame)"
            case .dead(let frame): "dead@\(frame)"
            case .stuck(let frame): "stuck@\(frame)"
            }
        }
    }

    /// ALSA configuration text defining PCM `name` (open it with `snd_pcm_open_lconf`) that plays `infile` (raw
    /// S16_LE mono at `rate`) and raises `faults`. `canResume: false` makes `snd_pcm_resume` a no-op, as for a
    /// driver that cannot resume, so only prepare + start recover from a suspend. `pollErrors: true` makes the
    /// errors show in `snd_pcm_wait` (POLLERR, as kernel drivers report them) instead of `snd_pcm_readi`. Each
    /// overrun skips `lost` frames of the input, as a real overrun loses them.
    /// `openError`/`startError` (negative errnos) make the open, or every start, fail that way.
    public static func configuration(name: String, infile: String, rate: Int = 48_000, faults: [Fault],
                                     canResume: Bool = true, pollErrors: Bool = false, lost: Int = 0,
                                     openError: Int32 = 0, startError: Int32 = 0) throws -> String {
        let plugin = try pluginPath()
        let list = faults.map(\.description).joined(separator: " ")
        return "pcm_type.vnfault { lib \"\(plugin)\" } pcm.\(name) { type vnfault infile \"\(infile)\" " +
            "rate \(rate) faults \"\(list)\" resume \(canResume ? 1 : 0) poll_errors \(pollErrors ? 1 : 0) " +
            "lost \(lost) open_error \(openError) start_error \(startError) }"
    }

    /// ALSA configuration text defining a playback PCM `name` on the same plugin: a speaker that plays what is
    /// written as fast as it is written (once started), appends it to `outfile` (raw S16_LE mono at `rate`) when
    /// given, and raises `faults` once `frame` frames have been played in all, from the write path: `.xrun` is an
    /// underrun, `.suspend` a suspend (`canResume` as for the microphone), `.unplug` a lost device.
    /// `openError`/`startError` (negative errnos) make the open, or every start, fail that way. `append` keeps what
    /// earlier opens wrote to `outfile` (it is truncated at each open otherwise).
    public static func speakerConfiguration(name: String, outfile: String? = nil, rate: Int = 48_000,
                                            faults: [Fault], canResume: Bool = true, openError: Int32 = 0,
                                            startError: Int32 = 0, append: Bool = false) throws -> String {
        let plugin = try pluginPath()
        let list = faults.map(\.description).joined(separator: " ")
        let output = outfile.map { "outfile \"\($0)\" " } ?? ""
        return "pcm_type.vnfault { lib \"\(plugin)\" } pcm.\(name) { type vnfault \(output)rate \(rate) " +
            "faults \"\(list)\" resume \(canResume ? 1 : 0) open_error \(openError) start_error \(startError) " +
            "append \(append ? 1 : 0) }"
    }

    /// The compiled plugin, built on first use into the fixtures directory.
    public static func pluginPath() throws -> String {
        try built.withLock { path in
            if let path { return path }
            let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../Devices/pcm_vnfault.c").standardized.path
            let output = Fixtures.directory + "/libasound_module_pcm_vnfault.so"
            let flags = String(decoding: try Fixtures.run(["pkg-config", "--cflags", "--libs", "alsa"]), as: UTF8.self)
                .split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
            try Fixtures.run(["cc", "-O1", "-DPIC", "-shared", "-fPIC", source, "-o", output] + flags)
            path = output
            return output
        }
    }

    private static let built = LockedPath()
}

/// The plugin's path once compiled, behind a lock (tests run in parallel).
private final class LockedPath: @unchecked Sendable {
    private let lock = NSLock()
    private var path: String?

    func withLock<T>(_ body: (inout String?) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&path)
    }
}
