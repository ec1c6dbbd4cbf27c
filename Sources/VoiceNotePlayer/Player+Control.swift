import VoiceNoteAudio
import VoiceNoteCore

/// The pieces control calls share; the `shared` ones are called with `monitor` held.
extension Player {
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
            shared.activating += 1
            return !shared.sessionActive
        }
        guard needed else { return }
        let granted = configuration.sessionHooks.activate?(.playback) ?? true
        monitor.locked {
            if granted {
                shared.sessionActive = true
            } else {
                shared.activating -= 1
                monitor.broadcast()
            }
        }
        guard granted else { throw VoiceNoteError(.busy, "the session hook refused to activate playback") }
    }

    /// Ends an activation begun by a successful `activateSession()`.
    func endActivation() {
        monitor.locked {
            shared.activating -= 1
            monitor.broadcast()
        }
    }

    /// Calls the deactivate hook when an activation is outstanding (no lock held); `ifIdle`: only while nothing
    /// wants to play and no activation is pending (a play or load may have come since the decoder thread decided
    /// to halt).
    func finishSession(ifIdle: Bool = false) {
        let due = monitor.locked { () -> Bool in
            if ifIdle && (shared.wantsPlaying || shared.activating > 0) && !shared.closed { return false }
            defer { shared.sessionActive = false }
            return shared.sessionActive
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
        guard shared.context.state == .playing, !shared.restart, shared.sourceRate > 0 else {
            shared.device?.stop()
            return shared.context.currentTime
        }
        guard let device = shared.device else { return shared.context.currentTime }
        device.stop()
        let played = device.position.framesPlayed
        // Past a next item's first frame before the decoder thread moved to it: the current item's end.
        let heard = shared.followingBoundary.map { min(played, $0 - 1) } ?? played
        let frame = shared.timeline.sourceFrame(atOutput: heard)
        return frame / Double(shared.sourceRate)
    }

    /// Shared: the decoder thread is to play on from `seconds` (what it made since is dropped).
    func reposition(to seconds: Double) {
        // A next item decoding behind the current one is dropped by every restart: its blocked read gives way.
        shared.followingSource?.source.cancel()
        shared.restart = true
        shared.restartSeconds = seconds
        shared.restartSerial &+= 1
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
