import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources
import VoiceNoteWaveform

extension VoiceRecordingPayload {
    /// The payload of a finished recording before upload: `title` the file name, `asset_url` its `file://` URL,
    /// `file_size` from disk, `mime_type` from the extension, and the duration and 100-value waveform given (the
    /// recorder's `finished` data) or, when nil, read from the file. - Throws: `.notFound` and the other file
    /// statuses, and the decoder's when the file is not audio.
    public static func fromRecording(path: String, duration: Double? = nil, waveform: [Float]? = nil) throws(VoiceNoteError) -> VoiceRecordingPayload {
        // FileSource refuses a directory or a FIFO (a recording is a regular file) and gives the size.
        let size = try FileSource(path: path).size ?? 0
        var seconds = duration
        if seconds == nil { seconds = try Decoders.info(of: FileSource(path: path)).duration }
        var levels = waveform
        if levels == nil { levels = try WaveformAnalysis.waveform(of: FileSource(path: path), samples: Waveform.defaultSampleCount) }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return try VoiceRecordingPayload(assetURL: FileURL.make(path: path), title: name, fileSize: size,
                                         mimeType: MIMEType(fileName: path).rawValue, duration: seconds,
                                         waveform: levels?.map(Self.shortest))
    }

    /// A level as the Double that prints like the Float (0.1 rather than 0.10000000149011612), as Stream's
    /// encoder writes its Float waveform; a non-finite level stays non-finite, which the payload refuses.
    private static func shortest(_ level: Float) -> Double {
        level.isFinite ? Double(level.description) ?? Double(level) : Double(level)
    }
}
