import CShims
import VoiceNoteCore

/// Runs the body of a fallible C function: maps a thrown `VoiceNoteError` to its status and records its message
/// as this thread's last error. No Swift error crosses the C boundary.
func abiCall(_ body: () throws(VoiceNoteError) -> Void) -> Int32 {
    do {
        try body()
        return Status.ok.rawValue
    } catch {
        recordLastError(error)
        return error.status.rawValue
    }
}

/// Stores `error` as this thread's last error message (`vn_last_error_message`).
func recordLastError(_ error: VoiceNoteError) {
    error.message.withCString { vnshim_set_last_error($0) }
}
