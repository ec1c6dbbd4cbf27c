import VoiceNoteAttachments
import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteWaveform

extension Recorder {
    /// The control calls, as named in messages.
    enum Action: String { case pause, resume, stop, cancel }

    /// Moves from one of `allowed` phases to `next`, or fails with `.misuse`.
    func enter(_ next: Phase, from allowed: [Phase], action: Action) throws(VoiceNoteError) {
        try monitor.locked { () throws(VoiceNoteError) in
            guard !closed else { throw VoiceNoteError(.misuse, "the recorder was destroyed") }
            guard allowed.contains(phase) else { throw VoiceNoteError(.misuse, "\(action) while \(phase)") }
            phase = next
        }
    }

    /// Claims the take for stop or cancel. False when the encoder thread is already finishing it (this waited until
    /// it was done); `.misuse` when nothing is recording or paused.
    func enterFinishing(action: Action) throws(VoiceNoteError) -> Bool {
        try monitor.locked { () throws(VoiceNoteError) -> Bool in
            if phase == .finishing {
                while phase != .stopped { monitor.wait() }
                return false
            }
            guard phase == .recording || phase == .paused else {
                throw VoiceNoteError(.misuse, "\(action) while \(phase)")
            }
            phase = .finishing
            return true
        }
    }

    /// Opens the device and the file in `directory`.
    func openTake(in directory: String) throws(VoiceNoteError) {
        if directory == RecorderConfiguration.defaultDirectory {
            try FileSystem.makeOwnedDirectory(directory)
        } else {
            try FileSystem.makeDirectories(directory)
        }
        let device = try CaptureDevice(configuration.device)
        self.device = device
        // About 1 s: far more than the encoder thread ever falls behind, small enough that a stop after a backlog
        // (a device faster than real time) finishes quickly.
        let ring = try SampleRing(minimumSamples: device.sampleRate * device.channels)
        self.ring = ring
        take = try Take(directory: directory, configuration: configuration,
                        rate: device.sampleRate, channels: device.channels,
                        cleanup: try cleanup(rate: device.sampleRate, channels: device.channels))
    }

    /// The cleanup for the next take, when it is on: the last take's when its format matches, so its noise estimate
    /// and gain carry over (the room is usually the same; a first take's suppression settles within about a
    /// second), else a new one.
    private func cleanup(rate: Int, channels: Int) throws(VoiceNoteError) -> VoiceCleanup? {
        guard monitor.locked({ voiceCleanup }) else { return nil }
        if let previous = lastCleanup, previous.sampleRate == rate, previous.channels == channels {
            previous.startOver()
            return previous
        }
        let cleanup = try VoiceCleanup(sampleRate: rate, channels: channels)
        lastCleanup = cleanup
        return cleanup
    }

    /// Starts capturing and the encoder thread of an opened take.
    func startTake() throws(VoiceNoteError) {
        guard let device, let ring, let take else { throw VoiceNoteError(.internal, "no take to start") }
        try device.start(into: ring)
        try startWorker(take: take, device: device, ring: ring)
    }

    /// Undoes a half-opened take: closes the device and removes the file.
    func discardTake() {
        device?.close()
        if let take {
            try? take.encoder.finish()
            try? FileSystem.remove(take.partPath)
        }
        device = nil
        ring = nil
        take = nil
    }

    /// Starts the encoder thread for the running capture.
    func startWorker(take: Take, device: CaptureDevice, ring: SampleRing) throws(VoiceNoteError) {
        stopWorker.store(false, ordering: .relaxed)
        monitor.locked { captureStopping = false }
        let thread = try LibraryThread(name: "vn-encoder") { [self] in
            runWorker(take: take, device: device, ring: ring)
        }
        monitor.locked { worker = thread }
    }

    /// Stops capturing and lets the encoder thread drain the ring and exit; joins it.
    func stopCapture() {
        // The device is read under the monitor with `captureStopping` set: the encoder thread installs a fallback
        // source only while it is clear, so this stops whichever device captures now. The device stops before the
        // encoder thread is told to end, so every frame it captured is in the ring for that thread to drain.
        monitor.locked { () -> CaptureDevice? in
            captureStopping = true
            return device
        }?.stop()
        stopWorker.store(true, ordering: .releasing)
        ring?.notify()
        let thread = monitor.locked { () -> LibraryThread? in
            defer { worker = nil }
            return worker
        }
        thread?.joinOrDetach()
    }

    /// The encoder thread: drains the ring into the take until told to stop or until the take ends by itself; a lost
    /// source goes on from the fallback device when there is one (`switchSource`).
    func runWorker(take: Take, device first: CaptureDevice, ring: SampleRing) {
        var device = first
        var buffer = [Int16](repeating: 0, count: 8192 * take.channels)
        while take.automaticEnd == nil {
            let count = buffer.withUnsafeMutableBufferPointer { ring.read(into: $0) }
            if count > 0 {
                do {
                    let progress = try buffer.withUnsafeBufferPointer { all throws(VoiceNoteError) in
                        try take.consume(UnsafeBufferPointer(rebasing: all[0..<count]))
                    }
                    report(progress, take: take, device: device)
                    if progress.reachedMaximum { take.automaticEnd = .maximumDurationReached }
                } catch {
                    take.automaticEnd = .encoderFailed(error)
                }
                continue
            }
            if stopWorker.load(ordering: .acquiring) { return }
            if let failure = device.failure {
                if let replacement = switchSource(lost: device, failure: failure, take: take, ring: ring) {
                    device = replacement
                    continue
                }
                take.automaticEnd = .deviceLost(failure)
                break
            }
            _ = ring.wait(timeoutMilliseconds: 50)
        }
        endAutomatically()
    }

    /// The capture source was lost mid-take: opens the fallback device at the take's rate and channel count and starts
    /// it into the same ring, so the take goes on with only the gap lost (`sourceChanged`). Nil — the take then
    /// finishes as for a fixed device — when there is no fallback, the lost device was the fallback already, it
    /// cannot be opened at the take's format, a control call is stopping the capture meanwhile, or the take switched
    /// `maximumSourceSwitches` times already (a fallback that keeps failing must not loop).
    func switchSource(lost: CaptureDevice, failure: VoiceNoteError, take: Take, ring: SampleRing) -> CaptureDevice? {
        guard var fallback = configuration.fallbackDevice, take.sourceSwitches < Self.maximumSourceSwitches else { return nil }
        if fallback.role == nil { fallback.role = configuration.device.role }
        take.sourceSwitches += 1
        let replacement: CaptureDevice
        do throws(VoiceNoteError) {
            replacement = try CaptureDevice(fallback, preferredRate: take.rate, channels: take.channels)
            guard replacement.sampleRate == take.rate, replacement.channels == take.channels else {
                replacement.close()
                throw VoiceNoteError(.unsupported, "\(fallback.name) captures at \(replacement.sampleRate) Hz, \(replacement.channels) channel(s), not the take's \(take.rate) Hz, \(take.channels)")
            }
            try replacement.start(into: ring)
        } catch {
            Log.write(.warning, "recorder: the source was lost (\(failure.message)) and the fallback \(fallback.name) did not open: \(error.message)")
            return nil
        }
        let installed = monitor.locked { () -> Bool in
            guard !captureStopping else { return false }
            device = replacement
            return true
        }
        guard installed else {
            replacement.close()
            return nil
        }
        lost.close()
        events.emit(.sourceChanged(device: fallback.name, lost: failure))
        return replacement
    }

    /// The most times one take goes on from its fallback source.
    static let maximumSourceSwitches = 3

    /// Publishes meter and duration steps and the maximum-duration warning.
    func report(_ progress: Take.Progress, take: Take, device: CaptureDevice) {
        if progress.meterSteps > 0 || progress.durationSteps > 0 {
            let context = monitor.locked { () -> RecorderContext in
                snapshot.duration = take.duration
                snapshot.averagePower = take.averagePower
                snapshot.peakPower = take.peakPower
                snapshot.overruns = device.overruns
                liveLevels.append(contentsOf: take.pendingLevels)
                take.pendingLevels.removeAll(keepingCapacity: true)
                return snapshot
            }
            events.emitCoalescing(.context(context))
        }
        if progress.warningDue {
            events.emit(.maximumDurationWarning(remaining: max(0, Double(take.maximumFrames - take.frames) / Double(take.rate))))
        }
    }

    /// The encoder thread ended the take (maximum length, device lost, disk full): finish it here, unless a control
    /// call is already stopping or pausing, which then finishes it after joining this thread.
    func endAutomatically() {
        let mine = monitor.locked { () -> Bool in
            guard phase == .recording || phase == .starting else { return false }
            phase = .finishing
            return true
        }
        guard mine, let end = take?.automaticEnd else { return }
        if case .maximumDurationReached = end { events.emit(.maximumDurationReached) }
        device?.stop()
        finish(end: end)
    }

    /// Finishes the file, closes the device, reports, and returns to `stopped`. Runs on exactly one thread per take.
    func finish(end: Take.AutomaticEnd?, cancel: Bool = false) {
        guard let take else { return }
        var saveError: VoiceNoteError?
        if !cancel, end?.isWriteFailure != true {
            do { try take.drainCleanup() } catch { saveError = error }  // the encoder still finishes what it has
        }
        do { try take.encoder.finish() } catch { saveError = saveError ?? error }
        device?.close()
        configuration.sessionHooks.deactivate?(.recording)
        var keptPath = ""
        let dropped = { (duration: Double) in
            VoiceNoteError(.cancelled, "the take was too short (\(duration) s) and was dropped")
        }
        if cancel {
            try? FileSystem.remove(take.partPath)
            settleLiveUpload(of: take, kept: nil, waveform: nil, reason: VoiceNoteError(.cancelled, "the take was cancelled"))
        } else if take.duration < configuration.minimumDuration || take.frames == 0 {
            try? FileSystem.remove(take.partPath)
            settleLiveUpload(of: take, kept: nil, waveform: nil, reason: dropped(take.duration))
            events.emit(.tooShort(duration: take.duration))
        } else {
            let waveform = take.waveform()  // before the rename: its fallback reads the file by its .part name
            let loudness = take.loudness
            let writeFailed = saveError != nil || end?.isWriteFailure == true
            switch keep(take, writeFailed: writeFailed) {
            case .kept(let kept):
                keptPath = kept.path
                // A repaired file's last page was rewritten: what was sent is not the file; it goes whole.
                let repaired = VoiceNoteError(.io, "the take's file was repaired after a failed write; upload \(kept.path) whole")
                settleLiveUpload(of: take, kept: writeFailed ? nil : kept, waveform: waveform, loudness: loudness,
                                 reason: repaired)
                events.emit(.finished(RecordingResult(path: kept.path, duration: kept.duration, size: kept.size,
                                                      waveform: waveform, format: take.format, loudness: loudness)))
            case .tooShort(let duration):
                settleLiveUpload(of: take, kept: nil, waveform: nil, reason: dropped(duration))
                events.emit(.tooShort(duration: duration))
            case .nothingWritten:
                settleLiveUpload(of: take, kept: nil, waveform: nil,
                                 reason: saveError ?? VoiceNoteError(.io, "no audio of the take reached the disk"))
            case .failed(let error):
                saveError = saveError ?? error  // the .part stays for `recover`
                keptPath = take.partPath
                settleLiveUpload(of: take, kept: nil, waveform: nil, reason: error)
            }
        }
        switch end {
        case .deviceLost(let error)?: events.emit(.failed(VoiceNoteError(.device, "device lost: \(error.message)")))
        case .encoderFailed(let error)?: events.emit(.failed(error))
        default: if let saveError { events.emit(.failed(saveError)) }
        }
        let context = monitor.locked { () -> RecorderContext in
            self.take = nil
            self.device = nil
            self.ring = nil
            phase = .stopped
            snapshot.state = .stopped
            snapshot.path = keptPath
            monitor.broadcast()
            return snapshot
        }
        events.emit(.context(context))
    }

    /// What became of a take's file.
    enum KeptFile {
        /// Kept under its final name.
        case kept(RecoveredRecording)
        /// Deleted: after a failed write the file held less than the minimum duration.
        case tooShort(Double)
        /// Deleted: a write failed before any audio reached the disk.
        case nothingWritten
        /// Left as `.part` (for `recover`): the rename or repair failed.
        case failed(VoiceNoteError)
    }

    /// Renames a finished take's `.part` to its final name. When a write failed (disk full, file-size limit), the
    /// file holds less than was captured and its last page may be cut: it is repaired as `recover` repairs a crash
    /// (whole pages kept, end-of-stream marked), and the duration is what the file holds, not what was captured.
    private func keep(_ take: Take, writeFailed: Bool) -> KeptFile {
        guard writeFailed else {
            do throws(VoiceNoteError) {
                try FileSystem.rename(take.partPath, to: take.finalPath)
            } catch {
                return .failed(error)
            }
            let size = (try? FileSystem.size(of: take.finalPath)) ?? take.encoder.bytesWritten
            return .kept(RecoveredRecording(path: take.finalPath, duration: take.duration, size: size))
        }
        let repaired: RecoveredRecording
        do throws(VoiceNoteError) {
            repaired = try RecordingRecovery.recover(partPath: take.partPath)
        } catch let error where error.status == .format {
            try? FileSystem.remove(take.partPath)
            return .nothingWritten
        } catch {
            return .failed(error)
        }
        // ADTS's repaired length counts the encoder's priming, as players decode it: never more than was captured.
        let duration = min(repaired.duration, take.duration)
        guard duration >= configuration.minimumDuration else {
            try? FileSystem.remove(repaired.path)
            return .tooShort(duration)
        }
        return .kept(RecoveredRecording(path: repaired.path, duration: duration, size: repaired.size))
    }
}

extension Take.AutomaticEnd {
    /// Whether the take ended because writing the file failed.
    var isWriteFailure: Bool {
        if case .encoderFailed = self { true } else { false }
    }
}

extension Recorder {
    /// Sends the running take while it is recorded: a `LiveTake` over its file, from its first byte, growing as the
    /// encoder writes whole pages; the take's end finishes it (stopped: the finished take's payload) or abandons it
    /// (cancelled, too short, rewritten after a failed write). Hand it to `Uploader.upload(.live(…))`.
    /// Callable from the moment the take's file exists (`begin`'s `beforeCapture` hook) until it is stopping.
    /// - Throws: `.misuse` unless a take is starting, recording or paused; `.busy` when this take is already being
    ///   sent.
    public func streamTake() throws(VoiceNoteError) -> LiveTake {
        let running = monitor.locked { () -> Take? in
            [.starting, .recording, .pausing, .paused, .resuming].contains(phase) ? take : nil
        }
        guard let running else { throw VoiceNoteError(.misuse, "a take is sent while it is recorded: begin one first") }
        let fileName = running.finalPath.split(separator: "/").last.map(String.init) ?? running.finalPath
        return try running.output.attach { (written) throws(VoiceNoteError) -> LiveTake in
            try LiveTake(path: running.partPath, bytes: written, fileName: fileName,
                         mimeType: MIMEType(fileName: running.finalPath).rawValue)
        }
    }

    /// Tells the take's live upload, if any, how the take ended: `kept` finishes it with the payload of the file
    /// (whole, as it was sent; with `loudness`, the take's as measured while encoding), anything else abandons it with
    /// `reason`.
    func settleLiveUpload(of take: Take, kept: RecoveredRecording?, waveform: [Float]?, loudness: Loudness? = nil,
                          reason: VoiceNoteError) {
        guard let live = take.output.live else { return }
        guard let kept else { return live.abandon(reason) }
        do throws(VoiceNoteError) {
            let payload = try VoiceRecordingPayload.fromRecording(path: kept.path, duration: kept.duration, waveform: waveform,
                                                                  loudness: loudness)
            live.finish(payload, size: kept.size)
        } catch {
            live.abandon(error)
        }
    }
}
