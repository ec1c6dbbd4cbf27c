#if canImport(Glibc)
import Glibc
#endif
import CVoiceNote
import VoiceNoteCore

@c @implementation public func vn_free(_ memory: UnsafeMutableRawPointer?) {
    free(memory)
}

/// Copies `text` into a malloc'ed C string that the caller frees with `vn_free`.
func ownedCString(_ text: String) throws(VoiceNoteError) -> UnsafeMutablePointer<CChar> {
    guard let copy = strdup(text) else { throw VoiceNoteError(.noMemory, "strdup failed") }
    return copy
}
