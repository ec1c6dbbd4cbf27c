import CVoiceNote
import VoiceNoteCore

@c @implementation public func vn_manual_clock_create(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    out?.pointee = nil
    return abiCall { () throws(VoiceNoteError) in
        try required(out, "out").pointee = Handles.make(ManualClock())
    }
}

@c @implementation public func vn_manual_clock_advance(_ clock: OpaquePointer?, _ seconds: Double) -> Int32 {
    abiCall { () throws(VoiceNoteError) in
        try Handles.get(clock, as: ManualClock.self, "clock").advance(seconds)
    }
}

@c @implementation public func vn_manual_clock_destroy(_ clock: OpaquePointer?) {
    _ = Handles.remove(clock, as: ManualClock.self)
}
