import VoiceNoteAudio
import VoiceNoteCore

/// The pieces control calls share; the `shared` ones are called with `monitor` held.
extension Player {
    /// The host's session: changed only here (`activateSession`, `endActivation`, `finishSession`).
    struct SessionState {
        /// Control calls asking the activate hook right now (the decoder thread must not deactivate meanwhile).
        fileprivate(set) var activating = 0
        /// Whether `activate(.playback)` was granted and `deactivate` is still due.
        fileprivate(set) var active = false
    }

    /// Where the decoder thread is to play on from: changed only here (`reposition` asks, the decoder thread says
    /// it has begun).
    struct RestartState {
        /// The decoder thread must reposition to `seconds` before it writes again (a load, pause, seek, stop or
        /// rate change dropped what the device held).
        fileprivate(set) var pending = true
        fileprivate(set) var seconds = 0.0
        /// Bumped by every reposition; the decoder thread drops output made for an older one.
        fileprivate(set) var serial: UInt64 = 0

        /// A reposition to `seconds`, under a new serial.
        fileprivate mutating func request(at seconds: Double) {
            pending = true
            self.seconds = seconds
            serial &+= 1
        }

        /// A new load: from its start (its own reposition, once loaded, brings the serial).
        mutating func rewind() {
            pending = true
            seconds = 0
        }

        /// The decoder thread started the device at the requested place.
        mutating func begun() { pending = false }
    }

    /// `.misuse` after `close`.
    func checkOpen() throws(VoiceNoteError) {
        try monitor.locked { () throws(VoiceNoteError) in
            guard !shared.closed else { throw VoiceNoteError(.misuse, "the player was destroyed") }
        }
    }

    /// Asks the activate hook (on this thread, no lock held) unless the session is active already; `.busy` when
    /// it refuses. On success the activation stays pending — the decoder thread will not deactivate the session
    /// meanwhile — until the caller, having set `wantsPlaying`, calls `endActivation()`.
    func activateSession() throws(VoiceNoteError) {
        let needed = monitor.locked { () -> Bool in
            shared.session.activating += 1
            return !shared.session.active
        }
        guard needed else { return }
        let granted = configuration.sessionHooks.activate?(.playback) ?? true
        monitor.locked {
            if granted {
                shared.session.active = true
            } else {
                shared.session.activating -= 1
                monitor.broadcast()
            }
        }
        guard granted else { throw VoiceNoteError(.busy, "the session hook refused to activate playback") }
    }

    /// Ends an activation begun by a successful `activateSession()`.
    func endActivation() {
        monitor.locked {
            shared.session.activating -= 1
            monitor.broadcast()
        }
    }

    /// Calls the deactivate hook when an activation is outstanding (no lock held); `ifIdle`: only while nothing
    /// wants to play and no activation is pending (a play or load may have come since the decoder thread decided
    /// to halt).
    func finishSession(ifIdle: Bool = false) {
        let due = monitor.locked { () -> Bool in
            if ifIdle && (shared.wantsPlaying || shared.session.activating > 0) && !shared.closed { return false }
            defer { shared.session.active = false }
            return shared.session.active
        }
        if due { configuration.sessionHooks.deactivate?(.playback) }
    }

    /// Starts the decoder thread at the first load.
    func startWorkerIfNeeded() throws(VoiceNoteError) {
        try monitor.locked { () throws(VoiceNoteError) in
            guard worker == nil, !shared.closed else { return }
            worker = try LibraryThread(name: "vn-player") { [self] in runWorker() }
        }
    }

    /// Shared: the current context with `context` made current and sent to subscribers (in order with every other
    /// event, because it is sent with the monitor held; sending never waits for a callback).
    func publish(_ context: PlayerContext) {
        shared.context = context
        events.emit(.context(context))
    }

    /// Shared: stops the device at once (what it holds is dropped) and returns the time the listener heard last.
    func haltOutput() -> Double {
        guard shared.context.state == .playing, !shared.restart.pending, shared.output.sourceRate > 0 else {
            shared.output.device?.stop()
            return shared.context.currentTime
        }
        guard let device = shared.output.device else { return shared.context.currentTime }
        device.stop()
        let played = device.position.framesPlayed
        // Past a next item's first frame before the decoder thread moved to it: the current item's end.
        let heard = shared.following.boundary.map { min(played, $0 - 1) } ?? played
        let frame = shared.output.sourceFrame(atOutput: heard)
        return frame / Double(shared.output.sourceRate)
    }

    /// Shared: the decoder thread is to play on from `seconds` (what it made since is dropped).
    func reposition(to seconds: Double) {
        // A next item decoding behind the current one is dropped by every restart: its blocked read gives way.
        shared.following.cancel()
        shared.restart.request(at: seconds)
        monitor.broadcast()
    }

    /// Shared: the current item is left for another location: its position is kept for a later load, and it
    /// reports `stopped`.
    func leaveCurrentItem() {
        guard shared.context.state != .notLoaded else { return }
        haltKeepingPosition()
        var context = shared.context
        context.state = .stopped
        context.currentTime = 0
        context.isSeeking = false
        publish(context)
    }

    /// Shared: stops the device, keeping what was heard as the item's resume position (for a playing or paused
    /// path or URL).
    func haltKeepingPosition() {
        let state = shared.context.state
        let heard = haltOutput()
        if let key = shared.key, key.keepsResumePosition, state == .playing || state == .paused {
            shared.resumePositions.keep(heard, for: key)
        }
    }

    /// Applies a setting: `body` (with the monitor held) returns whether it changed anything; the new context is
    /// published then. Nothing happens after `close`.
    func change(_ body: () -> Bool) {
        monitor.locked {
            guard !shared.closed, body() else { return }
            publish(shared.context)
            monitor.broadcast()
        }
    }
}
