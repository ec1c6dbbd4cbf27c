import VoiceNoteCodec
import VoiceNoteCore
import VoiceNoteSources

/// Writes a note again as a recording file — Ogg Opus or AAC, with the recorder's encoder — optionally at another
/// speed with its pitch kept, through the same decoder and libsonic stretcher the player uses: what a bridge needs
/// to pass on a voice message from a network that sends another format, or a bot to answer with a faster copy.
///
/// The file is written beside `path` (`<path>.convert.<random>.part`) and renamed over it once complete and synced: a failure
/// or a crash leaves whatever was at `path` untouched.
public enum NoteConverter {
    /// How a note is converted.
    public struct Options: Sendable, Equatable {
        /// The speed: 0.5…2.5, pitch kept; the new note lasts the original's length divided by it.
        public var rate: PlaybackRate = .normal
        /// The format written.
        public var format: RecordingFormat = .opus
        /// The encoder's settings (bitrate, and for Opus complexity and frame length).
        public var encoder = EncoderSettings()

        /// Options with the defaults (1x, Ogg Opus, 32 kbit/s) unless given.
        public init(rate: PlaybackRate = .normal, format: RecordingFormat = .opus, encoder: EncoderSettings = EncoderSettings()) {
            self.rate = rate
            self.format = format
            self.encoder = encoder
        }
    }

    /// Decodes `source` and writes it to `path` as `options` say. A note below the encoders' lowest input rate
    /// (8000 Hz: old phone and radio recordings at 4–7 kHz) is resampled up to it first.
    /// - Returns: the new file's length in seconds, as `Decoders.info` reads it.
    /// - Throws: `.format` / `.unsupported` for a source that does not decode (`.unsupported` also below
    ///   `FormatConverter.lowestInputRate`); `.invalidArgument` for encoder settings out of range; file statuses for
    ///   `path` (`.notFound` for a missing directory, `.noSpace`…).
    @discardableResult
    public static func convert(_ source: ByteSource, to path: String, options: Options = Options()) throws(VoiceNoteError) -> Double {
        try options.encoder.check()
        let decoder = try Decoders.open(source, purpose: .playback)
        // A voice note is mono or stereo: more channels are mixed down to mono.
        let channels = decoder.outputChannels <= 2 ? decoder.outputChannels : 1
        let upsampler = try upsampler(from: decoder.outputRate, channels: channels, source.name)
        let rate = upsampler?.outputRate ?? decoder.outputRate
        return try RecordingEncoders.replace(path, partSuffix: ".convert", format: options.format,
                                             inputRate: rate, channels: channels,
                                             settings: options.encoder) { (encoder) throws(VoiceNoteError) in
            let stretcher = try TimeStretcher(sampleRate: rate, channels: channels, rate: options.rate)
            var mixed: [Int16] = []
            var failure: VoiceNoteError?
            let write = { (samples: UnsafeBufferPointer<Int16>, _: Int64) in
                guard failure == nil else { return }
                do throws(VoiceNoteError) { try encoder.write(samples) } catch { failure = error }
            }
            var stretchFailure: VoiceNoteError?
            let stretch = { (samples: UnsafeBufferPointer<Int16>) in
                do throws(VoiceNoteError) { try stretcher.process(samples, write) } catch { stretchFailure = error }
            }
            let resample = { (samples: UnsafeBufferPointer<Int16>) in
                guard let upsampler else { return stretch(samples) }
                do throws(VoiceNoteError) { try upsampler.convert(samples, stretch) } catch { stretchFailure = error }
            }
            var more = true
            while more {
                more = try decoder.decodeNext { chunk in
                    if chunk.channels == channels {
                        resample(chunk.samples)
                    } else {
                        mixDown(chunk, into: &mixed)
                        mixed.withUnsafeBufferPointer(resample)
                    }
                }
                if let error = stretchFailure ?? failure { throw error }
            }
            try upsampler?.finish(stretch)
            if let error = stretchFailure { throw error }
            try stretcher.finish(write)
            if let failure { throw failure }
        }
    }

    /// The resampler that brings a note below the encoders' lowest input rate up to it; nil at or above it.
    /// `.unsupported` below `FormatConverter.lowestInputRate`: the file's own format, not the caller's argument.
    private static func upsampler(from rate: Int, channels: Int, _ name: String) throws(VoiceNoteError) -> FormatConverter? {
        let lowest = RecordingEncoders.inputRates.lowerBound
        guard rate < lowest else { return nil }
        guard rate >= FormatConverter.lowestInputRate else {
            throw VoiceNoteError(.unsupported, "\(name): \(rate) Hz is below the \(FormatConverter.lowestInputRate) Hz a conversion takes")
        }
        return try FormatConverter(inputRate: rate, inputChannels: channels, outputRate: lowest, outputChannels: channels)
    }

    /// The average of each frame's channels, into `buffer`.
    private static func mixDown(_ chunk: PCMChunk, into buffer: inout [Int16]) {
        buffer.removeAll(keepingCapacity: true)
        for frame in 0..<chunk.frames {
            var sum = 0
            for channel in 0..<chunk.channels { sum += Int(chunk.samples[frame * chunk.channels + channel]) }
            buffer.append(Int16(sum / chunk.channels))
        }
    }
}
