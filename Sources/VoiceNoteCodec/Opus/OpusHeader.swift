import VoiceNoteCore

/// The identification header of an Ogg Opus stream (RFC 7845 §5.1), validated.
public struct OpusHeader: Sendable, Equatable {
    /// Output channels.
    public let channels: Int
    /// Samples at 48 kHz to drop from the start.
    public let preSkip: Int
    /// The encoder's input rate (informational; Opus always decodes at 48 kHz or a divisor).
    public let inputSampleRate: Int
    /// Output gain in Q7.8 dB.
    public let outputGain: Int
    /// Channel-mapping family: 0 (mono/stereo) or 1 (Vorbis order, up to 8).
    public let mappingFamily: Int

    /// Whether `packet` starts like an identification header.
    public static func isHeader(_ packet: UnsafeRawBufferPointer) -> Bool {
        packet.count >= 8 && packet.prefix(8).elementsEqual("OpusHead".utf8)
    }

    /// Parses and validates a header packet; `.format` for anything RFC 7845 forbids, libopusfile's
    /// `opus_head_parse` refuses (so info, the waveform and playback refuse the same headers) or voicenote finds
    /// absurd.
    public init(packet: UnsafeRawBufferPointer) throws(VoiceNoteError) {
        guard Self.isHeader(packet), packet.count >= 19 else {
            throw VoiceNoteError(.format, "not an Opus identification header")
        }
        func byte(_ index: Int) -> Int { Int(packet[index]) }
        let version = byte(8)
        guard version >> 4 == 0 else { throw VoiceNoteError(.format, "unsupported Opus header version \(version)") }
        channels = byte(9)
        preSkip = byte(10) | byte(11) << 8
        inputSampleRate = byte(12) | byte(13) << 8 | byte(14) << 16 | byte(15) << 24
        outputGain = Int(Int16(truncatingIfNeeded: byte(16) | byte(17) << 8))
        mappingFamily = byte(18)
        guard channels >= 1 else { throw VoiceNoteError(.format, "Opus header has 0 channels") }
        // Versions 0 and 1 define the exact length; later minor versions may append fields.
        let exactLength = version <= 1
        switch mappingFamily {
        case 0:
            guard channels <= 2 else {
                throw VoiceNoteError(.format, "Opus header: mapping family 0 with \(channels) channels (at most 2)")
            }
            guard !exactLength || packet.count == 19 else {
                throw VoiceNoteError(.format, "Opus header: \(packet.count) bytes for mapping family 0 (19)")
            }
        case 1:
            guard channels <= 8 else {
                throw VoiceNoteError(.format, "Opus header: mapping family 1 with \(channels) channels (at most 8)")
            }
            guard packet.count >= 21 + channels, !exactLength || packet.count == 21 + channels else {
                throw VoiceNoteError(.format, "Opus header: \(packet.count) bytes for a mapping table of \(channels) channels")
            }
            let streams = byte(19), coupled = byte(20)
            guard streams >= 1, coupled <= streams else {
                throw VoiceNoteError(.format, "Opus header: \(streams) streams, \(coupled) of them coupled")
            }
            for index in 21..<(21 + channels) where byte(index) >= streams + coupled && byte(index) != 255 {
                throw VoiceNoteError(.format, "Opus header: channel \(index - 21) maps to stream \(byte(index)) of \(streams + coupled)")
            }
        default:
            // 255 (no defined layout) included: libopusfile refuses it as not for general-purpose players.
            throw VoiceNoteError(.format, "Opus header: unsupported channel-mapping family \(mappingFamily)")
        }
    }
}
