import VoiceNoteCore

/// How long a stream is: one rule for info, the waveform and playback, whatever the format. A header's total or
/// a last granule position is only a claim; the packets are what can be played. A declared length longer than the
/// packets hold becomes what they hold (the sum of their durations), and a stream with no usable length is
/// `.format` (docs/errors.md: an absurd header value is a format error, not a week-long voice note).
enum StreamLength {
    /// The length to report and decode.
    /// - Parameters:
    ///   - declared: what the header or the last granule position says, nil when it says nothing; may be absurd,
    ///     zero or negative.
    ///   - held: the sum of the packets' durations, in the same unit.
    ///   - name: the source's name, for the message.
    /// - Returns: `min(declared, held)`, or `held` without a declaration; always > 0.
    /// - Throws: `.format` when that is not positive (no audio packets, or a declaration that leaves nothing).
    static func resolve(declared: Int64?, held: Int64, _ name: String) throws(VoiceNoteError) -> Int64 {
        let length = min(declared ?? held, held)
        guard length > 0 else {
            let why = held <= 0 ? "has no audio packets" : "declares a length of \(declared ?? 0), which leaves no audio"
            throw VoiceNoteError(.format, "\(name): the stream \(why)")
        }
        return length
    }
}
