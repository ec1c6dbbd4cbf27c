import CVoiceNote
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteDesktop
import VoiceNoteRecorder

@c @implementation public func vn_recorder_create(_ options: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(out, "out")
        let value = try RecorderOptionsHandle.value(of: options, or: RecorderOptions())
        let recorder = try Recorder(configuration: value.configuration, dispatcher: value.dispatcher)
        if value.pausesOtherPlayers {
            do throws(VoiceNoteError) {
                RecorderFollowers.add(try OtherPlayersFollower.recorder(recorder), for: recorder)
            } catch {
                recorder.close()
                throw error
            }
        }
        out.pointee = Handles.make(recorder)
    }
}

@c @implementation public func vn_recorder_destroy(_ recorder: OpaquePointer?) {
    guard let recorder = Handles.remove(recorder, as: Recorder.self) else { return }
    RecorderFollowers.remove(for: recorder)
    recorder.close()
}

/// The followers that pause the desktop's other players during a recorder's takes, by recorder (the handle is the
/// recorder itself, shared with the flows made over it).
enum RecorderFollowers {
    private static let followers = Locked<[ObjectIdentifier: OtherPlayersFollower]>([:])

    static func add(_ follower: OtherPlayersFollower, for recorder: Recorder) {
        followers.withLock { $0[ObjectIdentifier(recorder)] = follower }
    }

    /// Stops following `recorder` (the others resume if its take held them).
    static func remove(for recorder: Recorder) {
        followers.withLock { $0.removeValue(forKey: ObjectIdentifier(recorder)) }?.close()
    }
}

/// Runs a control call on the recorder behind a handle.
private func control(_ recorder: OpaquePointer?, _ action: (Recorder) throws(VoiceNoteError) -> Void) -> Int32 {
    abiCall { () throws(VoiceNoteError) in try action(try Handles.get(recorder, as: Recorder.self, "recorder")) }
}

@c @implementation public func vn_recorder_begin(_ recorder: OpaquePointer?) -> Int32 { control(recorder) { (r) throws(VoiceNoteError) in try r.begin() } }
@c @implementation public func vn_recorder_pause(_ recorder: OpaquePointer?) -> Int32 { control(recorder) { (r) throws(VoiceNoteError) in try r.pause() } }
@c @implementation public func vn_recorder_resume(_ recorder: OpaquePointer?) -> Int32 { control(recorder) { (r) throws(VoiceNoteError) in try r.resume() } }
@c @implementation public func vn_recorder_stop(_ recorder: OpaquePointer?) -> Int32 { control(recorder) { (r) throws(VoiceNoteError) in try r.stop() } }
@c @implementation public func vn_recorder_cancel(_ recorder: OpaquePointer?) -> Int32 { control(recorder) { (r) throws(VoiceNoteError) in try r.cancel() } }

@c @implementation public func vn_recorder_set_voice_cleanup(_ recorder: OpaquePointer?, _ enabled: Int32) -> Int32 {
    control(recorder) { (r) throws(VoiceNoteError) in try r.setVoiceCleanup(try flag(enabled, "enabled")) }
}

@c @implementation public func vn_recorder_get_voice_cleanup(_ recorder: OpaquePointer?, _ outEnabled: UnsafeMutablePointer<Int32>?) -> Int32 {
    control(recorder) { (r) throws(VoiceNoteError) in try required(outEnabled, "out_enabled").pointee = r.cleansVoice ? 1 : 0 }
}

@c @implementation public func vn_recorder_subscribe(
    _ recorder: OpaquePointer?, _ callback: vn_recorder_event_fn?, _ userData: UnsafeMutableRawPointer?,
    _ release: vn_release_fn?, _ outId: UnsafeMutablePointer<vn_subscription_id>?
) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let recorder = try Handles.get(recorder, as: Recorder.self, "recorder")
        try subscribeC(recorder.events, callback, userData, release, outId) { event, subscriber in
            event.withCEvent { subscriber.function(subscriber.userData, $0) }
        }
    }
}

@c @implementation public func vn_recorder_get_context(_ recorder: OpaquePointer?, _ context: UnsafeMutablePointer<vn_recorder_context>?) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        let recorder = try Handles.get(recorder, as: Recorder.self, "recorder")
        let context = try required(context, "context")
        guard context.pointee.size >= MemoryLayout<vn_recorder_context>.size else {
            throw VoiceNoteError(.invalidArgument, "context->size is \(context.pointee.size); set it to sizeof(vn_recorder_context)")
        }
        context.pointee = cContext(recorder.context, path: nil)
    }
}

@c @implementation public func vn_recorder_copy_path(_ recorder: OpaquePointer?, _ outPath: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outPath?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        let recorder = try Handles.get(recorder, as: Recorder.self, "recorder")
        let outPath = try required(outPath, "out_path")
        outPath.pointee = try ownedCString(recorder.context.path)
    }
}

@c @implementation public func vn_recorder_levels(
    _ recorder: OpaquePointer?, _ count: Int, _ out: UnsafeMutablePointer<Float>?, _ capacity: Int,
    _ written: UnsafeMutablePointer<Int>?
) -> Int32 {
    written?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        let recorder = try Handles.get(recorder, as: Recorder.self, "recorder")
        if count > 0 { _ = try required(out, "out") }  // whether or not there are levels yet
        guard count >= 0, room(capacity) >= count else {
            throw VoiceNoteError(.invalidArgument, "capacity \(UInt(bitPattern: capacity)) is less than count \(UInt(bitPattern: count))")
        }
        try deliver(recorder.levels(last: count), into: out, capacity: capacity, count: written)
    }
}

@c @implementation public func vn_recover(
    _ directory: UnsafePointer<CChar>?, _ callback: vn_recovered_fn?, _ userData: UnsafeMutableRawPointer?,
    _ recovered: UnsafeMutablePointer<Int>?
) -> Int32 {
    recovered?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        let path = try directory.map { (text) throws(VoiceNoteError) in try utf8String(text, "directory") }
            ?? RecorderConfiguration().directory
        let outcome = try Recorder.recover(directory: path)
        for file in outcome.recovered {
            file.path.withCString { callback?(userData, $0, file.duration, file.size, VN_OK.rawValue) }
        }
        for failure in outcome.failed {
            failure.path.withCString { callback?(userData, $0, 0, 0, failure.error.status.rawValue) }
        }
        recovered?.pointee = outcome.recovered.count
    }
}

/// The C context for a Swift one; `path` must outlive the use of the result.
func cContext(_ context: RecorderContext, path: UnsafePointer<CChar>?) -> vn_recorder_context {
    vn_recorder_context(size: MemoryLayout<vn_recorder_context>.size, state: context.state.rawValue,
                        duration_s: context.duration, average_power: context.averagePower, peak_power: context.peakPower,
                        overruns: Int64(context.overruns), path: path)
}

extension RecorderEvent: CEventConvertible {
    func fill(_ cEvent: inout vn_recorder_event, _ memory: CEventMemory) {
        switch self {
        case .context(let context):
            cEvent.type = Int32(VN_RECORDER_EVENT_CONTEXT.rawValue)
            cEvent.context = cContext(context, path: memory.string(context.path))
        case .finished(let result):
            cEvent.type = Int32(VN_RECORDER_EVENT_FINISHED.rawValue)
            cEvent.duration_s = result.duration
            cEvent.size_bytes = result.size
            cEvent.format = Int32(result.format == .opus ? VN_FORMAT_OPUS.rawValue : VN_FORMAT_AAC.rawValue)
            cEvent.path = memory.string(result.path)
            cEvent.waveform = memory.values(result.waveform, count: &cEvent.waveform_count)
            cEvent.loudness = vn_loudness(result.loudness)
        case .failed(let error):
            cEvent.type = Int32(VN_RECORDER_EVENT_FAILED.rawValue)
            memory.failure(error, status: &cEvent.status, message: &cEvent.message)
        case .maximumDurationWarning(let remaining):
            cEvent.type = Int32(VN_RECORDER_EVENT_MAX_DURATION_WARNING.rawValue)
            cEvent.remaining_s = remaining
        case .maximumDurationReached:
            cEvent.type = Int32(VN_RECORDER_EVENT_MAX_DURATION_REACHED.rawValue)
        case .tooShort(let duration):
            cEvent.type = Int32(VN_RECORDER_EVENT_TOO_SHORT.rawValue)
            cEvent.duration_s = duration
        case .sourceChanged(let device, let lost):
            cEvent.type = Int32(VN_RECORDER_EVENT_SOURCE_CHANGED.rawValue)
            cEvent.device = memory.string(device)
            memory.failure(lost, status: &cEvent.status, message: &cEvent.message)
        }
    }
}
