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
    /// decoder's); `.format` for a bad or damaged header, invalid timestamps or no audio.
    init?(source: ByteSource) throws(VoiceNoteError) {
        try source.seek(to: 0)
        let packets = OpusPacketReader(source: source)
        var timeline = OpusTimeline()
        while let packet = try packets.nextAudioPacket() { timeline.add(packet) }
        guard let header = packets.header, let serial = packets.serial else { return nil }
        self.header = header
        self.serial = serial
        length = try timeline.length(preSkip: header.preSkip, source.name)
        hasOtherStreams = packets.lastPageSerial != serial
        let duration = Double(length) / 48_000
        // Clamped before the conversion: a huge file with a tiny length must not trap.
        let bitrate = min(Double(Int32.max), Double(source.size ?? 0) * 8 / duration)
        info = StreamInfo(codec: "opus", sampleRate: 48_000, channels: header.channels, duration: duration,
                          durationIsEstimate: false, bitrate: Int(bitrate))
    }
}
