import VoiceNoteAudio
import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteWaveform
import VoiceNoteSources

/// One take: its file, encoder and analysis. Touched by one thread at a time: the encoder thread while capturing,
/// the controlling thread after joining it (pause, stop), never both.
final class Take: @unchecked Sendable {
    /// Why the encoder thread ended a take by itself.
    enum AutomaticEnd {
        case maximumDurationReached
        case deviceLost(VoiceNoteError)
        case encoderFailed(VoiceNoteError)
    }

    let partPath: String
    let finalPath: String
    let format: RecordingFormat
    let rate: Int
    let channels: Int
    let encoder: any RecordingEncoder
    /// The bytes written, and the upload sending them as they are (`Recorder.streamTake`).
    let output: TakeOutput
    private(set) var frames: Int64 = 0
    private var meter: LevelMeter
    /// The waveform algorithm on the captured PCM, only when the written bytes cannot be analysed as they are written.
    private var blocks: BlockDecibelAccumulator?
    /// The waveform algorithm on the bytes as written: the waveform of the take.
    private let encodedWaveform: EncodedTakeWaveform?
    /// The take's loudness, measured on the captured PCM as it is encoded (nil only if libebur128 had no memory).
    private let loudnessMeter: LoudnessMeter?
    /// Voice cleanup between the capture and everything else, when the recorder has it on (nil: the captured
    /// samples are encoded as they are, bit for bit).
    let cleanup: VoiceCleanup?
    /// Frames after which the take stops (0: no limit).
    let maximumFrames: Int64
    private let warningFrames: Int64
    private let durationStepFrames: Int64
    private var nextDurationStep: Int64
    private(set) var warned = false
    /// The last meter reading, as 0…1 powers.
    private(set) var averagePower: Float = 0
    private(set) var peakPower: Float = 0
    /// Average powers of meter steps not yet handed to the recorder's live levels.
    var pendingLevels: [Float] = []
    /// Set by the encoder thread when it ended the take by itself, read by whoever finishes it.
    var automaticEnd: AutomaticEnd?
    /// How many times the encoder thread moved the take to the fallback source (its thread's alone).
    var sourceSwitches = 0

    /// A take cleaned by `cleanup` (nil: not cleaned), which must be for `rate` and `channels`.
    init(directory: String, configuration: RecorderConfiguration, rate: Int, channels: Int,
         cleanup: VoiceCleanup?) throws(VoiceNoteError) {
        self.cleanup = cleanup
        let name = randomUUIDString() + "." + configuration.format.fileExtension
        finalPath = directory + "/" + name
        partPath = finalPath + ".part"
        format = configuration.format
        self.rate = rate
        self.channels = channels
        let encodedWaveform = EncodedTakeWaveform(format: configuration.format)
        self.encodedWaveform = encodedWaveform
        let output = TakeOutput()
        self.output = output
        encoder = try RecordingEncoders.create(configuration.format, path: partPath, inputRate: rate, channels: channels,
                                               settings: configuration.encoder,
                                               onWritten: { bytes in
                                                   encodedWaveform?.feed(bytes)
                                                   output.appended(bytes.count)
                                               })
        loudnessMeter = try? LoudnessMeter(sampleRate: rate, channels: channels)
        let meterFrames = max(1, Int((configuration.meterInterval * Double(rate)).rounded()))
        do {
            meter = try LevelMeter(windowFrames: meterFrames, channels: channels)
            blocks = encodedWaveform == nil ? try BlockDecibelAccumulator(sampleRate: rate, channels: channels) : nil
        } catch {
            throw VoiceNoteError(.internal, "meter setup failed: \(error)")
        }
        // The configuration bounds every duration (`RecorderConfiguration.check`), so these frame counts fit; a
        // positive limit is at least one frame, never 0 ("no limit").
        maximumFrames = Self.frames(configuration.maximumDuration, rate: rate)
        warningFrames = max(0, maximumFrames - Self.frames(configuration.maximumDurationWarning, rate: rate))
        durationStepFrames = max(1, Int64((configuration.durationInterval * Double(rate)).rounded()))
        nextDurationStep = durationStepFrames
    }

    /// `seconds` as a frame count: 0 for 0, at least 1 for any positive duration.
    static func frames(_ seconds: Double, rate: Int) -> Int64 {
        guard seconds > 0 else { return 0 }
        return max(1, Int64((seconds * Double(rate)).rounded()))
    }

    /// Seconds captured.
    var duration: Double { Double(frames) / Double(rate) }

    /// What happened while consuming one chunk, for the encoder thread to report.
    struct Progress {
        var meterSteps = 0
        var durationSteps = 0
        var warningDue = false
        var reachedMaximum = false
    }

    /// Encodes, meters and accumulates captured samples (cleaned first when cleanup is on), stopping at the maximum
    /// frame count exactly.
    func consume(_ samples: UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Progress {
        var progress = Progress()
        var usable = samples.count / channels
        if maximumFrames > 0 { usable = Int(min(Int64(usable), maximumFrames - frames)) }
        guard usable > 0 else {
            progress.reachedMaximum = maximumFrames > 0 && frames >= maximumFrames
            return progress
        }
        let chunk = UnsafeBufferPointer(rebasing: samples[0..<(usable * channels)])
        if let cleanup {
            try cleanup.process(chunk) { (cleaned) throws(VoiceNoteError) in try keep(cleaned, progress: &progress) }
        } else {
            try keep(chunk, progress: &progress)
        }
        frames += Int64(usable)
        while frames >= nextDurationStep {
            progress.durationSteps += 1
            nextDurationStep += durationStepFrames
        }
        if maximumFrames > 0 {
            if !warned && warningFrames > 0 && frames >= warningFrames {
                warned = true
                progress.warningDue = true
            }
            progress.reachedMaximum = frames >= maximumFrames
        }
        return progress
    }

    /// Encodes, meters and accumulates samples on their way into the file.
    private func keep(_ chunk: UnsafeBufferPointer<Int16>, progress: inout Progress) throws(VoiceNoteError) {
        try encoder.write(chunk)
        meter.append(chunk) { reading in
            averagePower = reading.averagePower
            peakPower = reading.peakPower
            pendingLevels.append(reading.averagePower)
            progress.meterSteps += 1
        }
        blocks?.append(chunk)
        loudnessMeter?.append(chunk)
    }

    /// Sends the audio the cleanup still holds (its last 10 ms and a part-frame) into the file, so everything
    /// captured is encoded: before a pause's flush and before the encoder finishes. Nothing without cleanup.
    func drainCleanup() throws(VoiceNoteError) {
        guard let cleanup else { return }
        var progress = Progress()
        try cleanup.drain { (cleaned) throws(VoiceNoteError) in try keep(cleaned, progress: &progress) }
    }

    /// The take's 100-value waveform, after the encoder finished and before the file moves: from the bytes as
    /// written (what receivers compute from the file); if that analysis failed, from the file on disk, or from the
    /// captured PCM when there was no analysis at all.
    func waveform() -> [Float] {
        let silence = [Float](repeating: 0, count: Waveform.defaultSampleCount)
        if let encodedWaveform {
            if let values = encodedWaveform.finish() { return values }
            return (try? WaveformAnalysis.waveform(of: FileSource(path: partPath))) ?? silence
        }
        return (try? blocks?.waveform(samples: Waveform.defaultSampleCount)) ?? silence
    }

    /// The take's loudness: of the PCM captured and encoded (what the file holds, within the codec's error).
    var loudness: Loudness? { loudnessMeter?.loudness }
}

extension RecordingFormat {
    /// The file extension of finished takes.
    var fileExtension: String {
        switch self {
        case .opus: "ogg"
        case .aac: "aac"
        }
    }
}
