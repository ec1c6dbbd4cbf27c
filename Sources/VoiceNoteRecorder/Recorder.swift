import Synchronization
import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore

/// Records voice messages from an ALSA device into Ogg Opus (or AAC) files that are never lost (docs/recorder.md).
///
/// Threads: the capture thread (C, real-time) only moves periods into a lock-free ring; this recorder's encoder
/// thread meters, accumulates the waveform and encodes; events go out through `events`. Control calls may come
/// from any thread, including from inside this recorder's callbacks.
public final class Recorder: @unchecked Sendable {
    /// Where a recorder is in its life; transient phases keep control calls from overlapping.
    enum Phase { case stopped, starting, recording, pausing, paused, resuming, finishing }

    /// The subscribers and their dispatcher.
    public let events: EventChannel<RecorderEvent>
    /// What the recorder was made with (its directory, device, format and encoder settings).
    public let configuration: RecorderConfiguration
    let monitor = Monitor()
    // Guarded by `monitor`:
    var phase = Phase.stopped
    var snapshot = RecorderContext()
    var liveLevels: [Float] = []
    var closed = false
    var worker: LibraryThread?
    var voiceCleanup: Bool
    /// A control call is stopping the capture: the encoder thread installs no fallback device from then on.
    var captureStopping = false
    // Owned by the controlling thread, handed to the encoder thread while it runs:
    var device: CaptureDevice?
    var ring: SampleRing?
    var take: Take?
    /// The last take's voice cleanup, kept for the next take (its noise estimate and gain).
    var lastCleanup: VoiceCleanup?
    let stopWorker = Atomic<Bool>(false)

    /// A recorder delivering its events through `dispatcher`; `.invalidArgument` for a bad configuration.
    public init(configuration: RecorderConfiguration = RecorderConfiguration(),
                dispatcher: any EventDispatcher = EventThread.shared) throws(VoiceNoteError) {
        try configuration.check()
        if configuration.voiceCleanup { try Self.requireVoiceCleanup() }
        self.configuration = configuration
        voiceCleanup = configuration.voiceCleanup
        events = EventChannel(dispatcher: dispatcher)
        configuration.focusGroup?.join(self, as: .recording)
    }

    deinit { close() }

    /// The current context (state, duration, levels, overruns, path).
    public var context: RecorderContext { monitor.locked { snapshot } }

    /// The last `count` live levels of this take (one average power per meter step), oldest first.
    public func levels(last count: Int) -> [Float] {
        monitor.locked { Array(liveLevels.suffix(max(0, count))) }
    }

    /// Whether the next take is cleaned (`RecorderConfiguration.voiceCleanup`); a take being recorded keeps what it
    /// began with.
    public var cleansVoice: Bool { monitor.locked { voiceCleanup } }

    /// Turns voice cleanup on or off from the next take on (one being recorded keeps what it began with). Any
    /// thread. `.unsupported` naming what to install when turning it on without speexdsp; the setting is then
    /// unchanged.
    public func setVoiceCleanup(_ enabled: Bool) throws(VoiceNoteError) {
        if enabled { try Self.requireVoiceCleanup() }
        monitor.locked { voiceCleanup = enabled }
    }

    /// Loads what voice cleanup needs (speexdsp, once per process); `.unsupported` naming what to install when it
    /// cannot be loaded.
    public static func requireVoiceCleanup() throws(VoiceNoteError) { try VoiceCleanup.requireLibrary() }

    /// How long `begin` waits for the previous take to finish (its file closed and renamed, its events out) before
    /// it gives up with `.busy`: the `finished` event goes out before the take's last step, so a host that begins the
    /// next take on it (or on `maximumDurationReached`) would otherwise meet a take still finishing.
    static let finishingWaitNanoseconds: UInt64 = 5_000_000_000

    /// Opens the device, creates `<UUID>.ogg.part` in `directory` (nil: the configuration's) and starts capturing;
    /// returns once capture runs. While the previous take is finishing (it ended by itself, or a stop on another
    /// thread), waits up to `finishingWaitNanoseconds` for it. `.misuse` when already recording or paused; `.busy`
    /// when the previous take is still finishing after that wait, or when the activate hook refuses (no device is
    /// opened either way); `.device`, `.permission` for the device; `.io` (and others by errno) for the file.
    /// `beforeCapture`, when given, runs on the calling thread with the `.part` path once the file exists and before
    /// the first sample is captured (no lock held): what must name the take before it holds audio (a draft record).
    public func begin(in directory: String? = nil, beforeCapture: ((String) -> Void)? = nil) throws(VoiceNoteError) {
        let previous: LibraryThread? = try monitor.locked { () throws(VoiceNoteError) -> LibraryThread? in
            let deadline = monotonicNanoseconds() + Self.finishingWaitNanoseconds
            while !closed, phase == .finishing, monitor.wait(untilMonotonicNanoseconds: deadline) {}
            guard !closed else { throw VoiceNoteError(.misuse, "the recorder was destroyed") }
            guard phase != .finishing else {
                throw VoiceNoteError(.busy, "begin while the previous take is still finishing; try again")
            }
            guard phase == .stopped else { throw VoiceNoteError(.misuse, "begin while \(phase): stop the take first") }
            phase = .starting
            defer { worker = nil }
            return worker
        }
        previous?.join()  // the encoder thread of a take that ended by itself
        if let activate = configuration.sessionHooks.activate, !activate(.recording) {
            monitor.locked { phase = .stopped }
            throw VoiceNoteError(.busy, "the session hook refused to activate recording")
        }
        configuration.focusGroup?.take(by: self, for: .recording)  // every player of the group pauses
        do {
            try openTake(in: directory ?? configuration.directory)
        } catch {
            discardTake()
            configuration.sessionHooks.deactivate?(.recording)
            monitor.locked { phase = .stopped; monitor.broadcast() }
            throw error
        }
        if let beforeCapture, let path = monitor.locked({ take?.partPath }) { beforeCapture(path) }
        // The recording context goes out before capture starts, so it precedes the encoder thread's first step; the
        // phase stays `.starting` until capture runs, and an automatic end meanwhile (a device faster than real time,
        // a tiny maximum) is handled by the encoder thread as from `.recording`.
        let context = monitor.locked { () -> RecorderContext in
            liveLevels = []
            snapshot = RecorderContext(state: .recording, path: take?.partPath ?? "")
            return snapshot
        }
        events.emit(.context(context))
        do {
            try startTake()
        } catch {
            discardTake()
            configuration.sessionHooks.deactivate?(.recording)
            let stopped = monitor.locked { () -> RecorderContext in
                phase = .stopped
                snapshot = RecorderContext()
                monitor.broadcast()
                return snapshot
            }
            events.emit(.context(stopped))
            throw error
        }
        monitor.locked { if phase == .starting { phase = .recording } }
    }

    /// Pauses: capture stops, every encoded packet reaches the disk. `.misuse` unless recording.
    public func pause() throws(VoiceNoteError) {
        try enter(.pausing, from: [.recording], action: .pause)
        stopCapture()
        if let end = take?.automaticEnd { return finish(end: end) }
        do {
            try take?.drainCleanup()
            try take?.encoder.flush()
        } catch {
            return finish(end: .encoderFailed(error))
        }
        let context = monitor.locked { () -> RecorderContext in
            phase = .paused
            snapshot.state = .paused
            return snapshot
        }
        events.emit(.context(context))
    }

    /// Resumes a paused take. `.misuse` unless paused; `.device` when the device will not restart (still paused).
    public func resume() throws(VoiceNoteError) {
        try enter(.resuming, from: [.paused], action: .resume)
        configuration.focusGroup?.take(by: self, for: .recording)
        do throws(VoiceNoteError) {
            guard let device, let ring, let take else { throw VoiceNoteError(.internal, "paused without a take") }
            try device.start(into: ring)
            try startWorker(take: take, device: device, ring: ring)
        } catch {
            monitor.locked { phase = .paused }
            throw VoiceNoteError(.device, "failed to resume: \(error.message)")
        }
        let context = monitor.locked { () -> RecorderContext in
            phase = .recording
            snapshot.state = .recording
            return snapshot
        }
        events.emit(.context(context))
    }

    /// Stops and finishes the take: a `finished` event with its path, duration, size and waveform follows.
    /// `.misuse` when stopped. When the take is ending by itself at that moment, waits for it and returns.
    public func stop() throws(VoiceNoteError) {
        guard try enterFinishing(action: .stop) else { return }
        stopCapture()
        finish(end: take?.automaticEnd)
    }

    /// Stops and deletes the take; no `finished` event. `.misuse` when stopped.
    public func cancel() throws(VoiceNoteError) {
        guard try enterFinishing(action: .cancel) else { return }
        stopCapture()
        finish(end: take?.automaticEnd, cancel: true)
    }

    /// Destroys the recorder: no more events; a take in progress is finished and kept (its path was in every
    /// context event). Idempotent.
    public func close() {
        configuration.focusGroup?.leave(self)
        events.close()
        let running = monitor.locked { () -> Bool in
            defer { closed = true }
            return !closed && phase != .stopped
        }
        if running { try? stop() }
        let last = monitor.locked { () -> LibraryThread? in
            defer { worker = nil }
            return worker
        }
        last?.joinOrDetach()
    }
}

extension Recorder: FocusMember {
    /// A player of the group started: a take that is recording pauses (nothing is lost; the user resumes it).
    public func yieldFocus() {
        guard monitor.locked({ phase == .recording }) else { return }
        try? pause()
    }
}
