import VoiceNoteCore
import VoiceNoteSources

/// What an Ogg Opus file says, read in one pass over its pages without decoding: the header, the length by
/// `OpusTimeline` (the rule info, the waveform and playback share) and whether the direct analysis path can
/// decode it (family 0, one logical stream to the end).
struct OpusProbe {
    let header: OpusHeader
    let serial: Int32
    /// The length in 48 kHz samples after the pre-skip: what info reports and the decoders produce.
    let length: Int64
    /// Whether another logical stream follows or is multiplexed (chained files): then opusfile decodes it.
    let hasOtherStreams: Bool
    let info: StreamInfo
    /// Reads `source` from its start to its end; nil when it holds no Opus stream (Ogg Vorbis, FLAC in Ogg: another
    /// decoder's); `.format` for a bad or damaged header, invalid timestamps, no audio, or packets that claim more
    /// than their bytes can hold (read no further than where they do).
    init?(source: ByteSource) throws(VoiceNoteError) {
        try source.seek(to: 0)
        let packets = OpusPacketReader(source: source)
        var timeline = OpusTimeline()
        while timeline.excess == nil, let packet = try packets.nextAudioPacket() { timeline.add(packet) }
        guard let header = packets.header, let serial = packets.serial else { return nil }
        self.init(header: header, serial: serial, length: try timeline.length(preSkip: header.preSkip, source.name),
                  hasOtherStreams: packets.lastPageSerial != serial, size: source.size ?? 0)
    }

    /// The probe of a stream read some other way (a download scanned as it arrived), `size` bytes in all.
    init(header: OpusHeader, serial: Int32, length: Int64, hasOtherStreams: Bool, size: Int64) {
        self.header = header
        self.serial = serial
        self.length = length
        self.hasOtherStreams = hasOtherStreams
        info = StreamInfo(codec: "opus", sampleRate: 48_000, channels: header.channels, duration: Double(length) / 48_000,
                          durationIsEstimate: false, bitrate: Self.bitrate(bytes: size, samples: length))
    }

    /// Bits per second of `bytes` holding `samples` at 48 kHz; clamped before the conversion (a huge file with a
    /// tiny length must not trap).
    static func bitrate(bytes: Int64, samples: Int64) -> Int {
        guard samples > 0 else { return 0 }
        return Int(min(Double(Int32.max), Double(max(0, bytes)) * 8 / (Double(samples) / 48_000)))
    }
}
