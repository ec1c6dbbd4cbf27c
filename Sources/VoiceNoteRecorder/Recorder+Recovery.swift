import VoiceNoteCodec
import VoiceNoteCore

extension Recorder {
    /// Finishes the takes a crash left in `directory` (`*.ogg.part`, `*.aac.part`): every whole page or frame is
    /// kept and the file renamed. `.notFound` when the directory does not exist.
    public static func recover(directory: String) throws(VoiceNoteError)
        -> (recovered: [RecoveredRecording], failed: [(path: String, error: VoiceNoteError)]) {
        _ = try FileSystem.entries(of: directory)
        return RecordingRecovery.recoverDirectory(directory)
    }
}
