/* FFmpeg's log through voicenote's log hook: the library prints nothing itself. FFmpeg's default callback writes
 * every warning (a damaged frame, say) to the host's stderr; once routed, each line goes to the sink Swift gave,
 * at voicenote's matching level, and only when someone reads that level. */
#include <stdarg.h>
#include <stdatomic.h>
#include <string.h>

#include <libavutil/log.h>

#include "ffmpeg_loader.h"

static vnshim_ffmpeg_log_sink vnff_sink;          /* set once, before the callback is installed */
static atomic_int vnff_routed;
static _Thread_local int vnff_print_prefix = 1;    /* FFmpeg's line-continuation state, per logging thread */

/* FFmpeg's levels (panic 0 … trace 56) as voicenote's (1 error … 4 debug). */
static int vnff_level(int level) {
    if (level <= AV_LOG_ERROR) return 1;
    if (level <= AV_LOG_WARNING) return 2;
    if (level <= AV_LOG_INFO) return 3;
    return 4;
}

static void vnff_log_callback(void *context, int level, const char *format, va_list arguments) {
    if (level > av_log_get_level()) return;
    int ours = vnff_level(level);
    if (!vnff_sink.wants(ours)) return;
    char line[1024];
    av_log_format_line2(context, level, format, arguments, line, (int)sizeof line, &vnff_print_prefix);
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) line[--length] = '\0';
    if (length > 0) vnff_sink.write(ours, line);
}

int vnshim_ffmpeg_route_log(vnshim_ffmpeg_log_sink sink) {
    if (!vnshim_ffmpeg_loaded() || vnshim_ffmpeg_loaded_by_host() || sink.wants == NULL || sink.write == NULL)
        return 0;
    int expected = 0;
    if (atomic_compare_exchange_strong(&vnff_routed, &expected, 1)) {
        vnff_sink = sink;
        av_log_set_callback(vnff_log_callback);
    }
    return 1;
}
