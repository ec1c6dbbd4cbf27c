import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteRecorder

/// The draft record of a flow with a draft key, kept on the flow's worker: the key claimed for a take, the record
/// brought up to date after each transition, a parked, stopped or undelivered take kept, the draft restored.
extension RecordingFlow {
    /// Holds `held` as this flow's claim of its key, or (nil) lets the key go.
    func setClaim(_ held: FlowDrafts.Claim?) {
        if held == nil { claim?.release() }
        claim = held
        driving.locked { draftHeld = held != nil }
    }

    /// Claims the draft key for a take about to begin: the drafts directory, where the take is then recorded, or nil
    /// (the recorder's own directory) when the take cannot be the draft — another flow holds the key, or the key has
    /// a draft this flow did not park (never replaced: restore, send or clear it first); a `failed` event says so. A
    /// take this flow parked gives way to the new one (one draft per key).
    func claimForTake() -> String? {
        guard let drafts, let key = configuration.draftKey else { return nil }
        if claim == nil {
            do {
                setClaim(try drafts.claim(key: key))
            } catch {
                events.emit(.failed(error))
                return nil
            }
            guard claim != nil else {
                events.emit(.failed(VoiceNoteError(.busy, "another flow holds the draft of \(key) (a second window on the conversation?): this take is not kept as a draft")))
                return nil
            }
        }
        let onDisk = (try? drafts.load(key: key)) ?? nil
        if let onDisk {
            if parked, onDisk == savedDraft {
                try? FileSystem.remove(onDisk.path)  // one draft per key: the new take
            } else if onDisk != savedDraft {
                events.emit(.failed(VoiceNoteError(.busy, "\(key) has a draft kept by another flow (restore, send or clear it first): this take is not kept as a draft")))
                setClaim(nil)
                return nil
            }
        }
        parked = false
        savedDraft = onDisk
        return drafts.directory
    }

    /// A parked take: its record names it (it was recorded in the drafts directory; it never moves).
    func keepParkedTake(_ take: FlowTake) {
        guard let drafts, let key = configuration.draftKey, claim != nil else { return }
        let draft = FlowDraft(key: key, path: take.path, duration: take.duration)
        do { try drafts.save(draft) } catch { events.emit(.failed(error)) }
        savedDraft = draft
        parked = true
    }

    /// Makes the draft record say what the flow held after a transition (`target`): a running take's `.part`, the
    /// take in preview, the parked take, or nothing. Written only when that changes, and only while the flow holds
    /// the key; an idle flow lets the key go (a parked draft is then free for the next flow to restore).
    func keepDraft(_ target: DraftTarget) {
        guard let drafts, let key = configuration.draftKey, claim != nil else { return }
        let wanted: FlowDraft?
        let idle: Bool
        switch target {
        case .running:
            guard let runningPath else { return }  // its begin failed: the failure's transition settles the record
            wanted = FlowDraft(key: key, path: runningPath, duration: 0)
            idle = false
        case .preview(let take):
            wanted = take.map { FlowDraft(key: key, path: $0.path, duration: $0.duration) }
            idle = false
        case .idle:
            wanted = parked ? savedDraft : nil
            idle = true
        }
        if wanted != savedDraft {
            if let wanted {
                do { try drafts.save(wanted) } catch { events.emit(.failed(error)) }
            } else {
                drafts.forget(key: key)
            }
            savedDraft = wanted
        }
        if idle && takeStage == .none { setClaim(nil) }
    }

    /// After the subscriptions ended: a take handed over whose `attachmentReady` reached no subscriber stays the
    /// conversation's draft (the host never got it; the next flow previews it again).
    func keepUndeliveredTake() {
        guard let path = undelivered.withLock({ $0 }), let drafts, let key = configuration.draftKey,
              FileSystem.exists(path), let held = try? drafts.claim(key: key) else { return }
        defer { held.release() }
        if (try? drafts.load(key: key)) ?? nil == nil {
            try? drafts.save(FlowDraft(key: key, path: path, duration: 0))
        }
    }

    /// Closing while a take's end is on its way (the recorder finished the file, its report has not arrived): the
    /// record names the whole file, so the next flow with the key previews it.
    func keepStoppedTake(_ drafts: FlowDrafts, key: String) {
        guard let part = runningPath else { return }
        let finished = RecordingRecovery.finishedPath(of: part) ?? part
        let kept = [finished, part].first { (path: String) in FileSystem.exists(path) }
        if let kept {
            try? drafts.save(FlowDraft(key: key, path: kept, duration: 0))
        } else {
            drafts.forget(key: key)  // too short: the recorder deleted it
        }
    }

    /// The worker's first job with a draft key: the draft, made whole, read back (its waveform and payload) and
    /// previewed; every subscriber's first view follows. A draft that cannot be restored (another flow holds the
    /// key; a `.busy` take another recorder still writes; a damaged file) is left in place, and said through the log.
    func restoreDraft() {
        var restored: (FlowDrafts.Claim, FlowDraft, FlowTake)?
        if let drafts, let key = configuration.draftKey, !closing.isCancelled {
            do {
                // No record, nothing to restore: the key is not taken even for a moment, so another flow on it (a
                // second window) beginning a take meanwhile gets it. A record that cannot be read goes on to restore,
                // which says why.
                let recorded: Bool
                do { recorded = try drafts.load(key: key) != nil } catch { recorded = true }
                if recorded, let held = try drafts.claim(key: key, within: Self.claimWaitMilliseconds) {
                    if let draft = try drafts.restore(key: key) {
                        let take = try TakeEditor.readBack(draft.path, seconds: draft.duration > 0 ? draft.duration : nil,
                                                           samples: configuration.waveformSamples, cancellation: closing)
                        restored = (held, FlowDraft(key: key, path: draft.path, duration: take.duration), take)
                    } else {
                        held.release()
                    }
                } else if recorded {
                    Log.write(.info, "the draft of \(key) is held by another flow: not restored here")
                }
            } catch {
                if error.status != .cancelled { Log.write(.warning, "the draft of \(key) could not be restored: \(error.message)") }
            }
        }
        let accepted = driving.locked { () -> Bool in
            restoring = false
            guard !closed else { return false }
            var accepted = false
            if let (_, _, take) = restored {
                let (commands, events) = machine.handle(.restored(take))
                accepted = machine.state == .preview
                if accepted { carryOut(commands, events) }
            }
            if !accepted { self.events.emit(.view(machine.view)) }  // every subscriber's first view
            return accepted
        }
        if let (held, draft, _) = restored {
            if accepted {
                setClaim(held)
                savedDraft = draft
            } else {
                held.release()  // a take began meanwhile: the draft stays on disk for later
            }
        }
    }
}
