/* play_latency.c — play → first frame of libvoicenote's player (bench/run.py, section player).
 *
 *   play_latency ours FILE OUTPUT COUNT [TIMEOUT_S]
 *   play_latency url URL OUTPUT COUNT CACHE_DIR clear|keep [TIMEOUT_S]
 *   play_latency floor OUTPUT COUNT
 *
 * Both play to the same device, `vn_bench`, given as ALSA configuration text:
 *   pcm.vn_bench { type file slave.pcm { type null } file "OUTPUT" format raw }
 * (ALSA's file plugin over a null slave: unpaced, it takes frames as fast as they are written, and copies them into
 * OUTPUT). Each take deletes OUTPUT first. Two moments are taken, both from CLOCK_MONOTONIC just before the call
 * that starts the take (vn_player_load for ours, the configuration text's parse before snd_pcm_open_lconf for the
 * floor):
 *   first_write_ms  the first snd_pcm_writei() that returned frames: the first frame the device accepted. This
 *                   program defines snd_pcm_writei itself (exported with -rdynamic) and forwards to alsa-lib's
 *                   (dlsym RTLD_NEXT), so it sees the library's calls into alsa-lib from outside the library;
 *   file_grew_ms    OUTPUT first non-empty, seen by a thread that stat()s it every 0.2 ms (at most 2 s). The file
 *                   plugin writes its file only once more than its buffer's worth of frames is queued (8 periods
 *                   of 20 ms here, for both), so this is later than the first frame by that much audio (produced as
 *                   fast as the decoder runs on this unpaced device); frames_at_growth is what had been accepted.
 * ours: COUNT takes in one process, each with a new player (vn_player_create outside the timed part) on that
 *   device, vn_player_load(FILE, autoplay); waits for FINISHED (TIMEOUT_S per take, default 30), destroys it. The
 *   first take of the process is the first in process (ALSA's configuration and plugins, the library's threads).
 *   load_call_ms is the wall time of vn_player_load itself (it returns at once; the player's thread opens the file
 *   and the device).
 * url: as ours, but each take loads an http(s) URL with vn_player_load (default HTTP options), through the media
 *   cache in CACHE_DIR: vn_cache_set_directory(CACHE_DIR) first, then with `clear` vn_cache_clear() (a cold cache:
 *   the first take downloads; run as a new process, it also loads libcurl, which the library dlopens on the first
 *   URL), with `keep` the entries already there (a warm cache: the take reads the kept file and makes no request).
 *   cache_bytes_before is vn_cache_get_size() before each take. After the last take it waits (at most 5 s) until
 *   the cache holds an entry, as the entry is written once the download is complete (cache_wait_ms,
 *   cache_bytes_after), so that a later process finds the media cached.
 * ours and url also print libcurl_mapped: whether a mapping of /proc/self/maps names libcurl after the takes.
 * floor: alsa-lib alone, COUNT times: the configuration text parsed, snd_pcm_open_lconf (non-blocking, as the
 *   library), the hardware and software parameters the library sets for playback (S16_LE, mono, 48 kHz near with
 *   resampling allowed, 20 ms period near, buffer of 8 periods, avail_min one period, start and stop thresholds
 *   one buffer), prepare, then one period of silence written (first_write_ms), then further periods, as fast as
 *   they are taken, until OUTPUT grows (file_grew_ms; at most 64 periods), then close. configured_ms: open +
 *   parameters + prepare.
 *
 * Prints one JSON object on stdout. Exit status: 0 when every take finished; 1 on a failure or timeout (message
 * on stderr); 2 for a usage error.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <alsa/asoundlib.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <voicenote.h>

#define DEVICE "vn_bench"
#define POLL_NS 200000L          /* the poller's stat() interval: 0.2 ms */
#define POLL_LIMIT_NS 2000000000LL /* it gives up after 2 s */
#define FLOOR_MAX_PERIODS 64

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static double ms_since(int64_t start, int64_t at) { return at < 0 ? -1 : (double)(at - start) / 1e6; }

/* ---------------------------------------------------------------------------------------------------------------
 * snd_pcm_writei, seen from outside the library */

typedef snd_pcm_sframes_t (*writei_fn)(snd_pcm_t *, const void *, snd_pcm_uframes_t);
static _Atomic int64_t first_write_ns = -1; /* the first writei that returned frames since arm_writes() */
static _Atomic int64_t frames_written = 0;  /* frames accepted since arm_writes() */

snd_pcm_sframes_t snd_pcm_writei(snd_pcm_t *pcm, const void *buffer, snd_pcm_uframes_t size) {
    static _Atomic(writei_fn) real = NULL; /* alsa-lib's */
    writei_fn forward = atomic_load(&real);
    if (forward == NULL) {
        void *symbol = dlsym(RTLD_NEXT, "snd_pcm_writei");
        memcpy(&forward, &symbol, sizeof forward); /* a data pointer to a function pointer, as POSIX allows */
        if (forward == NULL) {
            fprintf(stderr, "play_latency: alsa-lib's snd_pcm_writei not found: %s\n", dlerror());
            abort();
        }
        atomic_store(&real, forward);
    }
    snd_pcm_sframes_t written = forward(pcm, buffer, size);
    if (written > 0) {
        int64_t expected = -1;
        atomic_compare_exchange_strong(&first_write_ns, &expected, now_ns());
        atomic_fetch_add(&frames_written, (int64_t)written);
    }
    return written;
}

static void arm_writes(void) {
    atomic_store(&first_write_ns, -1);
    atomic_store(&frames_written, 0);
}

/* ---------------------------------------------------------------------------------------------------------------
 * The output file's first growth */

typedef struct {
    const char *path;
    pthread_t thread;
    _Atomic int64_t grew_ns;         /* when OUTPUT was first non-empty; -1 if not (yet) */
    _Atomic int64_t frames_at_growth; /* frames_written then */
    _Atomic int stop;
} poller;

static void *poll_output(void *argument) {
    poller *p = argument;
    int64_t deadline = now_ns() + POLL_LIMIT_NS;
    struct timespec interval = {0, POLL_NS};
    while (!atomic_load(&p->stop) && now_ns() < deadline) {
        struct stat status;
        if (stat(p->path, &status) == 0 && status.st_size > 0) {
            atomic_store(&p->frames_at_growth, atomic_load(&frames_written));
            atomic_store(&p->grew_ns, now_ns());
            break;
        }
        nanosleep(&interval, NULL);
    }
    return NULL;
}

static int poller_start(poller *p, const char *path) {
    p->path = path;
    atomic_store(&p->grew_ns, -1);
    atomic_store(&p->frames_at_growth, -1);
    atomic_store(&p->stop, 0);
    return pthread_create(&p->thread, NULL, poll_output, p);
}

/* Waits for the poller (it ends by itself within 2 s); `give_up` stops it first. */
static void poller_join(poller *p, int give_up) {
    if (give_up) atomic_store(&p->stop, 1);
    pthread_join(p->thread, NULL);
}

static void configuration_text(char *text, size_t size, const char *output) {
    snprintf(text, size, "pcm." DEVICE " { type file slave.pcm { type null } file \"%s\" format raw }", output);
}

static void print_series(const char *name, const double *values, int count, int last) {
    printf("  \"%s\": [", name);
    for (int i = 0; i < count; i++) printf("%s%.3f", i ? ", " : "", values[i]);
    printf("]%s\n", last ? "" : ",");
}

/* ---------------------------------------------------------------------------------------------------------------
 * ours */

typedef struct {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    int finished;
    int failed;
} item_state;

static void on_event(void *user_data, const vn_player_event *event) {
    item_state *item = user_data;
    pthread_mutex_lock(&item->mutex);
    if (event->type == VN_PLAYER_EVENT_FINISHED) item->finished = 1;
    if (event->type == VN_PLAYER_EVENT_FAILED) {
        item->failed = event->status;
        fprintf(stderr, "play_latency: FAILED event: %s: %s\n", vn_status_name(event->status),
                event->message ? event->message : "");
    }
    pthread_cond_broadcast(&item->changed);
    pthread_mutex_unlock(&item->mutex);
}

static int fail(const char *what, int status) {
    fprintf(stderr, "play_latency: %s: %s (%s): %s\n", what, vn_status_name(status), vn_strerror(status),
            vn_last_error_message());
    return 1;
}

static int ours_once(const char *location, const char *output, double timeout_s, double *load_call_ms,
                     double *first_write_ms, double *file_grew_ms, double *frames_at_growth) {
    char configuration[8192];
    configuration_text(configuration, sizeof configuration, output);
    vn_player_options *options = NULL;
    int status = vn_player_options_create(&options);
    if (status != VN_OK) return fail("vn_player_options_create", status);
    if ((status = vn_player_options_set_device(options, DEVICE, configuration)) != VN_OK) {
        vn_player_options_destroy(options);
        return fail("vn_player_options_set_device", status);
    }
    vn_player *player = NULL;
    status = vn_player_create(options, &player);
    vn_player_options_destroy(options);
    if (status != VN_OK) return fail("vn_player_create", status);

    item_state item;
    memset(&item, 0, sizeof item);
    pthread_mutex_init(&item.mutex, NULL);
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&item.changed, &attributes);
    pthread_condattr_destroy(&attributes);
    if ((status = vn_player_subscribe(player, on_event, &item, NULL, NULL)) != VN_OK) {
        vn_player_destroy(player);
        return fail("vn_player_subscribe", status);
    }

    unlink(output);
    arm_writes();
    poller watch;
    if (poller_start(&watch, output) != 0) {
        vn_player_destroy(player);
        return fail("pthread_create", VN_E_NOMEM);
    }
    int64_t called = now_ns();
    status = vn_player_load(player, location, 1, -1);
    int64_t returned = now_ns();
    if (status != VN_OK) {
        poller_join(&watch, 1);
        vn_player_destroy(player);
        return fail("vn_player_load", status);
    }

    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += (time_t)timeout_s;
    pthread_mutex_lock(&item.mutex);
    int waited = 0;
    while (!item.finished && item.failed == 0 && waited != ETIMEDOUT)
        waited = pthread_cond_timedwait(&item.changed, &item.mutex, &deadline);
    int finished = item.finished, failed = item.failed;
    pthread_mutex_unlock(&item.mutex);
    poller_join(&watch, 0);
    vn_player_destroy(player);
    pthread_cond_destroy(&item.changed);
    pthread_mutex_destroy(&item.mutex);
    unlink(output);
    if (!finished || failed != 0) {
        if (failed == 0) fprintf(stderr, "play_latency: no FINISHED event within %.0f s\n", timeout_s);
        return 1;
    }
    *load_call_ms = ms_since(called, returned);
    *first_write_ms = ms_since(called, atomic_load(&first_write_ns));
    *file_grew_ms = ms_since(called, atomic_load(&watch.grew_ns));
    *frames_at_growth = (double)atomic_load(&watch.frames_at_growth);
    if (*first_write_ms < 0) {
        fprintf(stderr, "play_latency: the item finished, but no snd_pcm_writei call was seen (interposition?)\n");
        return 1;
    }
    return 0;
}

/* Whether any mapping of this process (/proc/self/maps) names libcurl: 1, 0, or -1 when the file cannot be read. */
static int libcurl_mapped(void) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL) return -1;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, maps) != NULL) found = strstr(line, "libcurl") != NULL;
    fclose(maps);
    return found;
}

static int64_t cache_size(void) {
    int64_t bytes = -1;
    return vn_cache_get_size(&bytes) == VN_OK ? bytes : -1;
}

/* ours (cache 0: the location is a file) and url (cache 1: the location is a URL, the cache set up by run_url). */
static int run_takes(const char *mode, const char *location, const char *output, int count, double timeout_s,
                     int cache) {
    double *load = calloc((size_t)count, sizeof(double)), *first = calloc((size_t)count, sizeof(double));
    double *grew = calloc((size_t)count, sizeof(double)), *frames = calloc((size_t)count, sizeof(double));
    double *before = calloc((size_t)count, sizeof(double));
    if (!load || !first || !grew || !frames || !before) return fail("calloc", VN_E_NOMEM);
    for (int i = 0; i < count; i++) {
        before[i] = cache ? (double)cache_size() : -1;
        if (ours_once(location, output, timeout_s, &load[i], &first[i], &grew[i], &frames[i]) != 0) return 1;
        struct timespec pause = {0, 20000000L}; /* 20 ms between takes */
        nanosleep(&pause, NULL);
    }
    double cache_wait_ms = -1, cache_after = -1;
    if (cache) { /* the entry is kept once the download is complete: wait for it (at most 5 s) */
        int64_t started = now_ns(), bytes;
        while ((bytes = cache_size()) <= 0 && now_ns() - started < 5000000000LL) {
            struct timespec pause = {0, 1000000L};
            nanosleep(&pause, NULL);
        }
        cache_wait_ms = ms_since(started, now_ns());
        cache_after = (double)bytes;
    }
    int curl = libcurl_mapped();
    printf("{\n  \"mode\": \"%s\",\n  \"count\": %d,\n  \"libcurl_mapped\": %s,\n", mode, count,
           curl < 0 ? "null" : curl ? "true" : "false");
    if (cache) {
        printf("  \"cache_wait_ms\": %.3f,\n  \"cache_bytes_after\": %.0f,\n", cache_wait_ms, cache_after);
        print_series("cache_bytes_before", before, count, 0);
    }
    print_series("load_call_ms", load, count, 0);
    print_series("first_write_ms", first, count, 0);
    print_series("file_grew_ms", grew, count, 0);
    print_series("frames_at_growth", frames, count, 1);
    printf("}\n");
    return 0;
}

static int run_ours(const char *file, const char *output, int count, double timeout_s) {
    return run_takes("ours", file, output, count, timeout_s, 0);
}

static int run_url(const char *url, const char *output, int count, const char *cache_dir, int clear,
                   double timeout_s) {
    int status = vn_cache_set_directory(cache_dir);
    if (status != VN_OK) return fail("vn_cache_set_directory", status);
    if (clear && (status = vn_cache_clear()) != VN_OK) return fail("vn_cache_clear", status);
    return run_takes(clear ? "url, cache cleared" : "url, cache kept", url, output, count, timeout_s, 1);
}

/* ---------------------------------------------------------------------------------------------------------------
 * floor: alsa-lib alone */

static int alsa_fail(const char *what, int code) {
    fprintf(stderr, "play_latency floor: %s: %s\n", what, snd_strerror(code));
    return 1;
}

static int floor_once(const char *output, double *configured_ms, double *first_write_ms, double *file_grew_ms,
                      double *frames_at_growth, double *period_out, double *buffer_out) {
    char configuration[8192];
    configuration_text(configuration, sizeof configuration, output);
    unlink(output);
    arm_writes();
    poller watch;
    if (poller_start(&watch, output) != 0) return alsa_fail("pthread_create", -ENOMEM);

    int64_t called = now_ns();
    snd_config_t *top = NULL;
    snd_input_t *input = NULL;
    int result = snd_config_top(&top);
    if (result >= 0) result = snd_input_buffer_open(&input, configuration, (ssize_t)strlen(configuration));
    if (result >= 0) {
        result = snd_config_load(top, input);
        snd_input_close(input);
    }
    snd_pcm_t *pcm = NULL;
    if (result >= 0) result = snd_pcm_open_lconf(&pcm, DEVICE, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK, top);
    if (top) snd_config_delete(top);
    if (result < 0) {
        poller_join(&watch, 1);
        return alsa_fail("configuration / snd_pcm_open_lconf", result);
    }

    snd_pcm_hw_params_t *hw = NULL;
    snd_pcm_sw_params_t *sw = NULL;
    unsigned rate = 48000, channels = 1;
    int direction = 0;
    snd_pcm_uframes_t period = 960, buffer = 0, minimum = 0;
    if ((result = snd_pcm_hw_params_malloc(&hw)) >= 0 && (result = snd_pcm_sw_params_malloc(&sw)) >= 0 &&
        (result = snd_pcm_hw_params_any(pcm, hw)) >= 0 && (result = snd_pcm_hw_params_set_rate_resample(pcm, hw, 1)) >= 0 &&
        (result = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)) >= 0 &&
        (result = snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE)) >= 0 &&
        (result = snd_pcm_hw_params_set_channels_near(pcm, hw, &channels)) >= 0 &&
        (result = snd_pcm_hw_params_set_rate_near(pcm, hw, &rate, &direction)) >= 0) {
        period = rate / 50;
        direction = 0;
        if ((result = snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, &direction)) >= 0) {
            minimum = period * 8;
            snd_pcm_hw_params_set_buffer_size_min(pcm, hw, &minimum);
            buffer = period * 8;
            if ((result = snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer)) >= 0 &&
                (result = snd_pcm_hw_params(pcm, hw)) >= 0) {
                direction = 0;
                snd_pcm_hw_params_get_period_size(hw, &period, &direction);
                snd_pcm_hw_params_get_buffer_size(hw, &buffer);
                if ((result = snd_pcm_sw_params_current(pcm, sw)) >= 0 &&
                    (result = snd_pcm_sw_params_set_avail_min(pcm, sw, period)) >= 0 &&
                    (result = snd_pcm_sw_params_set_start_threshold(pcm, sw, buffer)) >= 0 &&
                    (result = snd_pcm_sw_params_set_stop_threshold(pcm, sw, buffer)) >= 0 &&
                    (result = snd_pcm_sw_params(pcm, sw)) >= 0)
                    result = snd_pcm_prepare(pcm);
            }
        }
    }
    snd_pcm_hw_params_free(hw);
    snd_pcm_sw_params_free(sw);
    if (result < 0) {
        poller_join(&watch, 1);
        snd_pcm_close(pcm);
        return alsa_fail("hardware / software parameters / prepare", result);
    }
    int64_t configured = now_ns();

    int16_t *frames = calloc(period * channels, sizeof(int16_t));
    if (frames == NULL) {
        poller_join(&watch, 1);
        snd_pcm_close(pcm);
        return alsa_fail("calloc", -ENOMEM);
    }
    int periods = 0;
    while (periods < FLOOR_MAX_PERIODS && atomic_load(&watch.grew_ns) < 0) {
        snd_pcm_sframes_t written = snd_pcm_writei(pcm, frames, period);
        if (written == -EAGAIN) {
            snd_pcm_wait(pcm, 100);
            continue;
        }
        if (written < 0) {
            result = (int)written;
            break;
        }
        periods++;
    }
    free(frames);
    poller_join(&watch, result < 0); /* it sees the growth within 0.2 ms, or gives up after 2 s */
    snd_pcm_drop(pcm);
    snd_pcm_close(pcm);
    unlink(output);
    if (result < 0) return alsa_fail("snd_pcm_writei", result);
    *configured_ms = ms_since(called, configured);
    *first_write_ms = ms_since(called, atomic_load(&first_write_ns));
    *file_grew_ms = ms_since(called, atomic_load(&watch.grew_ns));
    *frames_at_growth = (double)atomic_load(&watch.frames_at_growth);
    *period_out = (double)period;
    *buffer_out = (double)buffer;
    return 0;
}

static int run_floor(const char *output, int count) {
    double *configured = calloc((size_t)count, sizeof(double)), *first = calloc((size_t)count, sizeof(double));
    double *grew = calloc((size_t)count, sizeof(double)), *frames = calloc((size_t)count, sizeof(double));
    double period = 0, buffer = 0;
    if (!configured || !first || !grew || !frames) return alsa_fail("calloc", -ENOMEM);
    for (int i = 0; i < count; i++) {
        if (floor_once(output, &configured[i], &first[i], &grew[i], &frames[i], &period, &buffer) != 0) return 1;
        struct timespec pause = {0, 20000000L};
        nanosleep(&pause, NULL);
    }
    printf("{\n  \"mode\": \"floor\",\n  \"count\": %d,\n  \"period_frames\": %.0f,\n  \"buffer_frames\": %.0f,\n", count,
           period, buffer);
    print_series("configured_ms", configured, count, 0);
    print_series("first_write_ms", first, count, 0);
    print_series("file_grew_ms", grew, count, 0);
    print_series("frames_at_growth", frames, count, 1);
    printf("}\n");
    return 0;
}

int main(int argc, char **argv) {
    if ((argc == 5 || argc == 6) && strcmp(argv[1], "ours") == 0) {
        int count = atoi(argv[4]);
        double timeout_s = argc > 5 ? atof(argv[5]) : 30;
        if (count <= 0 || timeout_s <= 0 || strchr(argv[3], '"') || strchr(argv[3], '\\')) {
            fprintf(stderr, "play_latency: COUNT and TIMEOUT_S must be > 0; OUTPUT without \" or \\\n");
            return 2;
        }
        return run_ours(argv[2], argv[3], count, timeout_s);
    }
    if ((argc == 7 || argc == 8) && strcmp(argv[1], "url") == 0) {
        int count = atoi(argv[4]);
        double timeout_s = argc > 7 ? atof(argv[7]) : 30;
        int clear = strcmp(argv[6], "clear") == 0;
        if (count <= 0 || timeout_s <= 0 || strchr(argv[3], '"') || strchr(argv[3], '\\') ||
            (!clear && strcmp(argv[6], "keep") != 0)) {
            fprintf(stderr, "play_latency: COUNT and TIMEOUT_S must be > 0; OUTPUT without \" or \\; clear or keep\n");
            return 2;
        }
        return run_url(argv[2], argv[3], count, argv[5], clear, timeout_s);
    }
    if (argc == 4 && strcmp(argv[1], "floor") == 0) {
        int count = atoi(argv[3]);
        if (count <= 0 || strchr(argv[2], '"') || strchr(argv[2], '\\')) {
            fprintf(stderr, "play_latency: COUNT must be > 0; OUTPUT without \" or \\\n");
            return 2;
        }
        return run_floor(argv[2], count);
    }
    fprintf(stderr, "usage: play_latency ours FILE OUTPUT COUNT [TIMEOUT_S]\n"
                    "       play_latency url URL OUTPUT COUNT CACHE_DIR clear|keep [TIMEOUT_S]\n"
                    "       play_latency floor OUTPUT COUNT\n");
    return 2;
}
