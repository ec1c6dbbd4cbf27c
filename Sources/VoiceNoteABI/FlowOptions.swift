import CVoiceNote
import VoiceNoteCore
import VoiceNoteOutbox
import VoiceNoteFlow

/// What a `vn_flow_options *` holds: a configuration, the clock and the dispatcher for events.
struct FlowOptions: Sendable {
    var configuration = FlowConfiguration()
    var clock: any VoiceNoteClock = MonotonicClock.shared
    var dispatcher: any EventDispatcher = EventThread.shared
}

/// The handle type of `vn_flow_options *`.
typealias FlowOptionsHandle = OptionsHandle<FlowOptions>

@c @implementation public func vn_flow_options_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        try required(out, "out").pointee = Handles.make(FlowOptionsHandle(FlowOptions()))
    }
}

@c @implementation public func vn_flow_options_destroy(_ options: OpaquePointer?) {
    _ = Handles.remove(options, as: FlowOptionsHandle.self)
}

/// Applies one setter's change to the configuration behind a handle, checked as a whole.
private func configure(_ options: OpaquePointer?, _ change: (inout FlowConfiguration) throws(VoiceNoteError) -> Void) -> Int32 {
    FlowOptionsHandle.update(options) { (value) throws(VoiceNoteError) in
        try change(&value.configuration)
        try value.configuration.validate()
    }
}

@c @implementation public func vn_flow_options_set_distances(_ options: OpaquePointer?, _ slideToCancel: Double, _ lock: Double) -> Int32 {
    configure(options) { configuration in
        configuration.slideToCancelDistance = slideToCancel
        configuration.lockDistance = lock
    }
}

@c @implementation public func vn_flow_options_set_times(_ options: OpaquePointer?, _ minimumPressS: Double, _ hideTipS: Double) -> Int32 {
    configure(options) { configuration in
        configuration.minimumPressDuration = minimumPressS
        configuration.hideTipDelay = hideTipS
    }
}

@c @implementation public func vn_flow_options_set_waveform_samples(_ options: OpaquePointer?, _ samples: Int) -> Int32 {
    configure(options) { (configuration) throws(VoiceNoteError) in
        configuration.waveformSamples = try checkedCount(samples, "samples", atMost: 1_048_576)
    }
}

@c @implementation public func vn_flow_options_set_confirmation_required(_ options: OpaquePointer?, _ required: Int32) -> Int32 {
    configure(options) { $0.confirmationRequired = required != 0 }
}

@c @implementation public func vn_flow_options_set_toggle_mode(_ options: OpaquePointer?, _ enabled: Int32) -> Int32 {
    configure(options) { $0.toggleMode = enabled != 0 }
}

@c @implementation public func vn_flow_options_set_key_inputs(_ options: OpaquePointer?, _ enabled: Int32) -> Int32 {
    configure(options) { $0.keyInputs = enabled != 0 }
}

@c @implementation public func vn_flow_options_set_event_loop(_ options: OpaquePointer?, _ loop: OpaquePointer?) -> Int32 {
    FlowOptionsHandle.update(options) { (value) throws(VoiceNoteError) in value.dispatcher = try dispatcher(for: loop) }
}

@c @implementation public func vn_flow_options_set_clock(_ options: OpaquePointer?, _ clock: OpaquePointer?) -> Int32 {
    FlowOptionsHandle.update(options) { (value) throws(VoiceNoteError) in
        value.clock = clock == nil ? MonotonicClock.shared : try Handles.get(clock, as: ManualClock.self, "clock")
    }
}

@c @implementation public func vn_flow_options_set_uploader(_ options: OpaquePointer?, _ uploader: OpaquePointer?) -> Int32 {
    let handle: UploaderHandle?
    do throws(VoiceNoteError) {
        handle = try uploader.map { (pointer) throws(VoiceNoteError) in try Handles.get(pointer, as: UploaderHandle.self, "uploader") }
    } catch {
        return abiCall { () throws(VoiceNoteError) in throw error }
    }
    return configure(options) { configuration in configuration.uploader = handle?.uploader }
}

@c @implementation public func vn_flow_options_set_outbox(_ options: OpaquePointer?, _ outbox: OpaquePointer?) -> Int32 {
    let box: Outbox?
    do throws(VoiceNoteError) {
        box = try outbox.map { (pointer) throws(VoiceNoteError) in try Handles.get(pointer, as: Outbox.self, "outbox") }
    } catch {
        return abiCall { () throws(VoiceNoteError) in throw error }
    }
    return configure(options) { configuration in configuration.outbox = box }
}

@c @implementation public func vn_flow_options_set_draft(
    _ options: OpaquePointer?, _ key: UnsafePointer<CChar>?, _ directory: UnsafePointer<CChar>?
) -> Int32 {
    configure(options) { (configuration) throws(VoiceNoteError) in
        configuration.draftKey = try key.map { (text) throws(VoiceNoteError) in try utf8String(text, "key") }
        configuration.draftsDirectory = try directory.map { (text) throws(VoiceNoteError) in try nonEmptyString(text, "directory") }
    }
}
