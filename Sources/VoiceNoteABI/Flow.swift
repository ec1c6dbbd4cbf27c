import CVoiceNote
import VoiceNoteCore
import VoiceNoteFlow
import VoiceNotePlayer
import VoiceNoteRecorder

@c @implementation public func vn_flow_create(
    _ recorder: OpaquePointer?, _ player: OpaquePointer?, _ options: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let recorder = try Handles.get(recorder, as: Recorder.self, "recorder")
        let player = try Handles.get(player, as: PlayerHandle.self, "player").player
        let value = try FlowOptionsHandle.value(of: options, or: FlowOptions())
        out.pointee = Handles.make(try RecordingFlow(recorder: recorder, player: player, configuration: value.configuration,
                                                     clock: value.clock, dispatcher: value.dispatcher))
    }
}

@c @implementation public func vn_flow_destroy(_ flow: OpaquePointer?) {
    Handles.remove(flow, as: RecordingFlow.self)?.close()
}

/// Runs one input on the flow behind a handle.
private func input(_ flow: OpaquePointer?, _ action: (RecordingFlow) throws(VoiceNoteError) -> Void) -> Int32 {
    abiCall { () throws(VoiceNoteError) in try action(try Handles.get(flow, as: RecordingFlow.self, "flow")) }
}

/// A `vn_flow_key` from C; `.invalidArgument` for one this library does not know.
private func flowKey(_ key: Int32) throws(VoiceNoteError) -> FlowKey {
    guard let known = FlowKey(rawValue: key) else { throw VoiceNoteError(.invalidArgument, "key \(key) is not a vn_flow_key") }
    return known
}

@c @implementation public func vn_flow_press(_ flow: OpaquePointer?, _ x: Double, _ y: Double) -> Int32 {
    input(flow) { (f) throws(VoiceNoteError) in try f.press(x: x, y: y) }
}
@c @implementation public func vn_flow_release(_ flow: OpaquePointer?) -> Int32 { input(flow) { (f) throws(VoiceNoteError) in try f.release() } }
@c @implementation public func vn_flow_move(_ flow: OpaquePointer?, _ x: Double, _ y: Double) -> Int32 {
    input(flow) { (f) throws(VoiceNoteError) in try f.move(x: x, y: y) }
}
@c @implementation public func vn_flow_key_down(_ flow: OpaquePointer?, _ key: Int32) -> Int32 {
    input(flow) { (f) throws(VoiceNoteError) in try f.keyDown(try flowKey(key)) }
}
@c @implementation public func vn_flow_key_up(_ flow: OpaquePointer?, _ key: Int32) -> Int32 {
    input(flow) { (f) throws(VoiceNoteError) in try f.keyUp(try flowKey(key)) }
}
@c @implementation public func vn_flow_lock(_ flow: OpaquePointer?) -> Int32 { input(flow) { (f) throws(VoiceNoteError) in try f.lock() } }
@c @implementation public func vn_flow_cancel(_ flow: OpaquePointer?) -> Int32 { input(flow) { (f) throws(VoiceNoteError) in try f.cancel() } }
@c @implementation public func vn_flow_stop(_ flow: OpaquePointer?) -> Int32 { input(flow) { (f) throws(VoiceNoteError) in try f.stop() } }
@c @implementation public func vn_flow_discard(_ flow: OpaquePointer?) -> Int32 { input(flow) { (f) throws(VoiceNoteError) in try f.discard() } }
@c @implementation public func vn_flow_send(_ flow: OpaquePointer?) -> Int32 { input(flow) { (f) throws(VoiceNoteError) in try f.send() } }
@c @implementation public func vn_flow_confirm(_ flow: OpaquePointer?) -> Int32 { input(flow) { (f) throws(VoiceNoteError) in try f.confirm() } }
@c @implementation public func vn_flow_play(_ flow: OpaquePointer?) -> Int32 { input(flow) { (f) throws(VoiceNoteError) in try f.play() } }
@c @implementation public func vn_flow_pause(_ flow: OpaquePointer?) -> Int32 { input(flow) { (f) throws(VoiceNoteError) in try f.pause() } }
@c @implementation public func vn_flow_seek(_ flow: OpaquePointer?, _ seconds: Double) -> Int32 {
    input(flow) { (f) throws(VoiceNoteError) in try f.seek(to: seconds) }
}
@c @implementation public func vn_flow_trim(_ flow: OpaquePointer?, _ startS: Double, _ endS: Double) -> Int32 {
    input(flow) { (f) throws(VoiceNoteError) in try f.trim(start: startS, end: endS) }
}
@c @implementation public func vn_flow_deactivate(_ flow: OpaquePointer?) -> Int32 {
    input(flow) { (f) throws(VoiceNoteError) in try f.deactivate() }
}

@c @implementation public func vn_flow_park(_ flow: OpaquePointer?) -> Int32 { input(flow) { (f) throws(VoiceNoteError) in try f.park() } }

@c @implementation public func vn_flow_drafts_list(
    _ directory: UnsafePointer<CChar>?, _ callback: vn_flow_draft_fn?, _ userData: UnsafeMutableRawPointer?,
    _ count: UnsafeMutablePointer<Int>?
) -> Int32 {
    count?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        let callback = try required(callback, "callback")
        let drafts = FlowDrafts(directory: try directory.map { (text) throws(VoiceNoteError) in try nonEmptyString(text, "directory") })
        let found = drafts.list()
        for draft in found { callback(userData, draft.key, draft.path, draft.duration) }
        count?.pointee = found.count
    }
}

@c @implementation public func vn_flow_drafts_clear(_ directory: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let drafts = FlowDrafts(directory: try directory.map { (text) throws(VoiceNoteError) in try nonEmptyString(text, "directory") })
        try drafts.clear(key: try key.map { (text) throws(VoiceNoteError) in try utf8String(text, "key") })
    }
}

@c @implementation public func vn_flow_get_state(_ flow: OpaquePointer?, _ outState: UnsafeMutablePointer<Int32>?) -> Int32 {
    input(flow) { (f) throws(VoiceNoteError) in try required(outState, "out_state").pointee = f.view.state.rawValue }
}

@c @implementation public func vn_flow_subscribe(
    _ flow: OpaquePointer?, _ callback: vn_flow_event_fn?, _ userData: UnsafeMutableRawPointer?,
    _ release: vn_release_fn?, _ outId: UnsafeMutablePointer<vn_subscription_id>?
) -> Int32 {
    input(flow) { (flow) throws(VoiceNoteError) in
        // Through the flow, which queues its current view for this subscriber first.
        try subscribeC({ (handler, release, registered) throws(VoiceNoteError) in
            try flow.subscribe(handler, release: release, registered: registered)
        }, callback, userData, release, outId) { event, subscriber in
            event.withCEvent { subscriber.function(subscriber.userData, $0) }
        }
    }
}

extension FlowMachine.Event: CEventConvertible {
    func fill(_ cEvent: inout vn_flow_event, _ memory: CEventMemory) {
        switch self {
        case .view(let view):
            cEvent.type = Int32(VN_FLOW_EVENT_VIEW.rawValue)
            cEvent.view = cView(view, memory)
        case .attachmentReady(let take):
            cEvent.type = Int32(VN_FLOW_EVENT_ATTACHMENT_READY.rawValue)
            fillTake(take, &cEvent, memory)
        case .publish(let take):
            cEvent.type = Int32(VN_FLOW_EVENT_PUBLISH.rawValue)
            fillTake(take, &cEvent, memory)
        case .failed(let error):
            cEvent.type = Int32(VN_FLOW_EVENT_FAILED.rawValue)
            memory.failure(error, status: &cEvent.status, message: &cEvent.message)
        case .parked(let take):
            cEvent.type = Int32(VN_FLOW_EVENT_PARKED.rawValue)
            fillTake(take, &cEvent, memory)
        case .trimmed(let take):
            cEvent.type = Int32(VN_FLOW_EVENT_TRIMMED.rawValue)
            fillTake(take, &cEvent, memory)
        case .trimFailed(let take, let error):
            cEvent.type = Int32(VN_FLOW_EVENT_TRIMMED.rawValue)
            fillTake(take, &cEvent, memory)
            memory.failure(error, status: &cEvent.status, message: &cEvent.message)
        case .tooShort(let duration):
            cEvent.type = Int32(VN_FLOW_EVENT_TOO_SHORT.rawValue)
            cEvent.duration_s = duration
        }
    }

    private func fillTake(_ take: FlowTake, _ cEvent: inout vn_flow_event, _ memory: CEventMemory) {
        cEvent.path = memory.string(take.path)
        cEvent.duration_s = take.duration
        cEvent.waveform = memory.values(take.waveform, count: &cEvent.waveform_count)
        cEvent.payload_json = memory.string(take.payloadJSON)
    }

    private func cView(_ view: FlowView, _ memory: CEventMemory) -> vn_flow_view {
        var cView = vn_flow_view()
        cView.size = MemoryLayout<vn_flow_view>.size
        cView.state = view.state.rawValue
        cView.duration_s = view.duration
        cView.levels = memory.values(view.levels, count: &cView.level_count)
        cView.slide_to_cancel_alpha = view.slideToCancelAlpha
        cView.lock_padding = view.lockPadding
        cView.chevron_alpha = view.chevronAlpha
        cView.tip_visible = view.tipVisible ? 1 : 0
        cView.preview_position_s = view.previewPosition
        cView.preview_playing = view.previewPlaying ? 1 : 0
        cView.waveform = memory.values(view.waveform, count: &cView.waveform_count)
        cView.trim_start_s = view.trimStart
        cView.trim_end_s = view.trimEnd
        cView.toggled = view.toggled ? 1 : 0
        cView.accessible_description = memory.string(view.accessibleDescription)
        return cView
    }
}
