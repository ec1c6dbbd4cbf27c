import VoiceNoteCore
import VoiceNotePlayer
import VoiceNoteRecorder

/// The hold-to-record button's state machine (`FlowMachine`) over a real recorder and player: a view forwards
/// pointer and key inputs, and draws what the events say.
///
/// No call blocks its caller: the lock (`driving`) guards the machine alone. An input runs the machine under it,
/// queues the events, and hands the commands it produced (begin or stop the recorder, trim, load the preview, write
/// a draft record) to the flow's worker thread (`vn-flow`), which carries them out in order with no lock held and
/// feeds what they report back into the machine. The recorder's and player's reports arrive on their event delivery,
/// timers on the clock's thread (a `ManualClock` runs them inside `advance`); no callback runs under the lock.
public final class RecordingFlow: @unchecked Sendable {
    /// The subscribers and their dispatcher.
    public let events: EventChannel<FlowMachine.Event>
    /// The number of live levels a view gets while recording.
    public static let liveLevelCount = 40
    /// How long a new flow's worker waits for its draft's key: a flow destroyed during a trim lets it go from its own
    /// worker once the trim stopped (milliseconds); one held longer belongs to another live flow.
    static let claimWaitMilliseconds = 2000

    let recorder: Recorder
    private let player: Player
    private let clock: any VoiceNoteClock
    /// The flow's constants (the machine keeps its own copy; this one is read without the lock).
    let configuration: FlowConfiguration
    /// Carries out the machine's commands, in order, off the callers' threads.
    private let worker = SerialWorker(name: "vn-flow")
    let driving = Monitor()
    // Guarded by `driving`:
    var machine: FlowMachine
    var closed = false
    /// A draft is being read back (at creation): subscribers get their first view once it is in preview (or not).
    var restoring = false
    /// Set by `close` (and a discard during a trim): the running trim or restore stops at its next packet.
    private var trimCancellation = CancellationFlag()
    let closing = CancellationFlag()
    /// Each timer's generation: an action of an older one does nothing (cancelling under the lock would wait for a
    /// running action that waits for the lock).
    private var timerGenerations: [FlowMachine.FlowTimer: UInt64] = [:]
    private var timers: [FlowMachine.FlowTimer: ClockTimer] = [:]
    /// The flow's subscriptions to the recorder's and the player's events.
    private var subscriptionIDs: [UInt64] = []
    /// The drafts directory, with a draft key.
    let drafts: FlowDrafts?
    // Owned by the worker thread (only jobs touch them):
    /// The key while this flow's take is its draft (recording, preview): no other flow takes it meanwhile.
    var claim: FlowDrafts.Claim?
    /// Whether this flow holds its key (the worker's `claim`, mirrored under `driving` for `park` and the handing
    /// over of a take).
    var draftHeld = false
    /// The draft record this flow wrote last, the running take's `.part`, and whether the flow is idle because it
    /// parked its take (the record then stays).
    var savedDraft: FlowDraft?
    var runningPath: String?
    var parked = false
    /// The recorder's take as the worker left it: begun, asked to stop (its end on its way), or none.
    enum TakeStage { case none, running, stopping }
    var takeStage = TakeStage.none
    /// The configured uploader's part in the current take (RecordingFlow+Upload.swift).
    var liveUpload = LiveUpload.none
    /// The streamed take's upload and the outbox item kept for it, met whichever comes first.
    var liveHold: HeldSend?
    /// A take handed to the host (`attachmentReady` emitted) that no subscriber has received yet: a close before it
    /// arrives keeps the take as the draft, since the host never got it. Its own lock (set under `driving`, cleared
    /// on the delivery thread).
    let undelivered = Locked<String?>(nil)

    /// A flow over `recorder` and `player` (the flow begins, stops and cancels takes and plays previews; the host
    /// keeps them for its own use otherwise). `.invalidArgument` for a bad configuration. A draft of the
    /// configuration's key is read back on the worker: the first view goes out once it is in preview.
    public init(recorder: Recorder, player: Player, configuration: FlowConfiguration = FlowConfiguration(),
                clock: any VoiceNoteClock = MonotonicClock.shared,
                dispatcher: any EventDispatcher = EventThread.shared) throws(VoiceNoteError) {
        try configuration.validate()
        self.recorder = recorder
        self.player = player
        self.clock = clock
        self.configuration = configuration
        machine = FlowMachine(configuration: configuration)
        drafts = configuration.draftKey.map { _ in FlowDrafts(directory: configuration.draftsDirectory) }
        events = EventChannel(dispatcher: dispatcher)
        let recorderID = try recorder.events.subscribe({ [weak self] event in self?.recorderReported(event) }, release: nil)
        do {
            let playerID = try player.subscribe({ [weak self] event in self?.playerReported(event) })
            subscriptionIDs = [recorderID, playerID]
        } catch {
            try? SubscriptionRegistry.shared.end(id: recorderID)
            throw error
        }
        if drafts != nil {
            restoring = true
            worker.enqueue { [self] in restoreDraft() }
        }
    }

    // No job holds the flow any more (each holds it while queued): its last step runs here, as no closure may take
    // `self` out of a deinit.
    deinit { shutDown(fromDeinit: true) }

    /// The view as of the last event.
    public var view: FlowView { driving.locked { machine.view } }

    /// Whether a take is being begun (the worker opens the device; the view is still idle): its `recording` view,
    /// or a `failed` event, follows.
    public var isBeginning: Bool { driving.locked { machine.isBeginning } }

    /// Subscribes to the flow's events: the current view first (once a draft being restored is in preview), then
    /// every event in order. `registered` gets the id before the first event can be delivered.
    public func subscribe(_ handler: @escaping @Sendable (FlowMachine.Event) -> Void, release: (@Sendable () -> Void)? = nil,
                          registered: (UInt64) -> Void = { _ in }) throws(VoiceNoteError) -> UInt64 {
        let undelivered = self.undelivered
        let handing: @Sendable (FlowMachine.Event) -> Void = { event in
            if case .attachmentReady(let take) = event { undelivered.withLock { if $0 == take.path { $0 = nil } } }
            handler(event)
        }
        return try driving.locked { () throws(VoiceNoteError) -> UInt64 in
            // While restoring, the view that ends the restore is every subscriber's first.
            try events.subscribe(handing, release: release, registered: registered, initial: restoring ? nil : .view(machine.view))
        }
    }

    /// Ends the flow: a running take is cancelled (its file deleted), a running trim abandoned (the take as it was),
    /// timers cancelled; no event of this flow is delivered after this returns. A take being stopped (released,
    /// parked, sent) and a take in preview stay the conversation's draft. Waits for the worker to settle the
    /// recorder and the draft record — except while a trim runs: the worker abandons it (at its next packet) and
    /// lets the key go after this returns. The recorder and player stay the host's.
    public func close() { shutDown(fromDeinit: false) }

    private func shutDown(fromDeinit: Bool) {
        let (subscriptionIDs, timers, trimming): ([UInt64], [ClockTimer], Bool) = driving.locked {
            guard !closed else { return ([], [], false) }
            closed = true
            closing.cancel()
            trimCancellation.cancel()
            defer { self.subscriptionIDs = []; self.timers = [:] }
            return (self.subscriptionIDs, Array(self.timers.values), machine.isTrimming)
        }
        for id in subscriptionIDs { try? SubscriptionRegistry.shared.end(id: id) }
        for timer in timers { timer.cancel() }
        events.close()
        if fromDeinit {
            closeTake()
        } else {
            worker.enqueue { [self] in closeTake() }
        }
        // A take in preview being trimmed involves no recorder: the abandoned trim ends on the worker, which then
        // lets the key go (the next flow's worker waits for it). Otherwise the recorder is settled before return.
        worker.finish(waiting: !trimming)
    }

    /// The worker's last job: a take still running with no stop asked is cancelled (no draft); one being stopped is
    /// kept as the draft; the key is let go; a take handed over that reached no subscriber stays the draft.
    private func closeTake() {
        guard driving.locked({ closed }), !isFinishedClosing else { return }
        isFinishedClosing = true
        switch takeStage {
        case .running:
            try? recorder.cancel()
            if let drafts, let key = configuration.draftKey, claim != nil { drafts.forget(key: key) }  // cancelled: no draft
        case .stopping:
            if let drafts, let key = configuration.draftKey, claim != nil { keepStoppedTake(drafts, key: key) }
        case .none:
            break
        }
        takeStage = .none
        claim?.release()
        claim = nil
        keepUndeliveredTake()
    }
    private var isFinishedClosing = false

    // MARK: - Inputs

    /// The button pressed at (x, y), in the button's coordinates (the gestures are measured from here).
    public func press(x: Double, y: Double) throws(VoiceNoteError) { try drive(.press(x: x, y: y)) }
    /// The button released.
    public func release() throws(VoiceNoteError) { try drive(.release) }
    /// The pointer moved to (x, y) while the button is held.
    public func move(x: Double, y: Double) throws(VoiceNoteError) { try drive(.move(x: x, y: y)) }
    /// A key down or up (with `keyInputs` on; ignored otherwise).
    public func keyDown(_ key: FlowKey) throws(VoiceNoteError) { try drive(.keyDown(key)) }
    public func keyUp(_ key: FlowKey) throws(VoiceNoteError) { try drive(.keyUp(key)) }
    /// Locks a held take (recording only; `.misuse` otherwise).
    public func lock() throws(VoiceNoteError) { try drive(.lock) }
    /// Cancels a take (its file deleted) or discards a preview; nothing otherwise. The flow is idle on return; the
    /// file is deleted on the worker just after, and no event says when.
    public func cancel() throws(VoiceNoteError) { try drive(.cancel) }
    /// Stops a take into preview (recording or locked; `.misuse` otherwise).
    public func stop() throws(VoiceNoteError) { try drive(.stop) }
    /// Deletes the take or the preview and goes idle (`.misuse` when there is none).
    public func discard() throws(VoiceNoteError) { try drive(.discard) }
    /// Hands the take to the composer (`attachmentReady`, then `publish` when confirmation is not required),
    /// stopping a running take first (`.misuse` when there is none).
    public func send() throws(VoiceNoteError) { try drive(.send) }
    /// As `send`, always followed by `publish`.
    public func confirm() throws(VoiceNoteError) { try drive(.confirm) }
    /// Plays, pauses or seeks the preview (`.misuse` outside preview).
    public func play() throws(VoiceNoteError) { try drive(.play) }
    public func pause() throws(VoiceNoteError) { try drive(.pause) }
    public func seek(to seconds: Double) throws(VoiceNoteError) { try drive(.seek(seconds)) }
    /// Starts cutting the previewed take to `start ..< end` seconds on the worker (Ogg Opus: sample-exact, no
    /// re-encoding; AAC: re-encoded; the file is replaced only once the new one is whole) and returns: a `trimmed`
    /// event follows, then the take is previewed again; a failure is a `trimFailed` event with the take as it was.
    /// `.misuse` outside preview or while a trim runs; `.invalidArgument` for a range outside the take. Meanwhile
    /// play, pause, seek and another trim are `.misuse`; send, confirm and park act once the trim ended; discard
    /// and cancel abandon it and delete the take; close abandons it and keeps the take as it was.
    public func trim(start: Double, end: Double) throws(VoiceNoteError) { try drive(.trim(start: start, end: end)) }
    /// The view was hidden: a take stops into preview, a playing preview pauses.
    public func deactivate() throws(VoiceNoteError) { try drive(.deactivate) }
    /// The user left the conversation: a running take is stopped, and the take (running or in preview) is kept as
    /// the conversation's draft (`parked`), moved into the drafts directory; the flow goes idle. The next flow with
    /// this draft key restores it into preview. `.misuse` without a draft key.
    /// `.busy` when the take is not this conversation's draft (another flow held the key when it began: its
    /// `failed` event said so); the take then stays in this flow, to be sent or discarded.
    public func park() throws(VoiceNoteError) {
        guard drafts != nil else { throw VoiceNoteError(.misuse, "park needs a flow with a draft key") }
        try driving.locked { () throws(VoiceNoteError) in
            let holdsTake = machine.state != .idle && machine.state != .showingTip
            if holdsTake && !draftHeld && !closed {
                throw VoiceNoteError(.busy, "this take is not the draft of \(configuration.draftKey ?? ""): another flow held the key when it began")
            }
        }
        try drive(.park)
    }

    // MARK: - Driving the machine

    private func drive(_ input: FlowMachine.Input) throws(VoiceNoteError) {
        try driving.locked { () throws(VoiceNoteError) in
            guard !closed else { throw VoiceNoteError(.misuse, "the recording flow was closed") }
            let (commands, events) = try machine.handle(input)
            carryOut(commands, events)
        }
    }

    /// Feeds what a command, the recorder, the player or a timer reported into the machine (from any thread).
    private func report(_ outcome: FlowMachine.Outcome) {
        driving.locked {
            guard !closed else { return }
            let (commands, events) = machine.handle(outcome)
            carryOut(commands, events)
        }
    }

    /// With `driving` held: queues `events` for the subscribers, starts and cancels timers, and hands every other
    /// command to the worker, in order, followed by bringing the draft record up to date. Enqueued under the lock,
    /// so the worker sees the commands of two inputs in the order the machine produced them.
    func carryOut(_ commands: [FlowMachine.Command], _ events: [FlowMachine.Event]) {
        var work: [Job] = []
        for event in events {
            if case .attachmentReady(let take) = event, draftHeld { undelivered.withLock { $0 = take.path } }
            if case .parked(let take) = event { work.append(.park(take)) }
            if case .attachmentReady(let take) = event, configuration.uploader != nil || configuration.outbox != nil {
                work.append(.upload(take))
            }
            self.events.emit(event)
        }
        for command in commands {
            switch command {
            case .startTimer(let timer, let seconds):
                let generation = (timerGenerations[timer] ?? 0) + 1
                timerGenerations[timer] = generation
                timers[timer] = clock.schedule(after: seconds) { [weak self] in self?.timerFired(timer, generation) }
            case .cancelTimer(let timer):
                timerGenerations[timer] = (timerGenerations[timer] ?? 0) + 1
            case .cancelTrim:
                trimCancellation.cancel()
            case .trimTake:
                trimCancellation = CancellationFlag()
                work.append(.command(command, trimCancellation))
            default:
                work.append(.command(command, nil))
            }
        }
        // Only when what the record should say changed: a job queued behind a slow one (a draft being read back)
        // must not carry a view of the machine older than the jobs before it.
        let target = draftTarget
        if target != lastDraftTarget {
            work.append(.keepDraft(target))
            lastDraftTarget = target
        }
        guard !work.isEmpty else { return }
        worker.enqueue { [self, work] in
            for job in work { run(job) }
        }
    }

    /// What the worker does for the machine: a command (with the trim's cancellation), a parked take's record, a sent
    /// take's upload, or the draft record brought up to date.
    private enum Job: Sendable {
        case command(FlowMachine.Command, CancellationFlag?)
        case park(FlowTake)
        case upload(FlowTake)
        case keepDraft(DraftTarget)
    }

    /// What the draft record should say after a transition, as the machine stood then (the worker may run behind
    /// it): the running take (also while it is being begun), the take in preview, or the idle flow's.
    enum DraftTarget: Equatable, Sendable {
        case running
        case preview(FlowTake?)
        case idle
    }

    /// The target of the last `keepDraft` handed to the worker (guarded by `driving`).
    var lastDraftTarget = DraftTarget.idle

    /// With `driving` held: the draft target of the machine as it stands.
    private var draftTarget: DraftTarget {
        switch machine.state {
        case .recording, .locked: .running
        case .preview: .preview(machine.currentTake)
        case .idle, .showingTip: machine.isBeginning ? .running : .idle
        }
    }

    /// On the worker, no lock held.
    private func run(_ job: Job) {
        switch job {
        case .command(let command, let cancellation): carryOut(command, cancellation: cancellation)
        case .park(let take): keepParkedTake(take)
        case .upload(let take): uploadSentTake(take)
        case .keepDraft(let target): keepDraft(target)
        }
    }

    /// On the worker: one command, its outcome fed back. After `close`, only what keeps files right still runs (a
    /// stop asked before close, a cancel, a deletion, the player stopped); nothing new begins.
    private func carryOut(_ command: FlowMachine.Command, cancellation: CancellationFlag?) {
        let closed = closing.isCancelled
        switch command {
        case .beginRecording:
            guard !closed else { return }
            try? player.stop()
            runningPath = nil
            do {
                // A draft's record names the take before its first sample: a SIGKILL at any moment of the take (a
                // device faster than real time captures seconds in milliseconds) leaves it found by the next flow.
                try recorder.begin(in: claimForTake()) { [self] path in
                    runningPath = path
                    keepDraft(.running)
                    startLiveUpload()
                }
                takeStage = .running
                report(.recordingBegan)
            } catch {
                runningPath = nil
                report(.recordingFailed(error))
            }
        case .stopRecording:
            guard takeStage == .running else { return }
            takeStage = .stopping
            do { try recorder.stop() } catch { report(.recordingFailed(error)) }
        case .cancelRecording:
            guard takeStage != .none else { return }
            takeStage = .none
            try? recorder.cancel()
            cancelLiveUpload()
        case .loadPreview(let path):
            guard !closed else { return }
            attempt { () throws(VoiceNoteError) in try player.load(.file(path), autoplay: false) }
        case .playPreview:
            guard !closed else { return }
            attempt { () throws(VoiceNoteError) in try player.play() }
        case .pausePreview:
            guard !closed else { return }
            attempt { () throws(VoiceNoteError) in try player.pause() }
        case .seekPreview(let seconds):
            guard !closed else { return }
            attempt { () throws(VoiceNoteError) in try player.seek(to: seconds) }
        case .stopPreview:
            try? player.stop()
        case .deleteFile(let path):
            try? FileSystem.remove(path)
            cancelLiveUpload()
        case .trimTake(let path, let start, let end):
            try? player.stop()
            do throws(VoiceNoteError) {
                try (cancellation ?? closing).check("the trim")
                let take = try TakeEditor.trim(path, start: start, end: end, bitrate: recorder.configuration.encoder.bitrate,
                                               samples: configuration.waveformSamples, cancellation: cancellation)
                liveUploadCut()
                report(.trimmed(take))
            } catch {
                report(.trimFailed(error))
            }
        case .cancelTrim, .startTimer, .cancelTimer:
            break  // done under the lock
        }
    }

    /// A player call whose failure is reported as a `failed` event (the flow's state stays).
    private func attempt(_ call: () throws(VoiceNoteError) -> Void) {
        do { try call() } catch { events.emit(.failed(error)) }
    }

    private func timerFired(_ timer: FlowMachine.FlowTimer, _ generation: UInt64) {
        driving.locked {
            guard !closed, timerGenerations[timer] == generation else { return }
            let (commands, events) = machine.handle(.timerFired(timer))
            carryOut(commands, events)
        }
    }

    // MARK: - Reports

    /// The recorder's steps go to the machine at once; a take's end goes through the worker, in order with the
    /// commands (its waveform and payload are read there).
    private func recorderReported(_ event: RecorderEvent) {
        switch event {
        case .context(let context) where context.state == .recording:
            report(.recordingProgress(duration: context.duration, levels: recorder.levels(last: Self.liveLevelCount)))
        case .finished(let result):
            worker.enqueue { [self] in
                takeStage = .none
                report(.recordingFinished(TakeEditor.describe(result, samples: configuration.waveformSamples)))
            }
        case .tooShort(let duration):
            worker.enqueue { [self] in
                takeStage = .none
                report(.recordingTooShort(duration: duration))
            }
        case .failed(let error):
            worker.enqueue { [self] in
                if recorder.context.state == .stopped { takeStage = .none }
                report(.recordingFailed(error))
            }
        default:
            break
        }
    }

    private func playerReported(_ event: PlayerEvent) {
        switch event {
        case .context(let context):
            report(.previewProgress(position: context.currentTime, playing: context.state == .playing))
        case .finished:
            report(.previewProgress(position: 0, playing: false))
        default:
            break
        }
    }
}
