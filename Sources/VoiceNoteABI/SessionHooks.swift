import CVoiceNote
import VoiceNoteCore

/// Session hooks calling the host's C functions.
func sessionHooks(_ activate: vn_session_activate_fn?, _ deactivate: vn_session_deactivate_fn?,
                  _ userData: UnsafeMutableRawPointer?) -> SessionHooks {
    let context = UnsafeSendablePointer(userData)
    var hooks = SessionHooks()
    if let activate {
        hooks.activate = { kind in activate(context.pointer, kind.rawValue) != 0 }
    }
    if let deactivate {
        hooks.deactivate = { kind in deactivate(context.pointer, kind.rawValue) }
    }
    return hooks
}
