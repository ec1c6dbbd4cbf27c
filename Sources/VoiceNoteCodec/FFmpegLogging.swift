import CFFmpeg

/// FFmpeg's log is process-wide. At its default level (info) FFmpeg prints encoder statistics and decoder warnings
/// on stderr, which a chat client embedding us does not want on every voice note; so on first use, and only when
/// the level is still FFmpeg's default (the host has not chosen one), it is lowered to errors.
enum FFmpegLogging {
    private static let quieted: Void = {
        if av_log_get_level() == AV_LOG_INFO { av_log_set_level(AV_LOG_ERROR) }
    }()

    /// Called by `FFmpegLibraries.require()` once FFmpeg is loaded; cheap after the first time.
    static func prepare() { _ = quieted }
}
