import VoiceNoteCore

/// A speech recogniser behind one interface: PocketSphinx (`PocketSphinxBackend`), or whatever a host plugs in
/// through the C API (whisper.cpp, a server). A transcription asks it for a session per note and feeds the session
/// the note's speech, mono 16-bit PCM at `sampleRate`, in pieces; the session answers with the words it is sure of
/// so far, so the first words show before the note is read to its end.
public protocol TranscriptionBackend: Sendable {
    /// Names the recogniser and its model (`pocketsphinx/en-us`): transcripts are kept under it, so one made by
    /// another recogniser or model is never served for this one.
    var identity: String { get }
    /// The rate the session takes, in Hz (8000…48000).
    var sampleRate: Int { get }
    /// Begins a note. Runs on the transcription's thread.
    func begin() throws(VoiceNoteError) -> any TranscriptionSession
    /// Whether its sessions take turns (`RecognitionSlots`: one per CPU in the process): true for a recogniser that
    /// loads a large model and computes on this machine; false (the default) for a host's, which knows its own limits.
    var takesTurns: Bool { get }
}

extension TranscriptionBackend {
    public var takesTurns: Bool { false }
}

/// One note's recognition: fed in order, then finished once. Used by one thread at a time.
public protocol TranscriptionSession: AnyObject {
    /// Takes the next samples (mono, the backend's rate) and returns the words recognised since the last answer,
    /// their times from the note's start.
    func feed(_ samples: UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> [TranscriptWord]
    /// Says the note has ended and returns its last words.
    func finish() throws(VoiceNoteError) -> [TranscriptWord]
}
