import VoiceNoteCore

/// What the audio packets of an Ogg Opus stream can honestly hold (docs/errors.md, "What a note may cost"): a
/// stream whose packets claim more audio than their bytes can carry is refused before it is decoded, so the work a
/// note costs stays bounded by its size. Without it, 2-byte packets that each claim 120 ms made a 20 MiB download
/// 9.4 days of audio to decode.
///
/// Two kinds of packet, two rules, each with the same free `allowance`:
/// - an **empty** packet (at most `emptyPacketBytes`: a TOC byte and a frame count, no frame data) is what DTX sends
///   in silence; libopus sends a comfort-noise frame after at most 20 of them, so empty packets may add at most
///   `emptyPerSounding` times the duration of the sounding ones;
/// - a **sounding** packet carries frame data; its bytes may stand for at most `samplesPerSoundingByte` each (20 ms a
///   byte, 400 bit/s: a fifteenth of Opus's lowest bitrate, 6 kbit/s; libopus's smallest real frames, CELT silence
///   at 3 bytes and SILK comfort noise at about 6 bytes per 20 ms, stay far below it).
struct OpusHonestLength {
    /// The most bytes of a packet that carries no frame data.
    static let emptyPacketBytes = 2
    /// 48 kHz samples one byte of a sounding packet may stand for: 20 ms.
    static let samplesPerSoundingByte: Int64 = 960
    /// How many times the sounding packets' duration the empty ones may add.
    static let emptyPerSounding: Int64 = 32
    /// Audio any stream may hold whatever its bytes: 60 s at 48 kHz.
    static let allowance: Int64 = 60 * 48_000

    /// The sounding packets' duration (48 kHz samples) and bytes, and the empty packets' duration.
    private var soundingSamples: Int64 = 0
    private var soundingBytes: Int64 = 0
    private var emptySamples: Int64 = 0

    /// Takes the next audio packet: its length in bytes and its duration in 48 kHz samples.
    mutating func add(bytes: Int, samples: Int64) {
        if bytes <= Self.emptyPacketBytes {
            emptySamples += samples
        } else {
            soundingSamples += samples
            soundingBytes += Int64(bytes)
        }
    }

    /// Why the packets so far claim more than their bytes can hold, or nil when they do not.
    var excess: String? {
        if soundingSamples > Self.allowance + soundingBytes * Self.samplesPerSoundingByte {
            return "its packets claim \(Self.seconds(soundingSamples)) of audio in \(soundingBytes) bytes, more than "
                + "those bytes can honestly hold (20 ms a byte, beyond the first \(Self.seconds(Self.allowance)))"
        }
        if emptySamples > Self.allowance + soundingSamples * Self.emptyPerSounding {
            return "its empty packets claim \(Self.seconds(emptySamples)) of silence beside \(Self.seconds(soundingSamples)) "
                + "of sounding audio, more than its bytes can honestly hold (\(Self.emptyPerSounding) times the sounding "
                + "audio, beyond the first \(Self.seconds(Self.allowance)))"
        }
        return nil
    }

    private static func seconds(_ samples: Int64) -> String { "\(samples / 48_000).\(samples / 4_800 % 10) s" }
}
