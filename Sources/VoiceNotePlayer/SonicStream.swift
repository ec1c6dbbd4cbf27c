import CSonic
import VoiceNoteCore

/// The only libsonic caller. One `sonicStream` of interleaved int16 at a fixed sample rate and channel count, with
/// libsonic's pitch and volume left at 1: it changes speed with the pitch kept (`setSpeed`) or, for format
/// conversion, resamples (`setRate`). Written against Debian's libsonic 0.2, whose stream keeps fewer than
/// `maximumHeldFrames` input frames after each write.
final class SonicStream {
    private let stream: OpaquePointer
    /// Channels per interleaved frame.
    let channels: Int
    /// After a write, libsonic holds fewer input frames than this: twice its longest pitch period (65 Hz).
    let maximumHeldFrames: Int

    /// `.noMemory` when libsonic cannot allocate the stream.
    init(sampleRate: Int, channels: Int) throws(VoiceNoteError) {
        guard let stream = sonicCreateStream(Int32(sampleRate), Int32(channels)) else {
            throw VoiceNoteError(.noMemory, "libsonic could not allocate a stream of \(channels) channels at \(sampleRate) Hz")
        }
        sonicSetPitch(stream, 1)
        sonicSetRate(stream, 1)
        sonicSetVolume(stream, 1)
        self.stream = stream
        self.channels = channels
        maximumHeldFrames = 2 * (sampleRate / Int(SONIC_MIN_PITCH))
    }

    deinit {
        sonicDestroyStream(stream)
    }

    /// Sets the speed for the input libsonic processes from now on (what it holds included).
    func setSpeed(_ speed: Double) {
        sonicSetSpeed(stream, Float(speed))
    }

    /// Sets libsonic's rate (speed and pitch together: a resampling by 1/`rate`), for format conversion only.
    func setRate(_ rate: Double) {
        sonicSetRate(stream, Float(rate))
    }

    /// Adds whole frames and processes what it can; an empty write only processes what the stream holds.
    func write(_ interleaved: UnsafeBufferPointer<Int16>) throws(VoiceNoteError) {
        let frames = interleaved.count / channels
        // libsonic 0.2 takes `short *` but only copies from it.
        let samples = interleaved.baseAddress.map { UnsafeMutablePointer(mutating: $0) }
        guard sonicWriteShortToStream(stream, frames > 0 ? samples : nil, Int32(frames)) != 0 else {
            throw VoiceNoteError(.noMemory, "libsonic could not grow its buffers")
        }
    }

    /// Frames processed and waiting to be read.
    var framesAvailable: Int { Int(sonicSamplesAvailable(stream)) }

    /// Moves up to `buffer.count / channels` processed frames into `buffer`; returns how many.
    func read(into buffer: UnsafeMutableBufferPointer<Int16>) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return Int(sonicReadShortFromStream(stream, base, Int32(buffer.count / channels)))
    }

    /// Processes everything held (padding with silence it then drops), and forgets any pending copy-through.
    func flush() throws(VoiceNoteError) {
        guard sonicFlushStream(stream) != 0 else {
            throw VoiceNoteError(.noMemory, "libsonic could not grow its buffers to flush")
        }
    }
}
