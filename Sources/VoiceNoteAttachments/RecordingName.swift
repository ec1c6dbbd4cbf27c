import VoiceNoteCore

/// The display name of the n-th recording in a message being composed (Stream's `AudioRecordingNameFormatter`):
/// index 0 → "Recording", index n ≥ 1 → "Recording(n)".
public enum RecordingName {
    /// The name for `index`. - Throws: `.invalidArgument` for a negative index.
    public static func displayName(index: Int) throws(VoiceNoteError) -> String {
        guard index >= 0 else { throw VoiceNoteError(.invalidArgument, "a recording index is 0 or more, not \(index)") }
        return index == 0 ? "Recording" : "Recording(\(index))"
    }
}
