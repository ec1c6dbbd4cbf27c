import CRealtime
import VoiceNoteCore

#if canImport(Glibc)
import Glibc
#endif

/// Where playback is, in frames of the device (`PlaybackDevice.sampleRate`).
///
/// What the listener has heard is `framesPlayed`: the frames the device accepted, less those it dropped, less those
/// it still holds (its delay, `snd_pcm_delay`). A player's position is its start plus `framesPlayed` since then.
public struct PlaybackPosition: Sendable, Equatable {
    /// Frames the device accepted since it was opened.
    public let framesWritten: Int64
    /// Frames the device accepted but never played: dropped by `stop`, or lost with the device.
    public let framesDropped: Int64
    /// Frames accepted and not heard yet: the device's delay as last measured (at most a period ago while it plays,
    /// by the playback thread), less the time since. 0 when the device is not playing.
    public let delayFrames: Int64

    /// Frames the listener has heard since the device was opened.
    public var framesPlayed: Int64 { framesWritten - framesDropped - delayFrames }

    /// A position from its parts.
    public init(framesWritten: Int64, framesDropped: Int64, delayFrames: Int64) {
        self.framesWritten = framesWritten
        self.framesDropped = framesDropped
        self.delayFrames = delayFrames
    }
}

/// An open ALSA playback device and its playback thread.
///
/// The thread (C, `vn-playback`) moves interleaved `Int16` frames from a `SampleRing` into the device, at most a
/// period at a time; it never allocates, locks, writes files or calls Swift (ARCHITECTURE.md, "Threads"). The
/// producer (the player's decoder thread) fills the ring and waits for room with `waitForProgress`.
///
/// - A dry ring is waited on, never polled, and nothing is made up meanwhile: the device plays what it holds and
///   then underruns. Underruns (`-EPIPE`) are counted and recovered (`snd_pcm_recover`); playback restarts when
///   frames come again. The device starts once its buffer is full, or when the ring has stayed dry for a period
///   with frames queued (a short stream, a late producer).
/// - `endOfStream()` tells the thread nothing more comes: it plays the ring and the device's buffer out (watching
///   the device's delay; a device that stops playing ends it with a failure), stops the device and ends by itself
///   with `playedToEnd` set. `drain(timeoutMilliseconds:)` does the same and waits.
/// - A suspend (`-ESTRPIPE`) is resumed, or the device prepared again. More than 8 recoveries in a row with no frame
///   written, `-ENODEV`, `-EIO`: the device is lost, the thread records the error and ends (`failure` set,
///   `isRunning` false), and wakes a producer waiting in `waitForProgress`.
/// - `position` is what the listener hears: frames written less dropped less the device's delay.
///
/// With a stream role (`DeviceSelection.role`) on a PCM that goes to a PulseAudio server, the stream is libpulse's
/// own (`PulseStream`): a `vn-playback` thread feeds it from the ring, the server prebuffers one period and
/// resamples, the end of a stream is the server's drain, the delay is the stream's interpolated latency, and a
/// server or sink that goes away is a lost device as above.
///
/// The device stays open across `stop`/`start(from:)` (one item to the next, pause and resume). `start`, `stop`,
/// `endOfStream`, `drain` and `close` may be called from any thread (they are serialized); the counters and the
/// position are readable from any thread at any time.
public final class PlaybackDevice: @unchecked Sendable {
    /// What was opened.
    public let selection: DeviceSelection
    /// The rate the device takes: the requested one when the device offers it or resamples to it (ALSA's `plug`,
    /// as `default` and `plughw:` are), else the nearest the device offers. Frames in the ring must be at this rate.
    public let sampleRate: Int
    /// Channels per frame: the requested count, or the nearest the device offers (a `plug` takes any count).
    public let channels: Int
    /// Frames per period (about `periodMilliseconds` at `sampleRate`); the most one write takes.
    public let periodFrames: Int
    /// The device's buffer in frames (at least 8 periods where the device allows it): the most it holds ahead of
    /// what is heard.
    public let bufferFrames: Int

    /// The `media.role` the stream carries on its PulseAudio server; nil when the PCM was opened through ALSA.
    public var streamRole: String? { if case .pulse(let stream) = backend { stream.role } else { nil } }

    /// The C playback object (owns the PCM), or the libpulse stream; freed in deinit, so the counters stay readable
    /// after close.
    private let backend: Backend

    private enum Backend {
        case alsa(OpaquePointer)
        case pulse(PulseStream)
    }
    private let state = Locked(State())

    private struct State {
        /// The ring the thread reads from, kept alive while a thread may use it.
        var ring: SampleRing?
        var closed = false
    }

    /// Opens and configures `selection` for playback: S16_LE interleaved, `channels` at `rate` where the device
    /// offers them or resamples to them (else the nearest it offers; read `sampleRate` and `channels`), periods of
    /// about `periodMilliseconds`, a buffer of 8 periods where allowed. Format conversion is the caller's job.
    /// Throws `.device` (unknown PCM, no such device, will not configure), `.permission` (EACCES/EPERM),
    /// `.invalidArgument` (out-of-range arguments, configuration text that does not parse), `.noMemory`. The message
    /// names the device and carries `snd_strerror` and ALSA's own message; nothing is printed on stderr.
    public init(_ selection: DeviceSelection, rate: Int = 48_000, channels: Int = 1,
                periodMilliseconds: Int = 20) throws(VoiceNoteError) {
        self.selection = selection
        if let stream = PulseStream.openIfRoled(selection, .playback, rate: rate, channels: channels,
                                                periodMilliseconds: periodMilliseconds,
                                                bufferMilliseconds: periodMilliseconds * 8) {
            backend = .pulse(stream)
            sampleRate = rate
            self.channels = channels
            periodFrames = vnpa_period_frames(stream.raw)
            bufferFrames = vnpa_buffer_frames(stream.raw)
            return
        }
        let setup = try ALSA.openPlayback(selection, rate: rate, channels: channels,
                                          periodMilliseconds: periodMilliseconds)
        guard let playback = vnshim_playback_create(setup.pcm, UInt32(setup.sampleRate), setup.channels,
                                                    setup.periodFrames, setup.bufferFrames) else {
            ALSA.close(setup.pcm)
            throw VoiceNoteError(.noMemory, "cannot allocate a playback buffer of \(setup.periodFrames) frames")
        }
        backend = .alsa(playback)
        sampleRate = setup.sampleRate
        self.channels = setup.channels
        periodFrames = setup.periodFrames
        bufferFrames = setup.bufferFrames
    }

    deinit {
        if case .alsa(let playback) = backend { vnshim_playback_destroy(playback) }
    }

    /// Prepares the device and starts the playback thread reading interleaved frames from `ring` (whole frames of
    /// `channels` samples at `sampleRate`); returns once it runs. Clears `failure`, `playedToEnd` and a previous
    /// `endOfStream()`. Throws `.misuse` while running or after `close`, `.device` when the device will not prepare
    /// (lost, busy), `.permission` when access is refused. After `stop`, the end of a stream or a failure it may be
    /// called again.
    public func start(from ring: SampleRing) throws(VoiceNoteError) {
        try state.withLock { (state: inout State) throws(VoiceNoteError) in
            guard !state.closed else {
                throw VoiceNoteError(.misuse, "playback device \(selection) is closed")
            }
            guard !isRunning else {
                throw VoiceNoteError(.misuse, "playback device \(selection) is already playing")
            }
            let (result, message) = ALSA.capturingMessages { () -> Int32 in
                switch backend {
                case .alsa(let playback): vnshim_playback_start(playback, ring.raw)
                case .pulse(let stream): vnpa_playback_start(stream.raw, ring.raw)
                }
            }
            guard result == 0 else {
                throw ALSA.error(result, "cannot start playback device", selection, alsaMessage: message)
            }
            state.ring = ring
        }
    }

    /// Producer: nothing more comes after what the ring holds. The thread plays it and the device's buffer out,
    /// stops the device and ends by itself (`isRunning` false, `playedToEnd` true), waking `waitForProgress`.
    /// Harmless when not running or closed.
    public func endOfStream() {
        state.withLock { state in
            guard !state.closed else { return }
            switch backend {
            case .alsa(let playback): vnshim_playback_end_of_stream(playback)
            case .pulse(let stream): vnpa_playback_end_of_stream(stream.raw)
            }
        }
    }

    /// Marks the end of stream and waits up to `timeoutMilliseconds` (0…600,000) for what the ring and the device
    /// hold to be heard; then stops (what is left after the timeout is dropped). Returns whether everything was
    /// played out; false also when the device was not playing a stream that ended. Throws `failure` when the device
    /// was lost (or stopped playing) meanwhile, `.invalidArgument` for a timeout out of range.
    @discardableResult
    public func drain(timeoutMilliseconds: Int32) throws(VoiceNoteError) -> Bool {
        guard (0...600_000).contains(timeoutMilliseconds) else {
            throw VoiceNoteError(.invalidArgument, "drain timeout of \(timeoutMilliseconds) ms is out of range")
        }
        endOfStream()
        switch backend {
        case .alsa(let playback): _ = vnshim_playback_wait_end(playback, timeoutMilliseconds)
        case .pulse(let stream): _ = vnpa_playback_wait_end(stream.raw, timeoutMilliseconds)
        }
        stop()
        if let failure { throw failure }
        return playedToEnd
    }

    /// Stops the playback thread (within one 20 ms device wait; at once while it waits for the ring) and drops the
    /// frames the device still holds (counted in `position.framesDropped`, so `position.framesPlayed` is where the
    /// listener stopped hearing). What the ring holds stays there. `start(from:)` may follow (pause/resume, the next
    /// item). Harmless when not running or closed.
    public func stop() {
        state.withLock { state in
            guard !state.closed else { return }
            switch backend {
            case .alsa(let playback): vnshim_playback_stop(playback)
            case .pulse(let stream): vnpa_playback_stop(stream.raw)
            }
            state.ring = nil
        }
    }

    /// Stops, then closes the device. Idempotent; deinit calls it.
    public func close() {
        state.withLock { state in
            guard !state.closed else { return }
            switch backend {
            case .alsa(let playback): vnshim_playback_close(playback)
            case .pulse(let stream): vnpa_disconnect(stream.raw)
            }
            state.ring = nil
            state.closed = true
        }
    }

    /// Producer: waits up to `timeoutMilliseconds` until the thread has taken frames from the ring leaving it at most
    /// half full (room for a batch: a producer refilling a half-empty ring is woken once per half ring, not once per
    /// period) or ends; true when woken or not running, false on timeout. One waiting thread at a time.
    public func waitForProgress(timeoutMilliseconds: Int32) -> Bool {
        switch backend {
        case .alsa(let playback): vnshim_playback_wait(playback, timeoutMilliseconds) != 0
        case .pulse(let stream): vnpa_playback_wait(stream.raw, timeoutMilliseconds) != 0
        }
    }

    /// Where playback is: frames written, dropped, and the device's delay now. Consistent (one measurement) and
    /// cheap: it never touches the device, which only the playback thread does while it runs.
    public var position: PlaybackPosition {
        var position = vnshim_playback_position()
        switch backend {
        case .alsa(let playback): vnshim_playback_position_now(playback, &position)
        case .pulse(let stream): vnpa_playback_position_now(stream.raw, &position)
        }
        return PlaybackPosition(framesWritten: position.frames_written, framesDropped: position.frames_dropped,
                                delayFrames: position.delay_frames)
    }

    /// Frames the device holds that have not been heard yet (`position.delayFrames`).
    public var delayFrames: Int64 { position.delayFrames }

    /// Frames the device accepted since it was opened.
    public var framesWritten: Int64 {
        switch backend {
        case .alsa(let playback): vnshim_playback_frames(playback)
        case .pulse(let stream): vnpa_frames(stream.raw)
        }
    }

    /// Underruns since the device was opened: the device ran out of frames while playing (the ring was dry too
    /// long) and was recovered. Playing out the end of a stream is not one.
    public var underruns: Int {
        switch backend {
        case .alsa(let playback): Int(vnshim_playback_underruns(playback))
        case .pulse(let stream): Int(vnpa_xruns(stream.raw))
        }
    }

    /// Recovery attempts (`snd_pcm_recover` after an underrun, resume after a suspend) since the device was opened.
    public var recoveries: Int {
        if case .alsa(let playback) = backend { Int(vnshim_playback_recoveries(playback)) } else { 0 }
    }

    /// Whether the last run ended by playing out the end of stream (`endOfStream`). Cleared by `start(from:)`.
    public var playedToEnd: Bool {
        switch backend {
        case .alsa(let playback): vnshim_playback_finished(playback) != 0
        case .pulse(let stream): vnpa_finished(stream.raw) != 0
        }
    }

    /// Set when the device was lost while playing (status `.device`, with ALSA's error text), or stopped playing
    /// while the end of stream played out; the thread has then ended. Cleared by the next successful
    /// `start(from:)`.
    public var failure: VoiceNoteError? {
        let code = switch backend {
        case .alsa(let playback): vnshim_playback_error(playback)
        case .pulse(let stream): vnpa_error(stream.raw)
        }
        guard code != 0 else { return nil }
        if code == -ETIMEDOUT {
            return VoiceNoteError(.device, "playback device \(selection) stopped playing before the end was heard")
        }
        return VoiceNoteError(.device, "playback device \(selection) was lost: \(ALSA.errorText(code)) (error \(code))")
    }

    /// Whether the playback thread is running (from `start(from:)` until `stop`, `close`, the end of stream played
    /// out, or a device failure).
    public var isRunning: Bool {
        switch backend {
        case .alsa(let playback): vnshim_playback_is_running(playback) != 0
        case .pulse(let stream): vnpa_is_running(stream.raw) != 0
        }
    }

    /// Iterations of the playback loop since the device was opened; tests use it to prove that the loop waits
    /// rather than spins.
    var loopIterations: UInt64 {
        if case .alsa(let playback) = backend { vnshim_playback_iterations(playback) } else { 0 }
    }
}
