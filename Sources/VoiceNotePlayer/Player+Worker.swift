import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources

/// The decoder thread: opens locations, decodes, stretches, converts and fills the ring the playback thread
/// moves into ALSA; finishes items; reports progress.
extension Player {
    /// The output as control calls see it (they stop the device and map what is heard to the item's time):
    /// changed only here, by the decoder thread, but for the source rate a load or the next item sets.
    struct OutputState {
        /// The open device (the decoder thread opens and closes it; control calls may stop it).
        fileprivate(set) var device: PlaybackDevice?
        /// The source frames the frames given to the device play.
        fileprivate(set) var timeline = OutputTimeline()
        /// Frames per second of the item's time (0 until loaded).
        fileprivate(set) var sourceRate = 0

        /// The item whose frames are given to the device now has `rate` frames per second (0: none is loaded).
        mutating func setSourceRate(_ rate: Int) { sourceRate = rate }

        /// The source frame heard at output frame `output` (`OutputTimeline.sourceFrame(atOutput:)`, which drops
        /// the segments before it).
        mutating func sourceFrame(atOutput output: Int64) -> Double { timeline.sourceFrame(atOutput: output) }

        /// `sourceFrame(atOutput:)` when what was written holds `output`, else nil.
        mutating func sourceFrameIfWritten(atOutput output: Int64) -> Double? {
            timeline.sourceFrameIfWritten(atOutput: output)
        }
    }

    /// What the decoder thread owns (never touched by other threads).
    final class Work {
        var item: PlayerItem?
        var device: PlaybackDevice?
        /// The format the device was asked for (it may have given another: `converter` then bridges).
        var requested: (rate: Int, channels: Int)?
        var converter: FormatConverter?
        var ring: SampleRing?
        /// Output made and not in the ring yet (interleaved at the device's format).
        var pending: [Int16] = []
        var pendingStart = 0
        /// The decoder reached the end / the device was told so.
        var ended = false
        var endSent = false
        /// The device runs for the current reposition (`serial`).
        var started = false
        var serial: UInt64 = 0
        /// The output frame of the last progress step.
        var lastReported: Int64 = 0
        /// A read failure met while decoding: what was decoded before it plays out, then it is reported there.
        var endFailure: VoiceNoteError?
        /// `Shared.interruptions` already accounted for.
        var interruptionsSeen: UInt64 = 0
        /// The next item of a queue, decoding behind the current one's last frames (back to back).
        var following: FollowingItem?
        /// A remote next item fetched ahead (5 s before the end), for the load that names it.
        var prefetched: PrefetchedSource?
        /// Whether the data source was asked ahead for the current item.
        var askedAhead = false
        var pendingCount: Int { pending.count - pendingStart }
    }

    /// What the decoder thread does next.
    enum Step {
        case exit
        case load(LoadRequest)
        case seek(seconds: Double, serial: UInt64)
        case start(seconds: Double, serial: UInt64)
        case pump
        case halt
        case skip(generation: UInt64, serial: UInt64)
    }

    func runWorker() {
        let work = Work()
        while true {
            switch monitor.locked({ nextStep(work) }) {
            case .exit:
                closeDevice(work)
                work.item = nil
                monitor.locked { shared.source = nil }  // a download the player made stops here
                finishSession()
                return
            case .load(let request): load(request, work)
            case .seek(let seconds, let serial): seekPaused(to: seconds, serial: serial, work)
            case .start(let seconds, let serial): start(at: seconds, serial: serial, work)
            case .pump: pump(work)
            case .skip(let generation, let serial):
                dropFollowing(work)
                skip(generation: generation, serial: serial)
            case .halt:
                closeDevice(work)
                work.prefetched = nil
                finishSession(ifIdle: true)
            }
        }
    }

    /// Shared: the next step, waiting while there is nothing to do.
    private func nextStep(_ work: Work) -> Step {
        while true {
            if shared.closed { return .exit }
            if let load = shared.load {
                shared.load = nil
                return .load(load)
            }
            if shared.queue.takeSkipRequest() {
                return .skip(generation: shared.generation, serial: shared.restart.serial)
            }
            if let item = work.item, item.generation == shared.generation {
                if shared.wantsPlaying && shared.context.state == .playing {
                    if shared.restart.pending || !work.started || work.serial != shared.restart.serial {
                        return .start(seconds: shared.restart.seconds, serial: shared.restart.serial)
                    }
                    return .pump
                }
                if shared.seekPending {
                    shared.seekPending = false
                    return .seek(seconds: shared.restart.seconds, serial: shared.restart.serial)
                }
            }
            if !shared.wantsPlaying, shared.session.activating == 0, work.device != nil || shared.session.active {
                return .halt
            }
            monitor.wait()
        }
    }

    /// Opens a location and reports it loaded (or failed).
    private func load(_ request: LoadRequest, _ work: Work) {
        work.item = nil
        work.following = nil
        work.askedAhead = false
        work.started = false
        let settings = monitor.locked { shared.context }
        let item: PlayerItem
        do {
            let source: any ByteSource
            if let prefetched = takePrefetched(request.key, work) {
                source = prefetched
            } else {
                work.prefetched = nil  // fetched ahead for an answer that did not come
                source = try request.location.open(key: request.key, cache: configuration.mediaCache)
            }
            // From now on a new load or a close wakes its reads (a download that stalls while opening).
            let current = monitor.locked { () -> Bool in
                guard shared.generation == request.generation, !shared.closed else { return false }
                shared.source = SourceReference(source: source)
                if shared.queue.skipRequested { source.cancel() }  // `next()` came first: the load gives way to it
                return true
            }
            guard current else { return }
            item = try PlayerItem(request, source: source, rate: try PlaybackRate(settings.rate),
                                  volume: try Volume(settings.volume), skipsSilence: settings.skipsSilence,
                                  leveling: settings.leveling)
        } catch {
            // `failed`; a queue then asks what comes after the item that failed, and only the end of the queue
            // shows the state `notLoaded`.
            let queue = monitor.locked { () -> UInt64? in
                guard shared.generation == request.generation, !shared.closed else { return nil }
                // A read woken by `next()`: the skip is next, not a failure.
                if error.status == .cancelled && shared.queue.skipRequested { return nil }
                shared.context.lastError = error
                shared.queue.noteFailure(of: request.key)
                events.emit(.failed(error))
                guard shared.queue.dataSource != nil else {
                    unload()
                    return nil
                }
                return shared.restart.serial
            }
            if let serial = queue { advanceQueue(.failed, generation: request.generation, serial: serial) { unload() } }
            return
        }
        monitor.locked {
            guard shared.generation == request.generation, !shared.closed else { return }
            shared.queue.forgetFailures()
            work.item = item
            shared.source = SourceReference(source: item.source)
            shared.output.setSourceRate(item.sampleRate)
            var context = shared.context
            showFacts(of: item, in: &context)
            let start: Double
            if shared.stopAfterLoad {
                start = 0
                context.state = .stopped
            } else {
                let wanted = shared.seekPending ? shared.restart.seconds : shared.resumePositions.position(of: request.key) ?? 0
                start = Double(item.frame(at: wanted)) / Double(item.sampleRate)
                context.state = shared.wantsPlaying ? .playing : .paused
            }
            context.currentTime = start
            context.isSeeking = false
            shared.seekPending = !shared.wantsPlaying && start > 0  // position the decoder now, ready to play
            reposition(to: start)
            publish(context)
        }
    }

    /// Shared: the load failed and nothing follows: `notLoaded`, the location kept.
    func unload() {
        shared.wantsPlaying = false
        var context = shared.context
        context.state = .notLoaded
        context.duration = 0
        context.currentTime = 0
        context.durationIsEstimate = false
        publish(context)
    }

    /// Positions the decoder of a paused item.
    private func seekPaused(to seconds: Double, serial: UInt64, _ work: Work) {
        dropFollowing(work)
        guard let item = work.item else { return }
        do {
            try item.reposition(to: item.frame(at: seconds))
        } catch {
            if isInterruption(error, work) {
                monitor.locked { if shared.restart.serial == serial { shared.seekPending = true } }  // again
                return
            }
            fail(error, work)
            return
        }
        monitor.locked {
            guard shared.restart.serial == serial, shared.context.isSeeking else { return }
            shared.context.isSeeking = false
            publish(shared.context)
        }
    }

    /// (Re)starts the output at `seconds`: the device (opened or kept), the decoder positioned, a new ring.
    private func start(at seconds: Double, serial: UInt64, _ work: Work) {
        dropFollowing(work)
        guard let item = work.item else { return }
        work.started = false
        do {
            let device = try openDevice(for: item, work)
            try item.reposition(to: item.frame(at: seconds))
            try work.converter?.reset()
            // 8 periods: the decoder thread refills half a ring at a time (160 ms at 20 ms periods), so it wakes
            // once per 4 periods; pause, seek and rate changes drop the ring, so its size adds no latency.
            let ring = try SampleRing(minimumSamples: 8 * device.periodFrames * device.channels)
            work.ring = ring
            work.pending.removeAll(keepingCapacity: true)
            work.pendingStart = 0
            work.ended = false
            work.endSent = false
            work.endFailure = nil
            let begun = try monitor.locked { () throws(VoiceNoteError) -> Bool in
                guard shared.restart.serial == serial, shared.wantsPlaying, !shared.closed else { return false }
                let position = device.position
                shared.output.timeline.reset(output: position.framesWritten - position.framesDropped,
                                      source: item.frame(at: seconds))
                work.lastReported = position.framesWritten - position.framesDropped
                try device.start(from: ring)
                shared.restart.begun()
                if shared.context.isSeeking {
                    shared.context.isSeeking = false
                    publish(shared.context)
                }
                return true
            }
            if begun {
                work.started = true
                work.serial = serial
            }
        } catch {
            if isInterruption(error, work) { return }  // the restart is still due: tried again
            fail(error, work)
        }
    }

    /// Opens the device for `item`'s format, or keeps the open one when it was opened for the same format.
    private func openDevice(for item: PlayerItem, _ work: Work) throws(VoiceNoteError) -> PlaybackDevice {
        if let device = work.device, let requested = work.requested,
           requested.rate == item.sampleRate, requested.channels == item.channels {
            device.stop()
            return device
        }
        closeDevice(work)
        let device = try PlaybackDevice(configuration.device, rate: item.sampleRate, channels: item.channels)
        work.device = device
        work.requested = (item.sampleRate, item.channels)
        monitor.locked { shared.output.device = device }
        work.converter = device.sampleRate == item.sampleRate && device.channels == item.channels ? nil
            : try FormatConverter(inputRate: item.sampleRate, inputChannels: item.channels,
                                  outputRate: device.sampleRate, outputChannels: device.channels)
        return device
    }

    private func closeDevice(_ work: Work) {
        guard let device = work.device else { return }
        monitor.locked { if shared.output.device === device { shared.output.device = nil } }
        device.close()
        work.device = nil
        work.requested = nil
        work.converter = nil
        work.ring = nil
        work.started = false
    }

    /// One step of playing: moves made output into the ring, or decodes the next piece, or waits for the device;
    /// then notices the end, a lost device, and reports progress.
    private func pump(_ work: Work) {
        guard let item = work.item, let device = work.device, let ring = work.ring else { return }
        let settings = monitor.locked { shared.context }
        item.pipeline.rate = (try? PlaybackRate(settings.rate)) ?? .normal
        item.pipeline.volume = (try? Volume(settings.volume)) ?? .full
        item.pipeline.skipsSilence = settings.skipsSilence
        if item.pipeline.isLevelled { item.pipeline.setLevelingGain(decibels: levelingGain(of: item, settings.leveling)) }
        // Output goes into the ring half a ring at a time (the rest of the item at its end): the playback thread,
        // woken by every write it waits for, then wakes once per half ring, not once per decoded packet.
        let halfRing = ring.capacity / 2
        let batchReady = work.pendingCount >= halfRing || (work.ended && work.pendingCount > 0)
        if batchReady && ring.capacity - ring.available < min(halfRing, work.pendingCount) {
            // Less than half a ring of room: wait for the playback thread to leave it half empty.
            _ = device.waitForProgress(timeoutMilliseconds: 20)
        } else if batchReady {
            let channels = device.channels
            let written = work.pending.withUnsafeBufferPointer { all in
                let whole = (all.count - work.pendingStart) / channels * channels
                return ring.write(UnsafeBufferPointer(rebasing: all[work.pendingStart..<(work.pendingStart + whole)]))
            }
            work.pendingStart += written
            if work.pendingStart == work.pending.count {
                work.pending.removeAll(keepingCapacity: true)
                work.pendingStart = 0
            }
            if written == 0 { _ = device.waitForProgress(timeoutMilliseconds: 20) }
        } else if !work.ended {
            do {
                work.ended = try !item.decodeNext { chunk in append(chunk, work) }
            } catch {
                if isInterruption(error, work) || isDroppedFollowing(error, work) { return }
                // What was decoded before the failure (a dropped download) plays out first.
                work.ended = true
                work.endFailure = error
            }
            if !work.ended { askAheadIfDue(item, work) }
        } else if !work.endSent {
            // All of the item is in the ring: a queue's next item decodes on behind it, else the device plays out.
            if work.endFailure == nil { followBackToBack(item, work) }
            if work.ended {
                device.endOfStream()
                work.endSent = true
            }
        } else {
            _ = device.waitForProgress(timeoutMilliseconds: 20)
        }
        enterFollowingIfHeard(device, work)
        if !device.isRunning {
            if work.endSent && device.playedToEnd {
                if let failure = work.endFailure { return fail(failure, work) }
                return finish(item, work)
            }
            if let failure = device.failure { return fail(failure, work) }
        }
        reportProgress(device, work)
    }

    /// Converts a chunk to the device's format and queues it, recording what it plays.
    private func append(_ chunk: PlaybackChunk, _ work: Work) {
        let channels = work.device?.channels ?? chunk.channels
        let before = work.pending.count
        if let converter = work.converter {
            try? converter.convert(chunk.samples) { work.pending.append(contentsOf: $0) }
        } else {
            work.pending.append(contentsOf: chunk.samples)
        }
        let frames = (work.pending.count - before) / channels
        monitor.locked {
            guard shared.restart.serial == work.serial else { return }
            shared.output.timeline.append(frames: frames, sourceStart: chunk.sourceStartFrame, sourceEnd: chunk.sourceEndFrame)
            work.item?.lastSourceFrame = chunk.sourceEndFrame
        }
    }

    /// A progress step every `progressInterval` of played audio (coalescing for slow subscribers).
    private func reportProgress(_ device: PlaybackDevice, _ work: Work) {
        let played = device.position.framesPlayed
        let step = Int64(configuration.progressInterval * Double(device.sampleRate))
        guard played - work.lastReported >= max(step, 1) else { return }
        work.lastReported = played
        monitor.locked {
            guard shared.restart.serial == work.serial, !shared.restart.pending, shared.context.state == .playing,
                  !shared.context.isSeeking, shared.output.sourceRate > 0 else { return }
            shared.context.currentTime = shared.output.sourceFrame(atOutput: played) / Double(shared.output.sourceRate)
            guard let item = heardItem(work) else { return events.emitCoalescing(.context(shared.context)) }
            showFacts(of: item, in: &shared.context)
            events.emitCoalescing(.context(shared.context))
            let duration = shared.context.duration
            if !shared.context.durationIsEstimate, duration > 0,
               shared.context.currentTime >= duration * Self.listenedFraction { noteListened(item) }
        }
    }

    /// How much of a note must be heard for it to be listened (or its end): 90 %.
    public static let listenedFraction = 0.9

    /// Shared: `item` was heard to the listened mark or its end: marked in the resume store, and `listened` sent
    /// the first time the note is (once per load at most; never for a note already listened).
    func noteListened(_ item: PlayerItem) {
        guard !item.reachedListened else { return }
        item.reachedListened = true
        guard shared.resumePositions.markListened(item.key) else { return }
        let location = shared.context.location
        events.emit(.listened(location: location, key: item.key.text(sourceName: location)))
    }

    /// The item played to its end: `finished` and `stopped` at 0 (a queue's next item instead, when it has one);
    /// its resume position is forgotten.
    private func finish(_ item: PlayerItem, _ work: Work) {
        work.started = false
        let queue = monitor.locked { () -> (generation: UInt64, serial: UInt64)? in
            guard shared.restart.serial == work.serial, shared.generation == item.generation else { return nil }
            shared.resumePositions.forget(item.key)
            shared.wantsPlaying = false
            if (item.lastSourceFrame ?? 0) > 0 { noteListened(item) }
            events.emit(.finished(location: shared.context.location))
            var context = shared.context
            showFacts(of: item, in: &context)
            if context.durationIsEstimate, let last = item.lastSourceFrame {
                context.duration = Double(last) / Double(item.sampleRate)  // the end is known now
                context.durationIsEstimate = false
            }
            context.state = .stopped
            context.currentTime = 0
            reposition(to: 0)
            guard shared.queue.dataSource != nil else {
                publish(context)
                return nil
            }
            // Stopped already for control calls; shown only if the queue ends here.
            shared.context = context
            return (shared.generation, shared.restart.serial)
        }
        guard let queue else { return }
        let played = (item.lastSourceFrame ?? 0) > 0
        advanceQueue(.finished(played: played), generation: queue.generation, serial: queue.serial) {
            publish(shared.context)
        }
    }

    /// Shared: what the item says of itself now into `context`: its duration (a download's estimate is refined as
    /// its bytes arrive; a hint stays shown until the duration is exact) and how much of it has arrived.
    func showFacts(of item: PlayerItem, in context: inout PlayerContext) {
        let info = item.info
        if !info.durationIsEstimate || (item.durationHint == nil && info.duration > 0) {
            context.duration = info.duration
            context.durationIsEstimate = info.durationIsEstimate
        }
        context.bufferedFraction = item.bufferedFraction
        context.levelingGain = item.pipeline.isLevelled ? levelingGain(of: item, context.leveling) : 0
    }

    /// The gain levelling gives `item` under `leveling` now, dB (0 once levelling is off: its note ramps back).
    func levelingGain(of item: PlayerItem, _ leveling: Leveling) -> Double {
        leveling.enabled ? leveling.gain(for: item.loudness) : 0
    }

    /// Whether `error` is a read this player woke on purpose (a seek, a new load or a close during a wait for the
    /// network): not a failure; the step is done again or dropped.
    private func isInterruption(_ error: VoiceNoteError, _ work: Work) -> Bool {
        guard error.status == .cancelled else { return false }
        return monitor.locked {
            if shared.closed || shared.generation != work.item?.generation { return true }
            guard shared.interruptions > work.interruptionsSeen else { return false }
            work.interruptionsSeen = shared.interruptions  // interruptions before one read throw once
            return true
        }
    }

    /// Whether `error` is the read of a next item decoding behind the current one, woken because a restart drops
    /// it (not a failure: the restart goes back to the item heard).
    private func isDroppedFollowing(_ error: VoiceNoteError, _ work: Work) -> Bool {
        guard error.status == .cancelled, work.following != nil else { return false }
        return monitor.locked { shared.closed || shared.restart.pending || shared.restart.serial != work.serial }
    }

    /// A failure while loaded (decoding, seeking, the device): `failed`, then `paused` where the listener was.
    private func fail(_ error: VoiceNoteError, _ work: Work) {
        work.started = false
        let lost = work.device?.failure != nil
        monitor.locked {
            // A failure of an item that was replaced meanwhile (its read cancelled by the new load) is nobody's.
            guard !shared.closed, shared.generation == work.item?.generation else { return }
            let heard = shared.context.state == .playing ? haltOutput() : shared.context.currentTime
            shared.wantsPlaying = false
            shared.context.lastError = error
            events.emit(.failed(error))
            var context = shared.context
            if context.state == .playing { context.state = .paused }
            context.currentTime = heard
            context.isSeeking = false
            reposition(to: heard)
            publish(context)
        }
        if lost { closeDevice(work) }
    }
}
