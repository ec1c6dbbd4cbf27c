import VoiceNoteCore

/// What the packets of a stream can honestly hold (docs/errors.md, "What a note may cost"): a stream whose packets
/// claim more audio than their bytes can carry is refused (`.format`) before it is decoded where its packets are
/// counted first (the Ogg Opus probe, FFmpeg's packet scan, the ADTS and MP3 frame walk), and as it is decoded
/// everywhere else, so the work a note costs stays bounded by its size. Without it, 2-byte Opus packets that each
/// claimed 120 ms made a 20 MiB download 9.4 days of audio, and a FLAC frame of 65,535 constant samples in 13 bytes
/// stands for 8 s at 8 kHz.
///
/// Each format has a `Bound`: the milliseconds of audio one byte of a packet may stand for, beyond the same free
/// `allowanceMilliseconds` for every stream. Lengths are counted at the stream's rate held within `countedRates`: a
/// stream below 8 kHz is counted as if at 8 kHz (its samples, not its seconds, are bounded: a FLAC at 1 Hz cannot make
/// 13 bytes hours long), one above 48 kHz as if at 48 kHz (its samples cost as much work as at 48 kHz).
///
/// Opus has two kinds of packet, each with its own rule: an **empty** packet (at most `Bound.emptyPacketBytes`: a
/// TOC byte and a frame count, no frame data) is what DTX sends in silence, and libopus sends a comfort-noise frame
/// after at most 20 of them, so empty packets may add at most `Bound.emptyPerSounding` times the duration of the
/// sounding ones; every other packet is **sounding** and held to the bytes rule.
struct HonestLength {
    /// How much audio the bytes of one format may stand for.
    struct Bound: Sendable {
        /// Milliseconds of audio one byte of a sounding packet may hold.
        let millisecondsPerByte: Int64
        /// The most bytes of a packet that carries no frame data; 0 when the format has no such packets.
        let emptyPacketBytes: Int
        /// How many times the sounding packets' duration the empty ones may add.
        let emptyPerSounding: Int64

        init(millisecondsPerByte: Int64, emptyPacketBytes: Int = 0, emptyPerSounding: Int64 = 0) {
            self.millisecondsPerByte = millisecondsPerByte
            self.emptyPacketBytes = emptyPacketBytes
            self.emptyPerSounding = emptyPerSounding
        }

        // The bounds, each far above what honest encoders write for ten minutes of digital silence, the sparsest audio
        // there is (measured per packet byte; docs/errors.md lists them). Computed, not lazily stored: a stored
        // static is initialized under swift_once, which ThreadSanitizer cannot see through in the uninstrumented
        // runtime, so two decoders opening at once (a flow's trim beside a player's load) were reported as a race.

        /// Ogg Opus packet by packet: 20 ms a byte (400 bit/s, a fifteenth of Opus's lowest bitrate, 6 kbit/s;
        /// libopus's smallest real frames, CELT silence at 3 bytes and SILK comfort noise at about 6 bytes per 20 ms,
        /// stay far below it), empty packets at most 32 times the sounding audio.
        static var opus: Bound { Bound(millisecondsPerByte: 20, emptyPacketBytes: 2, emptyPerSounding: 32) }
        /// The later links of a chained Ogg Opus file, which libopusfile decodes: their length against their bytes,
        /// pages included (packets are not seen there). opusenc's sparsest note, DTX at 6 kbit/s in 60 ms frames, is
        /// 13.6 ms a byte; 2-byte packets of 120 ms are 39 ms a byte.
        static var opusLinks: Bound { Bound(millisecondsPerByte: 20) }
        /// MP3 and MP2: LAME's silence at 8 kHz (its lowest bitrate, 8 kbit/s) is 1 ms a byte; a free-format frame of
        /// only its header and side information stays under 20.
        static var mpegAudio: Bound { Bound(millisecondsPerByte: 20) }
        /// AAC: FFmpeg's silence in M4A at 8 kHz is 4-byte packets of 1024 samples, 31.5 ms a byte (ADTS adds a 7-byte
        /// header: 11.6); 4 bytes is the least a raw frame with a channel element takes.
        static var aac: Bound { Bound(millisecondsPerByte: 40) }
        /// FLAC: an encoder keeping to FLAC's streamable subset (at most 4,608 samples a frame up to 48 kHz) writes
        /// silence as frames of about 12 bytes: 48.5 ms a byte at 8 kHz at most (libFLAC through sox, -C 5: 43;
        /// FFmpeg's default: 5.7); a frame of 65,535 constant samples is 632 ms a byte at 8 kHz, 100 at 48 kHz. Also
        /// ALAC (FFmpeg's silence at 8 kHz: 27), Speex (DTX: 16), AMR, PCM and the telephony codecs (under 1).
        static var lossless: Bound { Bound(millisecondsPerByte: 100) }
        /// Vorbis: libvorbis writes silence as 1-byte packets, 32 ms a byte at 8 kHz in short blocks; long blocks of
        /// 2,048 would be 128; 1-byte packets of 8,192-sample blocks would be 512.
        static var vorbis: Bound { Bound(millisecondsPerByte: 150) }
    }

    /// Audio any stream may hold whatever its bytes: 60 s.
    static let allowanceMilliseconds: Int64 = 60_000
    /// The rates lengths are counted at (a stream's rate is held within them).
    static let countedRates = 8_000...48_000

    let bound: Bound
    /// The rate samples are counted at.
    private let rate: Int64
    /// The sounding packets' samples and bytes, and the empty packets' samples.
    private var soundingSamples: Int64 = 0
    private var soundingBytes: Int64 = 0
    private var emptySamples: Int64 = 0

    /// A count for a stream of `bound`'s format whose samples are at `sampleRate`.
    init(_ bound: Bound, sampleRate: Int) {
        self.bound = bound
        rate = Int64(min(max(sampleRate, Self.countedRates.lowerBound), Self.countedRates.upperBound))
    }

    /// Takes the next packet: its length in bytes and the samples it decodes to (either may be 0 when they arrive
    /// apart, for formats without empty packets).
    mutating func add(bytes: Int, samples: Int64) {
        let samples = max(0, samples)
        if bound.emptyPacketBytes > 0 && bytes <= bound.emptyPacketBytes {
            emptySamples = Self.sum(emptySamples, samples)
        } else {
            soundingSamples = Self.sum(soundingSamples, samples)
            soundingBytes = Self.sum(soundingBytes, Int64(max(0, bytes)))
        }
    }

    /// Why the packets so far claim more than their bytes can hold, or nil when they do not.
    var excess: String? {
        let allowance = samples(milliseconds: Self.allowanceMilliseconds)
        let held = samples(milliseconds: Self.product(soundingBytes, bound.millisecondsPerByte))
        if soundingSamples > Self.sum(allowance, held) {
            return "its packets claim \(seconds(soundingSamples)) of audio in \(soundingBytes) bytes, more than those "
                + "bytes can honestly hold (\(bound.millisecondsPerByte) ms a byte, beyond the first \(seconds(allowance)))"
        }
        let empty = Self.product(soundingSamples, bound.emptyPerSounding)
        if bound.emptyPacketBytes > 0, emptySamples > Self.sum(allowance, empty) {
            return "its empty packets claim \(seconds(emptySamples)) of silence beside \(seconds(soundingSamples)) of "
                + "sounding audio, more than its bytes can honestly hold (\(bound.emptyPerSounding) times the sounding "
                + "audio, beyond the first \(seconds(allowance)))"
        }
        return nil
    }

    /// The samples at the counted rate in `milliseconds` (saturating).
    private func samples(milliseconds: Int64) -> Int64 { Self.product(milliseconds, rate) / 1000 }

    private func seconds(_ samples: Int64) -> String { "\(samples / rate).\(samples % rate * 10 / rate) s" }

    private static func sum(_ a: Int64, _ b: Int64) -> Int64 {
        let (value, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : value
    }

    private static func product(_ a: Int64, _ b: Int64) -> Int64 {
        let (value, overflow) = a.multipliedReportingOverflow(by: b)
        return overflow ? .max : value
    }
}
