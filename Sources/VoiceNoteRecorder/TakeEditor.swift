import VoiceNoteAttachments
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteWaveform

/// Editing a finished take, and reading one back: cutting it to a range (by content: Ogg Opus without re-encoding,
/// AAC re-encoded), its waveform at any number of values, its `voiceRecording` payload. Slow work (a long AAC take
/// decodes for seconds): callers run it off any thread a user waits on, and stop it with a `CancellationFlag`.
public enum TakeEditor {
    /// Cuts the take at `path` to seconds `start ..< end` of its audio and reads it back: an Ogg Opus take is cut
    /// sample-exact without re-encoding (`OpusTrim`), an AAC one decoded and encoded again at `bitrate` (`AACTrim`).
    /// The file is replaced only once the new one is whole. - Returns: the take as rewritten, with `samples` waveform
    /// values. - Throws: the trims' statuses (`.invalidArgument` for a range outside the take, `.format`, file
    /// statuses); `.cancelled` once `cancellation` is set — the file is then as it was, unless the cut was already
    /// renamed into place (the new file is whole either way).
    public static func trim(_ path: String, start: Double, end: Double, bitrate: Int, samples: Int,
                            cancellation: CancellationFlag? = nil) throws(VoiceNoteError) -> RecordedTake {
        let seconds: Double
        if try Decoders.info(of: FileSource(path: path)).codec == "opus" {
            seconds = Double(try OpusTrim.trim(path, start: start, end: end, cancellation: cancellation)) / 48_000
        } else {
            seconds = try AACTrim.trim(path, start: start, end: end, bitrate: bitrate, cancellation: cancellation)
        }
        return try readBack(path, seconds: seconds, samples: samples, cancellation: cancellation)
    }

    /// A take read back from its file (trimmed, or a restored draft): `samples` waveform values and its payload (the
    /// payload's own 100 values). The file is decoded once when `samples` is the payload's 100, else twice.
    /// `seconds` nil: the length as the file states it. - Throws: file and decoder statuses; `.cancelled`.
    public static func readBack(_ path: String, seconds: Double? = nil, samples: Int,
                                cancellation: CancellationFlag? = nil) throws(VoiceNoteError) -> RecordedTake {
        let duration: Double
        if let seconds { duration = seconds } else { duration = try Decoders.info(of: FileSource(path: path)).duration }
        let analysis = try WaveformAnalysis.analyse(FileSource(path: path), samples: samples, cancellation: cancellation)
        let waveform = analysis.values
        var payloadWaveform: [Float]? = waveform.count == Waveform.defaultSampleCount ? waveform : nil
        if payloadWaveform == nil {
            // The loudness came with the first pass: this one only draws.
            payloadWaveform = try WaveformAnalysis.analyse(FileSource(path: path), loudness: false,
                                                           cancellation: cancellation).values
        }
        let payload = try VoiceRecordingPayload.fromRecording(path: path, duration: duration, waveform: payloadWaveform,
                                                              loudness: analysis.loudness)
        return RecordedTake(path: path, duration: duration, waveform: waveform, payloadJSON: payload.json())
    }

    /// A take the recorder just finished, with `samples` waveform values (the recorder's 100, or the file's when
    /// another count is asked for) and its payload (the recorder's duration and 100 values). A file that cannot be
    /// read back keeps the recorder's values and an empty payload.
    public static func describe(_ result: RecordingResult, samples: Int) -> RecordedTake {
        var waveform = result.waveform
        if waveform.count != samples, let source = try? FileSource(path: result.path),
           let values = try? WaveformAnalysis.waveform(of: source, samples: samples) {
            waveform = values
        }
        let payload = try? VoiceRecordingPayload.fromRecording(path: result.path, duration: result.duration, waveform: result.waveform,
                                                               loudness: result.loudness)
        return RecordedTake(path: result.path, duration: result.duration, waveform: waveform, payloadJSON: payload?.json() ?? "")
    }
}
