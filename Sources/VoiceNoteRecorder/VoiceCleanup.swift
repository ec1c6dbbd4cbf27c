import CSpeexDSPLoader
import VoiceNoteCore

/// Voice cleanup on the capture path (docs/recorder.md, "Voice cleanup"), between the capture ring and the encoder:
/// a high-pass against rumble, then speexdsp's preprocessor (noise suppression and automatic gain), one channel at a
/// time in 10 ms frames. The meter, the waveform, the loudness and the file all get the cleaned signal.
///
/// The preprocessor's overlap-add answers each frame one frame late; the first frame out is dropped and `drain`
/// pushes the last one through, so the cleaned take has exactly the captured frame count and no added delay. Used by
/// the encoder thread, or by the controlling thread after joining it: one thread at a time (as `Take`).
final class VoiceCleanup {
    /// The high-pass cutoff: below the voice's fundamental (about 85 Hz for a deep voice), above a fan's and a
    /// desk's rumble; WebRTC's audio processing uses the same.
    static let highPassHertz = 80.0
    /// The most noise suppression may take off, in dB (speexdsp's default is −15): measured on pink, fan and babble
    /// noise, −60 takes 4 dB more off noise-only stretches than −40 with the same speech quality (PESQ, STOI).
    static let noiseSuppressionDecibels: Int32 = -60
    /// The level the automatic gain brings speech to, in speexdsp's units (16-bit amplitude): a voice at −26 dBFS
    /// (ITU-T P.56's nominal active speech level) stays within 2 dB of it, one at −45 dBFS is raised to it.
    static let gainLevel: Float = 12_000
    /// The most the automatic gain raises a quiet voice, in dB: enough for −45 dBFS speech (+19 dB), and less than
    /// speexdsp's default 30, which the gain climbs to over a silent start and then takes a voice's first syllable
    /// to full scale.
    static let maximumGainDecibels: Int32 = 24
    /// How fast the gain may fall, in dB per second (speexdsp's default is −40): a voice that begins loud after a
    /// quiet start is brought down within its first 50 ms instead of clipping (measured: the first syllable's peak
    /// after 2 s of a fan went from −0.2 to −6.8 dBFS, the speech's level unchanged).
    static let gainDecrementDecibelsPerSecond: Int32 = -200

    let channels: Int
    /// Frames per preprocessor frame: 10 ms.
    let frameLength: Int
    let sampleRate: Int
    private var states: [OpaquePointer]
    private var filters: [HighPassFilter]
    /// One preprocessor frame of interleaved input being gathered, then cleaned in place.
    private var frame: [Int16]
    private var gathered = 0
    /// One channel of `frame`, for the preprocessor (several channels only).
    private var channelFrame: [Int16]
    /// Cleaned frames still to drop: the preprocessor's one-frame delay (again after each drain).
    private var toDrop: Int
    /// Frames taken in and handed out since the last drain.
    private var framesIn: Int64 = 0
    private var framesOut: Int64 = 0

    /// Cleanup for `channels` channels at `sampleRate`. Loads speexdsp on first use.
    /// - Throws: `.unsupported` naming the missing library when speexdsp cannot be loaded; `.invalidArgument` for a
    ///   rate below 8 kHz (no 10 ms frame the preprocessor can work on).
    init(sampleRate: Int, channels: Int) throws(VoiceNoteError) {
        try Self.requireLibrary()
        guard sampleRate >= 8_000, sampleRate <= 384_000, (1...32).contains(channels) else {
            throw VoiceNoteError(.invalidArgument, "voice cleanup needs 8…384 kHz and 1…32 channels, not \(sampleRate) Hz × \(channels)")
        }
        self.sampleRate = sampleRate
        self.channels = channels
        frameLength = sampleRate / 100
        frame = [Int16](repeating: 0, count: frameLength * channels)
        channelFrame = [Int16](repeating: 0, count: channels > 1 ? frameLength : 0)
        toDrop = frameLength
        filters = Array(repeating: HighPassFilter(cutoff: Self.highPassHertz, sampleRate: sampleRate), count: channels)
        states = []
        for _ in 0..<channels {
            guard let state = speex_preprocess_state_init(Int32(frameLength), Int32(sampleRate)) else {
                states.forEach { speex_preprocess_state_destroy($0) }
                throw VoiceNoteError(.noMemory, "speexdsp could not make a preprocessor")
            }
            Self.configure(state)
            states.append(state)
        }
    }

    deinit { states.forEach { speex_preprocess_state_destroy($0) } }

    /// Loads speexdsp (once per process); `.unsupported` naming what to install when it cannot be.
    static func requireLibrary() throws(VoiceNoteError) {
        var message: UnsafePointer<CChar>?
        guard vnshim_speexdsp_load(&message) == 0 else {
            throw VoiceNoteError(.unsupported, "voice cleanup needs speexdsp (Debian: libspeexdsp1): "
                                 + (message.map { String(cString: $0) } ?? "it could not be loaded"))
        }
    }

    private static func configure(_ state: OpaquePointer) {
        var on: Int32 = 1, off: Int32 = 0
        var suppression = noiseSuppressionDecibels, maximumGain = maximumGainDecibels
        var decrement = gainDecrementDecibelsPerSecond
        var level = gainLevel
        _ = speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DENOISE, &on)
        _ = speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &suppression)
        _ = speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC, &on)
        _ = speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC_LEVEL, &level)
        _ = speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC_MAX_GAIN, &maximumGain)
        _ = speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_AGC_DECREMENT, &decrement)
        // Dereverberation smears consonants on a close microphone and costs a third more; off (speexdsp's default).
        _ = speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_DEREVERB, &off)
    }

    /// Cleans interleaved `input`, handing cleaned interleaved samples to `output` as whole preprocessor frames
    /// become ready (possibly none, possibly several calls).
    func process(_ input: UnsafeBufferPointer<Int16>, output: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void)
        throws(VoiceNoteError) {
        let frames = input.count / channels
        framesIn += Int64(frames)
        var taken = 0
        while taken < frames {
            let count = min(frameLength - gathered, frames - taken)
            frame.withUnsafeMutableBufferPointer { destination in
                for index in 0..<(count * channels) {
                    destination[gathered * channels + index] = input[taken * channels + index]
                }
            }
            gathered += count
            taken += count
            if gathered == frameLength { try cleanFrame(output: output) }
        }
    }

    /// Hands out everything taken in and not yet out (the gathered part-frame and the preprocessor's delayed frame,
    /// pushed through with silence), so the output so far is exactly as long as the input; the noise estimate and
    /// the gain are kept for what comes next. At a pause and at the end of a take.
    func drain(output: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        while framesOut < framesIn {
            frame.withUnsafeMutableBufferPointer { samples in
                for index in (gathered * channels)..<samples.count { samples[index] = 0 }
            }
            try cleanFrame(output: output)
        }
        startOver()
    }

    /// Forgets the audio held for output (a part-frame, the delayed frame) but keeps the noise estimate and the gain:
    /// for the next take after one that ended without a drain (cancelled, a failed write).
    func startOver() {
        framesIn = 0
        framesOut = 0
        toDrop = frameLength
        gathered = 0
    }

    /// Cleans the gathered frame (zero-padded past `gathered` when draining) and hands out what is due of it.
    private func cleanFrame(output: (UnsafeBufferPointer<Int16>) throws(VoiceNoteError) -> Void) throws(VoiceNoteError) {
        gathered = 0
        let channels = self.channels, frameLength = self.frameLength
        frame.withUnsafeMutableBufferPointer { samples in
            guard let base = samples.baseAddress else { return }
            if channels == 1 {
                filters[0].process(base, count: frameLength, stride: 1)
                _ = speex_preprocess_run(states[0], base)
                return
            }
            channelFrame.withUnsafeMutableBufferPointer { mono in
                for channel in 0..<channels {
                    filters[channel].process(base + channel, count: frameLength, stride: channels)
                    for index in 0..<frameLength { mono[index] = samples[index * channels + channel] }
                    _ = speex_preprocess_run(states[channel], mono.baseAddress)
                    for index in 0..<frameLength { samples[index * channels + channel] = mono[index] }
                }
            }
        }
        let dropped = min(toDrop, frameLength)
        toDrop -= dropped
        let due = Int(min(Int64(frameLength - dropped), framesIn - framesOut))
        guard due > 0 else { return }
        framesOut += Int64(due)
        try frame.withUnsafeBufferPointer { samples throws(VoiceNoteError) in
            try output(UnsafeBufferPointer(rebasing: samples[(dropped * channels)..<((dropped + due) * channels)]))
        }
    }
}
