import VoiceNoteCore
import VoiceNoteJSON
import VoiceNoteTranscript

extension VoiceRecordingPayload {
    /// The extra-data key of the note's transcript in a Stream payload (`Transcript.jsonValue`: the recogniser, the
    /// text and every word with its times), so a receiver without a recogniser reads the note and seeks to a word.
    public static let transcriptKey = "voicenote_transcript"

    /// The note's transcript from the extra data; nil when absent or not a well-formed transcript.
    public var transcript: Transcript? {
        Transcript(jsonValue: object[Self.transcriptKey])
    }

    /// Sets the transcript in the extra data (nil removes it), in place when it was there, else appended.
    /// - Throws: `.tooLarge` when the payload would pass its 1 MiB.
    public mutating func setTranscript(_ transcript: Transcript?) throws(VoiceNoteError) {
        var extra = extraData
        extra[Self.transcriptKey] = transcript?.jsonValue
        var changed = self
        try changed.setExtraData(extra)
        guard changed.json().utf8.count <= JSONLimits.payload.maximumBytes else {
            throw VoiceNoteError(.tooLarge, "the payload with its transcript would pass \(JSONLimits.payload.maximumBytes) bytes")
        }
        self = changed
    }
}
