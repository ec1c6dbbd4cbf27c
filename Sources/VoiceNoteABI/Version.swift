import CVoiceNote
import Glibc
import VoiceNoteCore

/// The version text as a C string made once and kept for the life of the process (never written after).
nonisolated(unsafe) private let versionText: UnsafePointer<CChar> = UnsafePointer(strdup(Version.string)!)

@c @implementation public func vn_version_number() -> Int32 {
    Int32(Version.number)
}

@c @implementation public func vn_version_string() -> UnsafePointer<CChar>? {
    versionText
}
