import VoiceNoteCore

/// What the first and last pages of an Ogg Opus file say: header, length and whether the direct analysis path
/// can decode it (family 0, one logical stream to the end).
struct OpusProbe {
    let header: OpusHeader
    let serial: Int32
    /// The last granule position of the Opus stream (48 kHz samples including pre-skip).
    let lastGranule: Int64
    /// Whether another logical stream follows or is multiplexed (chained files): then opusfile decodes it.
    let hasOtherStreams: Bool
    let info: StreamInfo
    /// The message end that tells "Ogg, but not Opus" apart from a damaged Opus stream.
    static let noOpusStream = "no Opus stream in this Ogg file"

    /// Reads the header from the start of `source` and the length from its tail; `.format` when there is no Opus
    /// stream, a bad header, or no audio packet at all.
    init(source: ByteSource) throws(VoiceNoteError) {
        try source.seek(to: 0)
        let reader = OggReader(source: source, accepts: OpusHeader.isHeader)
        guard let first = try reader.nextPacket(), let serial = reader.serial else {
            throw VoiceNoteError(.format, "\(source.name): \(Self.noOpusStream)")
        }
        header = try OpusHeader(packet: first.bytes)
        self.serial = serial
        let tail = try OggReader.tail(of: source, serial: serial)
        guard let granule = tail.granule, granule > Int64(header.preSkip) else {
            throw VoiceNoteError(.format, "\(source.name): the Opus stream has no audio packets")
        }
        lastGranule = granule
        hasOtherStreams = tail.lastSerial != serial
        let duration = Double(granule - Int64(header.preSkip)) / 48_000
        let bytes = source.size ?? 0
        info = StreamInfo(codec: "opus", sampleRate: 48_000, channels: header.channels, duration: duration,
                          durationIsEstimate: false, bitrate: duration > 0 ? Int(Double(bytes) * 8 / duration) : 0)
    }
}
