import CFFmpeg
import CFFmpegLoader
import VoiceNoteCore

/// FFmpeg's log is process-wide and goes to stderr by default: a damaged frame would print `[flac @ …] …` on the
/// host's terminal. On first use FFmpeg's log is routed into voicenote's log hook (quiet unless the host set a
/// handler), at the matching level — unless the host loaded FFmpeg itself before us, since FFmpeg cannot say
/// whether such a host installed a callback of its own; then only a level still at FFmpeg's default is lowered to
/// errors, as before.
enum FFmpegLogging {
    private static let prepared: Void = {
        let sink = vnshim_ffmpeg_log_sink(
            wants: { level in LogLevel(rawValue: level).map(Log.isEnabled) == true ? 1 : 0 },
            write: { level, line in
                guard let level = LogLevel(rawValue: level), let line else { return }
                Log.write(level, "FFmpeg: " + String(cString: line))
            })
        if vnshim_ffmpeg_route_log(sink) == 0, av_log_get_level() == AV_LOG_INFO {
            av_log_set_level(AV_LOG_ERROR)
        }
    }()

    /// Called by `FFmpegLibraries.require()` once FFmpeg is loaded; cheap after the first time.
    static func prepare() { _ = prepared }
}
