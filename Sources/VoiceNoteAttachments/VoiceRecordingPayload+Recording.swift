import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteWaveform

extension VoiceRecordingPayload {
    /// The payload of a finished recording before upload: `title` the file name, `asset_url` its `file://` URL,
    /// `file_size` from disk, `mime_type` from the extension, and the duration, 100-value waveform and loudness
    /// given (the recorder's `finished` data) or, when the waveform is nil, read from the file in one pass (the
    /// loudness in the extra data, `loudnessKey`). - Throws: `.notFound` and the other file statuses, and the
    /// decoder's when the file is not audio.
    public static func fromRecording(path: String, duration: Double? = nil, waveform: [Float]? = nil,
                                     loudness: Loudness? = nil) throws(VoiceNoteError) -> VoiceRecordingPayload {
        // FileSource refuses a directory or a FIFO (a recording is a regular file) and gives the size.
        let size = try FileSource(path: path).size ?? 0
        var seconds = duration
        if seconds == nil { seconds = try Decoders.info(of: FileSource(path: path)).duration }
        var levels = waveform
        var measured = loudness
        if levels == nil {
            let analysis = try WaveformAnalysis.analyse(FileSource(path: path), samples: Waveform.defaultSampleCount)
            levels = analysis.values
            measured = measured ?? analysis.loudness
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        var payload = try VoiceRecordingPayload(assetURL: FileURL.make(path: path), title: name, fileSize: size,
                                                mimeType: MIMEType(fileName: path).rawValue, duration: seconds,
                                                waveform: levels?.map(Self.shortest))
        payload.setLoudness(measured)
        return payload
    }

    /// A level as the Double that prints like the Float (0.1 rather than 0.10000000149011612), as Stream's
    /// encoder writes its Float waveform; a non-finite level stays non-finite, which the payload refuses.
    private static func shortest(_ level: Float) -> Double {
        level.isFinite ? Double(level.description) ?? Double(level) : Double(level)
    }
}
