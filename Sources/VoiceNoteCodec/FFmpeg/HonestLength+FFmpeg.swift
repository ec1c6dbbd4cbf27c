import CFFmpeg

extension HonestLength.Bound {
    /// The bound of a codec FFmpeg decodes (`VoiceMessageFormats.codecs`); the lossless one for the rest.
    static func of(_ codec: AVCodecID) -> Self {
        switch codec {
        case AV_CODEC_ID_MP3, AV_CODEC_ID_MP2: mpegAudio
        case AV_CODEC_ID_AAC, AV_CODEC_ID_AAC_LATM: aac
        case AV_CODEC_ID_OPUS: opus
        case AV_CODEC_ID_VORBIS: vorbis
        default: lossless
        }
    }
}
