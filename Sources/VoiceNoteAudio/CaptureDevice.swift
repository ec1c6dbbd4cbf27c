import CRealtime
import VoiceNoteCore

/// An open ALSA capture device and its capture thread.
///
/// The thread (C, `vn-capture`) waits for the device at most 20 ms at a time, reads up to one period and writes it
/// into a `SampleRing`; it never allocates, locks, writes files or calls Swift (docs/recorder.md, "Threads").
/// While the ring has no room for a period the thread leaves the frames in the device's buffer, for at most that
/// buffer's length: a consumer that falls behind briefly loses nothing, and a device faster than real time (ALSA's
/// `file` plugin) is read at the consumer's pace. Beyond that, periods are read and dropped. Overruns (`-EPIPE`
/// fixed by `snd_pcm_recover`) and dropped periods are counted and capture goes on. When the device is lost
/// (`-ENODEV`, `-EIO`, recovery failing, a suspend that will not resume) the thread records the error, wakes the
/// ring's consumer and ends: `failure` is then set and `isRunning` false.
///
/// With a stream role (`DeviceSelection.role`) on a PCM that goes to a PulseAudio server, the stream is libpulse's
/// own (`PulseStream`): libpulse's thread moves what the server delivers into the ring, the server resamples, and a
/// server or source that goes away is a lost device as above. What the ring has no room for waits in libpulse's
/// queue and is moved a period later (a source may post seconds at once), up to the stream's maximum length, beyond
/// which the server drops frames and reports an overrun.
///
/// The ring holds interleaved `Int16` frames of `channels` channels at `sampleRate`. `start`, `stop` and `close`
/// may be called from any thread (they are serialized); the counters are readable from any thread at any time.
public final class CaptureDevice: @unchecked Sendable {
    /// What was opened.
    public let selection: DeviceSelection
    /// The rate the device delivers: `preferredRate` where offered, else the nearest offered rate. Never relabelled.
    public let sampleRate: Int
    /// Channels per frame: the requested count, or the nearest the device offers.
    public let channels: Int
    /// Frames per period (about `periodMilliseconds` at `sampleRate`); the most one read delivers.
    public let periodFrames: Int
    /// The device's buffer in frames (at least 8 periods where the device allows it).
    public let bufferFrames: Int

    /// The `media.role` the stream carries on its PulseAudio server; nil when the PCM was opened through ALSA.
    public var streamRole: String? { if case .pulse(let stream) = backend { stream.role } else { nil } }

    /// The C capture object (owns the PCM), or the libpulse stream; freed in deinit, so the counters stay readable
    /// after close.
    private let backend: Backend
    private let state = Locked(State())

    private enum Backend {
        case alsa(OpaquePointer)
        case pulse(PulseStream)
    }

    private struct State {
        /// The ring the thread writes into, kept alive while a thread may use it.
        var ring: SampleRing?
        var closed = false
    }

    /// Opens and configures `selection` for capture: S16_LE interleaved, `channels`, `preferredRate` where the device
    /// offers it (else its nearest rate; read `sampleRate`), periods of about `periodMilliseconds`.
    /// Throws `.device` (unknown PCM, no such device, will not configure), `.permission` (EACCES/EPERM),
    /// `.invalidArgument` (out-of-range arguments, configuration text that does not parse), `.noMemory`. The message
    /// names the device and carries `snd_strerror` and ALSA's own message; nothing is printed on stderr.
    public init(_ selection: DeviceSelection, preferredRate: Int = 48_000, channels: Int = 1,
                periodMilliseconds: Int = 20) throws(VoiceNoteError) {
        self.selection = selection
        if let stream = PulseStream.openIfRoled(selection, .capture, rate: preferredRate, channels: channels,
                                                periodMilliseconds: periodMilliseconds) {
            backend = .pulse(stream)
            sampleRate = preferredRate
            self.channels = channels
            periodFrames = vnpa_period_frames(stream.raw)
            bufferFrames = periodFrames * 8
            return
        }
        let setup = try ALSA.openCapture(selection, preferredRate: preferredRate, channels: channels,
                                         periodMilliseconds: periodMilliseconds)
        let periodMilliseconds = UInt32(max(1, setup.periodFrames * 1000 / setup.sampleRate))
        let bufferMilliseconds = UInt32(max(1, setup.bufferFrames * 1000 / setup.sampleRate))
        guard let capture = vnshim_capture_create(setup.pcm, setup.periodFrames, setup.channels,
                                                  periodMilliseconds, bufferMilliseconds) else {
            ALSA.close(setup.pcm)
            throw VoiceNoteError(.noMemory, "cannot allocate a capture buffer of \(setup.periodFrames) frames")
        }
        backend = .alsa(capture)
        sampleRate = setup.sampleRate
        self.channels = setup.channels
        periodFrames = setup.periodFrames
        bufferFrames = setup.bufferFrames
    }

    deinit {
        if case .alsa(let capture) = backend { vnshim_capture_destroy(capture) }
    }

    /// Starts the device and the capture thread writing into `ring`. Returns once capture is running.
    /// Throws `.misuse` while running or after `close`, `.device` when the device will not start (lost, busy),
    /// `.permission` when access is refused. After `stop` (or a device failure) it may be called again.
    public func start(into ring: SampleRing) throws(VoiceNoteError) {
        try state.withLock { (state: inout State) throws(VoiceNoteError) in
            guard !state.closed else {
                throw VoiceNoteError(.misuse, "capture device \(selection) is closed")
            }
            guard !isRunning else {
                throw VoiceNoteError(.misuse, "capture device \(selection) is already capturing")
            }
            let (result, message) = ALSA.capturingMessages { () -> Int32 in
                switch backend {
                case .alsa(let capture): vnshim_capture_start(capture, ring.raw)
                case .pulse(let stream): vnpa_capture_start(stream.raw, ring.raw)
                }
            }
            guard result == 0 else {
                throw ALSA.error(result, "cannot start capture device", selection, alsaMessage: message)
            }
            state.ring = ring
        }
    }

    /// Stops the capture thread (within one 20 ms device wait and one read) and drops the frames the device still
    /// holds; what is already in the ring stays there, and the ring's consumer is woken. `start(into:)` may follow
    /// (pause/resume). Harmless when not running or closed.
    public func stop() {
        state.withLock { state in
            guard !state.closed else { return }
            switch backend {
            case .alsa(let capture): vnshim_capture_stop(capture)
            case .pulse(let stream): vnpa_capture_stop(stream.raw)
            }
            state.ring = nil
        }
    }

    /// Stops, then closes the device. Idempotent; deinit calls it.
    public func close() {
        state.withLock { state in
            guard !state.closed else { return }
            switch backend {
            case .alsa(let capture): vnshim_capture_close(capture)
            case .pulse(let stream): vnpa_disconnect(stream.raw)
            }
            state.ring = nil
            state.closed = true
        }
    }

    /// Overruns: `-EPIPE` that `snd_pcm_recover` fixed, plus periods the ring had no room for once the device's
    /// buffer was full (their frames are dropped; the ring's consumer is expected to keep up). Since the device was
    /// opened.
    public var overruns: Int {
        switch backend {
        case .alsa(let capture): Int(vnshim_capture_overruns(capture))
        case .pulse(let stream): Int(vnpa_xruns(stream.raw))
        }
    }

    /// Frames written into the ring since the device was opened.
    public var framesCaptured: Int64 {
        switch backend {
        case .alsa(let capture): vnshim_capture_frames(capture)
        case .pulse(let stream): vnpa_frames(stream.raw)
        }
    }

    /// Frames read from the device but dropped because the ring was full, since the device was opened.
    public var framesDropped: Int64 {
        switch backend {
        case .alsa(let capture): vnshim_capture_dropped_frames(capture)
        case .pulse(let stream): vnpa_dropped_frames(stream.raw)
        }
    }

    /// Set when the device was lost while capturing (status `.device`, with ALSA's error text); the thread has then
    /// ended and woken the ring's consumer. Cleared by the next successful `start(into:)`.
    public var failure: VoiceNoteError? {
        let code = switch backend {
        case .alsa(let capture): vnshim_capture_error(capture)
        case .pulse(let stream): vnpa_error(stream.raw)
        }
        guard code != 0 else { return nil }
        return VoiceNoteError(.device, "capture device \(selection) was lost: \(ALSA.errorText(code)) (error \(code))")
    }

    /// Whether the capture thread is running (from `start(into:)` until `stop`, `close` or a device failure).
    public var isRunning: Bool {
        switch backend {
        case .alsa(let capture): vnshim_capture_is_running(capture) != 0
        case .pulse(let stream): vnpa_is_running(stream.raw) != 0
        }
    }

    /// Iterations of the capture loop (one device wait each) since the device was opened; tests use it to prove
    /// that the loop waits rather than spins.
    var loopIterations: UInt64 { if case .alsa(let capture) = backend { vnshim_capture_iterations(capture) } else { 0 } }

    /// Recovery attempts (`snd_pcm_recover`, resume) since the device was opened.
    var recoveries: UInt64 { if case .alsa(let capture) = backend { vnshim_capture_recoveries(capture) } else { 0 } }
}
