import CVoiceNote
import VoiceNoteCore

/// The object behind a `vn_focus_group *`.
final class FocusGroupHandle: Sendable {
    let group = FocusGroup()
}

@c @implementation public func vn_focus_group_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        try required(out, "out").pointee = Handles.make(FocusGroupHandle())
    }
}

@c @implementation public func vn_focus_group_destroy(_ group: OpaquePointer?) {
    _ = Handles.remove(group, as: FocusGroupHandle.self)
}

/// The focus group a C handle names: the process's default group for NULL.
func focusGroup(for handle: OpaquePointer?) throws(VoiceNoteError) -> FocusGroup {
    guard handle != nil else { return .shared }
    return try Handles.get(handle, as: FocusGroupHandle.self, "group").group
}
