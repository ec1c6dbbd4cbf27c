import CVoiceNote
import VoiceNoteCore

@c @implementation public func vn_version_number() -> Int32 {
    Int32(Version.number)
}

@c @implementation public func vn_version_string() -> UnsafePointer<CChar>? {
    cString(Version.string)
}
