import CShims
import CVoiceNote
import VoiceNoteCore

@c @implementation public func vn_status_name(_ status: Int32) -> UnsafePointer<CChar>? {
    cString(Status(rawValue: status)?.name ?? "VN_E_UNKNOWN")
}

@c @implementation public func vn_strerror(_ status: Int32) -> UnsafePointer<CChar>? {
    cString(Status(rawValue: status)?.summary ?? "unknown status")
}

@c @implementation public func vn_last_error_message() -> UnsafePointer<CChar>? {
    vnshim_last_error()
}

/// A static string as a C string; StaticString literals are immortal and NUL-terminated.
func cString(_ text: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}
