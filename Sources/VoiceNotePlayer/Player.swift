import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteWaveform

/// Plays voice messages (docs/player.md): files, memory and host sources, Opus through libopusfile and every other
/// format through FFmpeg, at 0.5–2.5x with the pitch kept, with a software volume, skip silence, seeking, resume
/// positions and audio focus.
///
/// Threads: control calls may come from any thread, including from inside this player's callbacks; they never wait
/// for I/O. The player's decoder thread (`vn-player`) opens locations, decodes, stretches and fills a ring that the
/// real-time playback thread (C) moves into ALSA. Events go out through `events`, in order.
public final class Player: @unchecked Sendable {
    /// The subscribers and their dispatcher.
    public let events: EventChannel<PlayerEvent>
    let configuration: PlayerConfiguration
    let monitor = Monitor()
    /// Guarded by `monitor`.
    var shared: Shared
    /// The decoder thread; started by the first load, ended by `close`.
    var worker: LibraryThread?

    /// What control calls and the decoder thread share (under `monitor`: one lock for all of it, so a step that
    /// reads one part and changes another sees them consistent). Each concern is a part declared in the file that
    /// changes it, with setters no other file can call (`fileprivate(set)`); the other files go through the part's
    /// methods. What is left here is the item and its state machine (docs/player.md), which the host's calls
    /// (this file) and the decoder thread (`Player+Worker.swift`) both move on.
    struct Shared {
        var closed = false
        var context = PlayerContext()
        /// The loaded location's identity; nil when nothing was loaded.
        var key: LocationKey?
        /// The loaded location as given (what the data source is asked about); nil when nothing was loaded.
        var location: PlayerLocation?
        /// A load the decoder thread has not taken yet.
        var load: LoadRequest?
        /// Bumped by every load; the decoder thread drops work of an older one.
        var generation: UInt64 = 0
        /// Whether the item should sound (it does once the decoder thread has started the device).
        var wantsPlaying = false
        /// A seek the decoder thread has not carried out yet (while paused or stopped, or during loading).
        var seekPending = false
        /// Whether the last load's item ends `stopped` (a `stop` during loading).
        var stopAfterLoad = false
        var resumePositions: ResumePositions
        /// The source of the current item (or of the load in progress), to wake its blocked read on a new load, a
        /// seek or a close.
        var source: SourceReference?
        /// Reads of a download woken by a seek or a skip so far (the decoder thread takes the `.cancelled` they
        /// throw for what it is, not a failure).
        var interruptions: UInt64 = 0
        /// Where the decoder thread plays on from (`Player+Control.swift`).
        var restart = RestartState()
        /// The host's session (`Player+Control.swift`).
        var session = SessionState()
        /// The queue's data source, skip, failures and return point (`Player+Queue.swift`).
        var queue = QueueState()
        /// The item decoding behind the current one (`Player+BackToBack.swift`).
        var following = FollowingState()
        /// The device and what its frames play (`Player+Worker.swift`).
        var output = OutputState()
    }

    /// A byte source held for `cancel()` from a control thread (the only call another thread may make on it).
    struct SourceReference: @unchecked Sendable {
        let source: any ByteSource
    }

    /// A load handed to the decoder thread.
    struct LoadRequest {
        let location: PlayerLocation
        let key: LocationKey
        let generation: UInt64
        let durationHint: Double?
        /// The note's loudness as the host knows it (a payload's), for levelling without a pre-pass.
        var loudness: Loudness? = nil
    }

    /// A player delivering its events through `dispatcher`; `.invalidArgument` for a bad configuration.
    public init(configuration: PlayerConfiguration = PlayerConfiguration(),
                dispatcher: any EventDispatcher = EventThread.shared) throws(VoiceNoteError) {
        try configuration.check()
        self.configuration = configuration
        events = EventChannel(dispatcher: dispatcher)
        shared = Shared(resumePositions: ResumePositions(limit: configuration.resumePositionLimit,
                                                         store: configuration.resumeStore))
        configuration.focusGroup?.join(self, as: .playback)
    }

    deinit { close() }

    /// The current context.
    public var context: PlayerContext {
        let (context, arriving) = monitor.locked { (shared.context, shared.source?.source as? any ArrivingSource) }
        guard let arriving, context.state == .playing || context.state == .paused else { return context }
        // Read now, not at the last progress step: while a seek waits for a download without ranges no step is
        // made, and the share that arrived still grows.
        var live = context
        live.bufferedFraction = arriving.arrivedFraction
        return live
    }

    /// Subscribes; the handler receives the current context first, then every event, in order.
    public func subscribe(_ handler: @escaping @Sendable (PlayerEvent) -> Void, release: (@Sendable () -> Void)? = nil,
                          registered: (UInt64) -> Void = { _ in }) throws(VoiceNoteError) -> UInt64 {
        try monitor.locked { () throws(VoiceNoteError) -> UInt64 in
            try events.subscribe(handler, release: release, registered: registered, initial: .context(shared.context))
        }
    }

    /// Loads `location` (Stream's `loadAsset` rules, docs/player.md): the same location already loaded → paused
    /// plays, stopped plays from the start, playing or loading does nothing; another location → the current one
    /// stops (it reports `stopped`), the state becomes `loading`, and the item then plays (`autoplay`) or ends
    /// `paused` at its resume position. Returns at once: every failure to open or decode the location arrives as a
    /// `failed` event (state `notLoaded`, the location kept). `durationHint` (seconds, e.g. a payload's duration) is
    /// shown until the real duration is known. `loudness` (a payload's) levels the note without a pre-pass when
    /// levelling is on (`setLeveling`).
    /// - Throws: `.invalidArgument` for an empty path, a hint that is negative or not finite, a `file://` URL of
    ///   another host; `.unsupported` for other URL schemes; `.busy` when `autoplay` asked the activate hook and it
    ///   refused (nothing changes); `.misuse` after `close`.
    public func load(_ location: PlayerLocation, autoplay: Bool = true, durationHint: Double? = nil,
                     loudness: Loudness? = nil) throws(VoiceNoteError) {
        if let loudness, !loudness.isPlausible {
            throw VoiceNoteError(.invalidArgument, "\(loudness) is not a plausible loudness")
        }
        if let durationHint, !(durationHint.isFinite && durationHint >= 0 && durationHint <= Self.longestDuration) {
            throw VoiceNoteError(.invalidArgument, "duration hint \(durationHint) s is outside 0…\(Int(Self.longestDuration)) seconds")
        }
        let key = try location.key()
        try checkOpen()
        let same = monitor.locked { shared.key == key && shared.context.state != .notLoaded }
        if same {
            // Paused or stopped: play (from the start when stopped); loading: play once loaded (nothing when it
            // will anyway); playing: nothing.
            if autoplay && context.state != .playing { try play() }
            return
        }
        if autoplay { try activateSession() }
        defer { if autoplay { endActivation() } }
        try startWorkerIfNeeded()
        try monitor.locked { () throws(VoiceNoteError) in
            guard !shared.closed else { throw VoiceNoteError(.misuse, "the player was destroyed") }
            noteInterruption(by: key)
            leaveCurrentItem()
            shared.queue.forgetFailures()
            beginLoad(location, key: key, autoplay: autoplay, durationHint: durationHint, loudness: loudness)
        }
        if autoplay { configuration.focusGroup?.take(by: self, for: .playback) }
    }

    /// Shared: hands `location` to the decoder thread (the current item was left already): state `loading`, and
    /// for a queue player `itemChanged` first.
    func beginLoad(_ location: PlayerLocation, key: LocationKey, autoplay: Bool, durationHint: Double?,
                   loudness: Loudness? = nil) {
        shared.source?.source.cancel()
        shared.following.drop()
        if case .source(let source) = location { shared.source = SourceReference(source: source) } else { shared.source = nil }
        shared.generation &+= 1
        shared.key = key
        shared.location = location
        shared.queue.reached(key)
        shared.queue.dropSkipRequest()
        shared.load = LoadRequest(location: location, key: key, generation: shared.generation, durationHint: durationHint,
                                  loudness: loudness)
        shared.wantsPlaying = autoplay
        shared.stopAfterLoad = false
        shared.seekPending = false
        shared.restart.rewind()
        shared.output.setSourceRate(0)
        if shared.queue.dataSource != nil {
            events.emit(.itemChanged(location: location.displayName, key: key.text(sourceName: location.displayName)))
        }
        var context = shared.context
        context.location = location.displayName
        context.state = .loading
        context.duration = durationHint ?? 0
        context.durationIsEstimate = durationHint != nil
        context.currentTime = 0
        context.isSeeking = false
        context.bufferedFraction = 0
        context.lastError = nil
        publish(context)
        monitor.broadcast()
    }

    /// Plays (or resumes) the loaded item; during loading, the item plays once loaded. Does nothing while playing.
    /// - Throws: `.misuse` when nothing is loaded (or the load failed) or after `close`; `.busy` when the activate
    ///   hook refused.
    public func play() throws(VoiceNoteError) {
        let state = try monitor.locked { () throws(VoiceNoteError) -> PlayerState in
            guard !shared.closed else { throw VoiceNoteError(.misuse, "the player was destroyed") }
            return shared.context.state
        }
        switch state {
        case .notLoaded: throw VoiceNoteError(.misuse, "play with nothing loaded: load a location first")
        case .playing: return
        case .loading where monitor.locked({ shared.wantsPlaying }): return
        default: break
        }
        try activateSession()
        defer { endActivation() }
        monitor.locked {
            guard !shared.closed, shared.context.state != .notLoaded else { return }
            shared.wantsPlaying = true
            shared.stopAfterLoad = false
            if shared.context.state == .paused || shared.context.state == .stopped {
                shared.context.state = .playing
                publish(shared.context)
            }
            monitor.broadcast()
        }
        configuration.focusGroup?.take(by: self, for: .playback)
    }

    /// Pauses at what the listener hears now; nothing happens when nothing is loaded, paused or stopped. During
    /// loading, the item ends `paused` once loaded.
    /// - Throws: `.misuse` after `close`.
    public func pause() throws(VoiceNoteError) {
        try monitor.locked { () throws(VoiceNoteError) in
            guard !shared.closed else { throw VoiceNoteError(.misuse, "the player was destroyed") }
            switch shared.context.state {
            case .loading: shared.wantsPlaying = false
            case .playing:
                let heard = haltOutput()
                shared.wantsPlaying = false
                shared.context.state = .paused
                shared.context.currentTime = heard
                reposition(to: heard)
                if let key = shared.key, key.keepsResumePosition { shared.resumePositions.keep(heard, for: key) }
                publish(shared.context)
            default: break
            }
        }
    }

    /// Stops: position 0, state `stopped`, the asset and duration kept, the resume position forgotten. Nothing
    /// happens when nothing is loaded. During loading, the item ends `stopped` once loaded.
    /// - Throws: `.misuse` after `close`.
    public func stop() throws(VoiceNoteError) {
        try monitor.locked { () throws(VoiceNoteError) in
            guard !shared.closed else { throw VoiceNoteError(.misuse, "the player was destroyed") }
            stopShared()
        }
    }

    /// Shared: `stop` (see there).
    func stopShared() {
        switch shared.context.state {
        case .notLoaded, .stopped: return
        case .loading:
            shared.wantsPlaying = false
            shared.stopAfterLoad = true
        case .playing, .paused:
            _ = haltOutput()
            shared.wantsPlaying = false
            shared.seekPending = false
            shared.context.state = .stopped
            shared.context.currentTime = 0
            shared.context.isSeeking = false
            reposition(to: 0)
            shared.queue.forgetReturn()
            if let key = shared.key { shared.resumePositions.forget(key) }
            publish(shared.context)
        }
    }

    /// Moves to `seconds` (clamped to 0…duration), keeping the play/pause state (a stopped item becomes paused
    /// there); `isSeeking` is true until audio at the new position is ready. Seeks made faster than the decoder
    /// thread carries them out coalesce: the latest wins. During loading, the item starts there.
    /// - Throws: `.invalidArgument` for a time that is not finite; `.misuse` when nothing is loaded or after `close`.
    public func seek(to seconds: Double) throws(VoiceNoteError) {
        guard seconds.isFinite else { throw VoiceNoteError(.invalidArgument, "seek time \(seconds) is not a finite number") }
        try monitor.locked { () throws(VoiceNoteError) in
            guard !shared.closed else { throw VoiceNoteError(.misuse, "the player was destroyed") }
            let state = shared.context.state
            guard state != .notLoaded else { throw VoiceNoteError(.misuse, "seek with nothing loaded: load a location first") }
            // An estimated duration does not bound a seek (the audio may run longer); the decoder clamps at the end.
            let bounded = state != .loading && !shared.context.durationIsEstimate
            let target = bounded ? min(max(0, seconds), shared.context.duration) : max(0, seconds)
            if state == .playing { _ = haltOutput() } else { shared.seekPending = true }
            if let source = shared.source?.source as? any ArrivingSource {
                shared.interruptions &+= 1  // a read waiting for the network gives way to the seek
                source.cancel()
            }
            if state == .stopped { shared.context.state = .paused }
            shared.context.currentTime = target
            shared.context.isSeeking = true
            reposition(to: target)
            publish(shared.context)
            monitor.broadcast()
        }
    }

    /// The playback rate, 0.5…2.5 with the pitch kept: settable in every state, kept while paused, applied within
    /// a few milliseconds of audio; it never starts playback. `setRate` throws `.invalidArgument` outside the range.
    public var rate: Double { context.rate }

    /// Sets `rate` (see there).
    public func setRate(_ rate: Double) throws(VoiceNoteError) {
        let value = try PlaybackRate(rate)
        change {
            guard shared.context.rate != value.value else { return false }
            shared.context.rate = value.value
            if shared.context.state == .playing {
                // What the device holds was stretched at the old rate: play on from what is heard now.
                let heard = haltOutput()
                shared.context.currentTime = heard
                reposition(to: heard)
            }
            return true
        }
    }

    /// Sets the software volume, 0…1 (applied to the next audio given to the device, ramped over 10 ms).
    /// - Throws: `.invalidArgument` outside 0…1.
    public func setVolume(_ volume: Double) throws(VoiceNoteError) {
        let value = try Volume(volume)
        change {
            guard shared.context.volume != value.value else { return false }
            shared.context.volume = value.value
            return true
        }
    }

    /// Levelled playback (`Leveling`, docs/loudness.md): on, every note plays at the target loudness plus the offset
    /// with its peaks under −1 dBTP. Turning it on or off applies from the next note loaded; a new target or offset
    /// moves the note playing over 50 ms.
    /// - Throws: `.invalidArgument` for a target or offset out of range.
    public func setLeveling(_ leveling: Leveling) throws(VoiceNoteError) {
        try leveling.check()
        change {
            guard shared.context.leveling != leveling else { return false }
            shared.context.leveling = leveling
            return true
        }
    }

    /// Turns skip silence on or off (applied from the next decoded audio).
    public func setSkipsSilence(_ skips: Bool) {
        change {
            guard shared.context.skipsSilence != skips else { return false }
            shared.context.skipsSilence = skips
            return true
        }
    }

    /// Destroys the player: sound stops, no more events, the device closes (`deactivate` runs when due), the source
    /// is released. Idempotent.
    public func close() {
        configuration.focusGroup?.leave(self)
        let (thread, dataSource) = monitor.locked { () -> (LibraryThread?, QueueDataSource?) in
            guard !shared.closed else { return (nil, nil) }
            shared.closed = true
            haltKeepingPosition()  // where it was left, for a later player (the store)
            shared.source?.source.cancel()
            shared.following.cancel()
            monitor.broadcast()
            defer { worker = nil }
            return (worker, shared.queue.takeDataSource())  // released below, with no lock held
        }
        withExtendedLifetime(dataSource) { events.close() }
        if let thread {
            thread.joinOrDetach()
        } else {
            finishSession()
        }
    }

    /// The longest duration a hint may give, in seconds (about 11.5 days).
    public static let longestDuration = 1_000_000.0
}

extension Player: FocusMember {
    /// Another member of the group started playing or recording: pause.
    public func yieldFocus() {
        try? pause()
    }
}
