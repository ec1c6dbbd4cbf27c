#if canImport(Glibc)
import Glibc
#endif
import CFFmpeg

/// What FFmpeg may open for us: the containers and codecs voice messages come in, nothing else.
///
/// FFmpeg's build knows hundreds of demuxers, and some of them act on what a file *says*: a DASH or HLS manifest
/// fetches other URLs with FFmpeg's own HTTP client, an `ffconcat` list opens files relative to the working
/// directory (and blocks for ever on a FIFO), libgme unpacks a gzip body in memory (1 MB took 2 GB). A voice note
/// is a stranger's bytes, so the container is probed from its content (FFmpeg's probe only scores bytes, it opens
/// nothing), and one outside this list is refused before its demuxer runs; the demuxer gets the list as its
/// `format_whitelist`, the decoders as their `codec_whitelist`, and an `io_open` that refuses every nested open,
/// so no protocol but our own AVIO is ever used.
enum VoiceMessageFormats {
    /// Demuxer names: Ogg, MP3, ADTS AAC, MP4/M4A/3GP (one demuxer), WAV, FLAC.
    static let containers: Set<String> = ["ogg", "mp3", "aac", "mov", "mp4", "m4a", "3gp", "3g2", "wav", "flac"]

    /// Decoder names: what those containers carry in voice messages (AAC, MP3, Opus, Vorbis, FLAC, ALAC, AMR in
    /// 3GP, PCM and the telephony codecs of WAV).
    static let codecs: Set<String> = [
        "aac", "aac_fixed", "aac_latm", "mp3", "mp3float", "mp2", "mp2float", "opus", "libopus", "vorbis", "libvorbis",
        "flac", "alac", "amrnb", "amrwb", "libopencore_amrnb", "libopencore_amrwb", "speex", "libspeex",
        "pcm_u8", "pcm_s8", "pcm_s16le", "pcm_s16be", "pcm_s24le", "pcm_s24be", "pcm_s32le", "pcm_s32be",
        "pcm_f32le", "pcm_f32be", "pcm_f64le", "pcm_f64be", "pcm_alaw", "pcm_mulaw",
        "adpcm_ima_wav", "adpcm_ms", "adpcm_g726", "adpcm_g722", "gsm", "gsm_ms",
    ]

    /// Probe scores above this (FFmpeg's AVPROBE_SCORE_RETRY) name what a file is; at or below it, a guess: a
    /// refused container guessed that weakly is reported as an unrecognised file, not as that container.
    static let confidentScore: Int32 = 25

    /// Whether a demuxer (its comma-separated `name`) is one of `containers`.
    static func allows(_ format: UnsafePointer<AVInputFormat>) -> Bool {
        String(cString: format.pointee.name).split(separator: ",").contains { containers.contains(String($0)) }
    }

    /// Whether a decoder is one of `codecs`.
    static func allows(_ codec: UnsafePointer<AVCodec>) -> Bool {
        codecs.contains(String(cString: codec.pointee.name))
    }

    /// How a refused container is named in an error: FFmpeg's long name and short name.
    static func describe(_ format: UnsafePointer<AVInputFormat>) -> String {
        let name = String(cString: format.pointee.name)
        guard let long = format.pointee.long_name else { return name }
        return "\(String(cString: long)) (\(name))"
    }

    /// `containers` and `codecs` as FFmpeg's comma-separated whitelists, joined once.
    private static let containerList = containers.sorted().joined(separator: ",")
    private static let codecList = codecs.sorted().joined(separator: ",")

    /// `containers` as FFmpeg's whitelist, allocated with av_malloc (the context frees it).
    static func containerWhitelist() -> UnsafeMutablePointer<CChar>? { av_strdup(containerList) }

    /// `codecs` as FFmpeg's whitelist, allocated with av_malloc (the context frees it).
    static func codecWhitelist() -> UnsafeMutablePointer<CChar>? { av_strdup(codecList) }

    /// The `io_open` callback of every context we open: a demuxer's nested open (a manifest's segments, a
    /// playlist's entries, an MP4's external references) is refused with EPERM.
    static let refuseNestedOpen: @convention(c) (
        UnsafeMutablePointer<AVFormatContext>?, UnsafeMutablePointer<UnsafeMutablePointer<AVIOContext>?>?,
        UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?
    ) -> Int32 = { _, _, _, _, _ in -EPERM }
}
