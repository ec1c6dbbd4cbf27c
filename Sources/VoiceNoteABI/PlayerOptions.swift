import CVoiceNote
import VoiceNoteAudio
import VoiceNoteCore
import VoiceNoteDesktop
import VoiceNoteNetwork
import VoiceNotePlayer

/// What a `vn_player_options *` holds: a configuration and the dispatcher for events.
struct PlayerOptions: Sendable {
    var configuration = PlayerConfiguration()
    var dispatcher: any EventDispatcher = EventThread.shared
    /// The player's MPRIS presence; nil for none.
    var mpris: MPRISIdentity?
    /// Whether the desktop's other players pause while it plays.
    var pausesOtherPlayers = false
}

/// The handle type of `vn_player_options *`.
typealias PlayerOptionsHandle = OptionsHandle<PlayerOptions>

@c @implementation public func vn_player_options_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        try required(out, "out").pointee = Handles.make(PlayerOptionsHandle(PlayerOptions()))
    }
}

@c @implementation public func vn_player_options_destroy(_ options: OpaquePointer?) {
    _ = Handles.remove(options, as: PlayerOptionsHandle.self)
}

/// Applies one setter's change to the options behind a handle.
private func update(_ options: OpaquePointer?, _ change: (inout PlayerOptions) throws(VoiceNoteError) -> Void) -> Int32 {
    PlayerOptionsHandle.update(options, change)
}

@c @implementation public func vn_player_options_set_device(
    _ options: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ configuration: UnsafePointer<CChar>?
) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in
        value.configuration.device = DeviceSelection(name: try nonEmptyString(name, "name"),
                                                     configuration: try configuration.map { (text) throws(VoiceNoteError) in try utf8String(text, "configuration") })
    }
}

@c @implementation public func vn_player_options_set_event_loop(_ options: OpaquePointer?, _ loop: OpaquePointer?) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in value.dispatcher = try dispatcher(for: loop) }
}

@c @implementation public func vn_player_options_set_focus_group(_ options: OpaquePointer?, _ group: OpaquePointer?) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in value.configuration.focusGroup = try focusGroup(for: group) }
}

@c @implementation public func vn_player_options_set_session_hooks(
    _ options: OpaquePointer?, _ activate: vn_session_activate_fn?, _ deactivate: vn_session_deactivate_fn?,
    _ userData: UnsafeMutableRawPointer?
) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in value.configuration.sessionHooks = sessionHooks(activate, deactivate, userData) }
}

@c @implementation public func vn_player_options_set_progress_interval(_ options: OpaquePointer?, _ intervalS: Double) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in
        var configuration = value.configuration
        configuration.progressInterval = intervalS
        try configuration.check()  // 0.01…10 seconds; NaN and infinities fail the range
        value.configuration = configuration
    }
}

@c @implementation public func vn_player_options_set_resume_limit(_ options: OpaquePointer?, _ count: Int) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in
        // Checked as a size_t before it becomes a Swift Int (SIZE_MAX arrives as -1).
        value.configuration.resumePositionLimit = try checkedCount(count, "count", atMost: 100_000)
    }
}

@c @implementation public func vn_player_options_set_remember_positions(_ options: OpaquePointer?, _ enabled: Int32) -> Int32 {
    update(options) { $0.configuration.resumeStore = enabled != 0 ? .shared : nil }
}

@c @implementation public func vn_player_options_set_mpris(
    _ options: OpaquePointer?, _ identity: UnsafePointer<CChar>?, _ desktopEntry: UnsafePointer<CChar>?
) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in
        guard let identity else { return value.mpris = nil }
        value.mpris = MPRISIdentity(identity: try nonEmptyString(identity, "identity"),
                                    desktopEntry: try desktopEntry.map { (text) throws(VoiceNoteError) in try utf8String(text, "desktop_entry") } ?? "")
    }
}

@c @implementation public func vn_player_options_set_stream_role(_ options: OpaquePointer?, _ role: UnsafePointer<CChar>?) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in value.configuration.device.role = try streamRole(role) }
}

@c @implementation public func vn_player_options_set_pause_other_players(_ options: OpaquePointer?, _ enabled: Int32) -> Int32 {
    update(options) { (value) throws(VoiceNoteError) in value.pausesOtherPlayers = try flag(enabled, "enabled") }
}

@c @implementation public func vn_player_options_set_return_to_interrupted(_ options: OpaquePointer?, _ enabled: Int32) -> Int32 {
    update(options) { $0.configuration.returnsToInterrupted = enabled != 0 }
}

@c @implementation public func vn_resume_position(
    _ location: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?, _ outSeconds: UnsafeMutablePointer<Double>?
) -> Int32 {
    outSeconds?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(outSeconds, "out_seconds")
        out.pointee = try ResumeStore.shared.position(of: storeLocation(location, key)) ?? 0
    }
}

@c @implementation public func vn_resume_positions_clear() -> Int32 {
    abiCall { () throws(VoiceNoteError) in try ResumeStore.shared.clear() }
}

/// The location a store call names: `location` loaded under `key` (or its own).
private func storeLocation(_ location: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?) throws(VoiceNoteError) -> PlayerLocation {
    let text = try nonEmptyString(location, "location")
    let key = try key.map { (text) throws(VoiceNoteError) in try nonEmptyString(text, "key") }
    return PlayerLocation(parsing: text, key: key)
}

@c @implementation public func vn_listened(
    _ location: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?, _ outListened: UnsafeMutablePointer<Int32>?
) -> Int32 {
    outListened?.pointee = 0
    return abiCall { () throws(VoiceNoteError) in
        let out = try required(outListened, "out_listened")
        out.pointee = try ResumeStore.shared.isListened(storeLocation(location, key)) ? 1 : 0
    }
}

@c @implementation public func vn_listened_set(_ location: UnsafePointer<CChar>?, _ key: UnsafePointer<CChar>?, _ listened: Int32) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        try ResumeStore.shared.setListened(listened != 0, for: storeLocation(location, key))
    }
}

@c @implementation public func vn_listened_clear() -> Int32 {
    abiCall { () throws(VoiceNoteError) in try ResumeStore.shared.clearListened() }
}
