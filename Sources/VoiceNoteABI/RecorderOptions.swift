import CVoiceNote
import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteRecorder

/// What a `vn_recorder_options *` holds: a configuration and the dispatcher for events.
struct RecorderOptions: Sendable {
    var configuration = RecorderConfiguration()
    var dispatcher: any EventDispatcher = EventThread.shared
    /// Whether the desktop's other players pause during takes.
    var pausesOtherPlayers = false
}

/// The handle type of `vn_recorder_options *`.
typealias RecorderOptionsHandle = OptionsHandle<RecorderOptions>

@c @implementation public func vn_recorder_options_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        try required(out, "out").pointee = Handles.make(RecorderOptionsHandle(RecorderOptions()))
    }
}

@c @implementation public func vn_recorder_options_destroy(_ options: OpaquePointer?) {
    _ = Handles.remove(options, as: RecorderOptionsHandle.self)
}

/// Applies one setter's change to the options behind a handle.
private func update(_ options: OpaquePointer?, _ change: (inout RecorderOptions) throws(VoiceNoteError) -> Void) -> Int32 {
    RecorderOptionsHandle.update(options, change)
}

@c @implementation public func vn_recorder_options_set_directory(_ options: OpaquePointer?, _ directory: UnsafePointer<CChar>?) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in value.configuration.directory = try nonEmptyString(directory, "directory") }
}

@c @implementation public func vn_recorder_options_set_device(
    _ options: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ configuration: UnsafePointer<CChar>?
) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in
        value.configuration.device = DeviceSelection(name: try nonEmptyString(name, "name"),
                                                     configuration: try configuration.map { (text) throws(VoiceNoteError) in try utf8String(text, "configuration") })
    }
}

@c @implementation public func vn_recorder_options_set_format(_ options: OpaquePointer?, _ format: Int32) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in value.configuration.format = try recordingFormat(format) }
}

@c @implementation public func vn_recorder_options_set_encoder(
    _ options: OpaquePointer?, _ bitrate: Int32, _ complexity: Int32, _ frameMs: Double
) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in
        value.configuration.encoder = try encoderSettings(bitrate, complexity, frameMs)
    }
}

/// The format a `vn_recording_format` names; `.invalidArgument` for any other number.
func recordingFormat(_ format: Int32) throws(VoiceNoteError) -> RecordingFormat {
    switch vn_recording_format(rawValue: UInt32(bitPattern: format)) {
    case VN_FORMAT_OPUS: .opus
    case VN_FORMAT_AAC: .aac
    default: throw VoiceNoteError(.invalidArgument, "unknown recording format \(format)")
    }
}

/// Encoder settings from a setter's arguments, checked (`.invalidArgument` naming the allowed values).
func encoderSettings(_ bitrate: Int32, _ complexity: Int32, _ frameMs: Double) throws(VoiceNoteError) -> EncoderSettings {
    let settings = EncoderSettings(bitrate: Int(bitrate), complexity: Int(complexity), frameMilliseconds: frameMs)
    try settings.check()
    return settings
}

@c @implementation public func vn_recorder_options_set_intervals(_ options: OpaquePointer?, _ meterS: Double, _ durationS: Double) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in
        var configuration = value.configuration
        configuration.meterInterval = meterS
        configuration.durationInterval = durationS
        try configuration.check()
        value.configuration = configuration
    }
}

@c @implementation public func vn_recorder_options_set_limits(
    _ options: OpaquePointer?, _ maximumS: Double, _ warningS: Double, _ minimumS: Double
) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in
        var configuration = value.configuration
        configuration.maximumDuration = maximumS
        configuration.maximumDurationWarning = warningS
        configuration.minimumDuration = minimumS
        try configuration.check()
        value.configuration = configuration
    }
}

@c @implementation public func vn_recorder_options_set_event_loop(_ options: OpaquePointer?, _ loop: OpaquePointer?) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in value.dispatcher = try dispatcher(for: loop) }
}

@c @implementation public func vn_recorder_options_set_focus_group(_ options: OpaquePointer?, _ group: OpaquePointer?) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in value.configuration.focusGroup = try focusGroup(for: group) }
}

@c @implementation public func vn_recorder_options_set_session_hooks(
    _ options: OpaquePointer?, _ activate: vn_session_activate_fn?, _ deactivate: vn_session_deactivate_fn?,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in value.configuration.sessionHooks = sessionHooks(activate, deactivate, userData) }
}

@c @implementation public func vn_recorder_options_set_fallback_device(
    _ options: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ configuration: UnsafePointer<CChar>?
) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in
        guard let name else { return value.configuration.fallbackDevice = nil }
        value.configuration.fallbackDevice = DeviceSelection(
            name: try nonEmptyString(name, "name"),
            configuration: try configuration.map { (text) throws(VoiceNoteError) in try utf8String(text, "configuration") })
    }
}

@c @implementation public func vn_recorder_options_set_stream_role(_ options: OpaquePointer?, _ role: UnsafePointer<CChar>?) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in value.configuration.device.role = try streamRole(role) }
}

@c @implementation public func vn_recorder_options_set_pause_other_players(_ options: OpaquePointer?, _ enabled: Int32) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in value.pausesOtherPlayers = try flag(enabled, "enabled") }
}

@c @implementation public func vn_recorder_options_set_voice_cleanup(_ options: OpaquePointer?, _ enabled: Int32) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in
        let on = try flag(enabled, "enabled")
        if on { try Recorder.requireVoiceCleanup() }
        value.configuration.voiceCleanup = on
    }
}
