/*
 * pcm_vnfault.c: a test microphone (and speaker) that misbehaves on cue — an ALSA external I/O plugin (alsa-lib's
 * ioplug SDK), loaded by alsa-lib itself like any third-party PCM, so the library under test meets real -EPIPE,
 * -ESTRPIPE and -ENODEV from snd_pcm_wait/snd_pcm_readi/snd_pcm_writei and runs alsa-lib's real
 * snd_pcm_recover/snd_pcm_resume/snd_pcm_prepare. No sound card here can produce those on demand; this plugin does,
 * at exact frame positions.
 *
 * Build (the tests do this): cc -shared -fPIC pcm_vnfault.c $(pkg-config --cflags --libs alsa)
 *                              -o libasound_module_pcm_vnfault.so
 * Use (ALSA configuration text, e.g. through snd_pcm_open_lconf):
 *   pcm_type.vnfault { lib "/path/libasound_module_pcm_vnfault.so" }
 *   pcm.mic { type vnfault infile "/path/speech.raw" rate 48000 faults "xrun@48000 suspend@96000" resume 1 }
 *   pcm.spk { type vnfault outfile "/path/out.raw" rate 48000 faults "xrun@4800 unplug@9600" }
 *
 * S16_LE mono at `rate` (default 48000).
 * Capture: it delivers `infile` (raw S16_LE mono; silence after its end) as fast as it is read, like ALSA's `file`
 * plugin over `null`. `faults` lists events, each `kind@frame`, fired when the reader has read `frame` frames in all
 * (counted across recoveries). Where the error shows: with `poll_errors 0` (default) from snd_pcm_readi, through the
 * hardware pointer; with `poll_errors 1` from snd_pcm_wait, as POLLERR, which is how a kernel driver reports XRUN,
 * SUSPENDED and DISCONNECTED.
 * Playback: once started (by itself at the start threshold, or by snd_pcm_start) it plays what is written as fast
 * as it is written, like `file` over `null`, appending it to `outfile` (raw S16_LE mono, truncated at open unless `append 1`;
 * optional; no `infile`). Faults fire when `frame` frames have been played in all and show in the write path
 * (snd_pcm_writei, snd_pcm_avail_delay, snd_pcm_delay); `poll_errors` and `lost` apply to capture only.
 *   xrun@N     an overrun (-EPIPE); `lost` frames of input (default 0, at most 1000000) are skipped, as a real
 *              overrun loses them. In playback an underrun: the write is refused, nothing played is lost.
 *   suspend@N  the PCM enters SUSPENDED (-ESTRPIPE); snd_pcm_resume brings it back if `resume` is 1, else resume
 *              does nothing (as a driver that cannot resume) and only snd_pcm_prepare (+ snd_pcm_start) recover it.
 *   unplug@N   the PCM enters DISCONNECTED (-ENODEV), as when a USB microphone or headset is pulled.
 *   broken@N   an overrun after which every snd_pcm_prepare fails with -EIO: snd_pcm_recover cannot fix it.
 *   dead@N     no error now, but every later snd_pcm_prepare fails with -EIO (a device that cannot be restarted
 *              after a pause).
 *   stuck@N    from then on every pointer query overruns, though prepare succeeds: a device that never recovers.
 * Every event fires once. Two more fields fail the device before any audio: `open_error` (a negative errno, e.g.
 * -13 for EACCES) is returned by the open itself, `start_error` by every snd_pcm_start. The plugin reads its faults
 * from the configuration only, so a test states exactly what the device will do.
 */
#define _GNU_SOURCE
#include <alsa/asoundlib.h>
#include <alsa/pcm_external.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define MAX_FAULTS 32

enum fault_kind { FAULT_XRUN, FAULT_SUSPEND, FAULT_UNPLUG, FAULT_BROKEN, FAULT_DEAD, FAULT_STUCK };

struct fault {
    enum fault_kind kind;
    uint64_t frame;
    int fired;
};

struct vnfault {
    snd_pcm_ioplug_t io;
    int16_t *input;           /* the whole infile (capture) */
    int output_fd;            /* outfile (playback), -1 if none */
    size_t input_frames;
    size_t input_position;    /* next input frame to deliver */
    uint64_t consumed;        /* frames read in all, across recoveries */
    long lost;                /* input frames skipped on each xrun */
    int can_resume;
    int poll_errors;          /* faults surface from snd_pcm_wait (POLLERR) rather than from snd_pcm_readi */
    int start_error;          /* what every start returns (0: starts) */
    int broken;               /* prepare fails from now on */
    int stuck;                /* every pointer query overruns from now on */
    int xrun_pending;
    struct fault faults[MAX_FAULTS];
    int fault_count;
};

static int parse_faults(struct vnfault *f, const char *text) {
    static const struct { const char *name; enum fault_kind kind; } kinds[] = {
        {"xrun", FAULT_XRUN}, {"suspend", FAULT_SUSPEND}, {"unplug", FAULT_UNPLUG},
        {"broken", FAULT_BROKEN}, {"dead", FAULT_DEAD}, {"stuck", FAULT_STUCK}};
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        const char *at = strchr(p, '@');
        if (at == NULL || f->fault_count == MAX_FAULTS) return -EINVAL;
        size_t length = (size_t)(at - p);
        int found = 0;
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
            if (strlen(kinds[k].name) == length && strncmp(kinds[k].name, p, length) == 0) {
                f->faults[f->fault_count].kind = kinds[k].kind;
                found = 1;
            }
        }
        if (!found) return -EINVAL;
        char *end;
        f->faults[f->fault_count].frame = strtoull(at + 1, &end, 10);
        if (end == at + 1) return -EINVAL;
        f->fault_count++;
        p = end;
    }
    return 0;
}

/* Fires the faults whose frame has been reached (a suspend or unplug changes the PCM's state). */
static void fire_due_faults(struct vnfault *f) {
    for (int i = 0; i < f->fault_count; i++) {
        struct fault *fault = &f->faults[i];
        if (fault->fired || f->consumed < fault->frame) continue;
        fault->fired = 1;
        switch (fault->kind) {
        case FAULT_XRUN: f->xrun_pending = 1; break;
        case FAULT_BROKEN: f->broken = 1; f->xrun_pending = 1; break;
        case FAULT_DEAD: f->broken = 1; break;
        case FAULT_STUCK: f->stuck = 1; break;
        case FAULT_SUSPEND: snd_pcm_ioplug_set_state(&f->io, SND_PCM_STATE_SUSPENDED); return;
        case FAULT_UNPLUG: snd_pcm_ioplug_set_state(&f->io, SND_PCM_STATE_DISCONNECTED); return;
        }
    }
}

static int vnfault_start(snd_pcm_ioplug_t *io) {
    struct vnfault *f = io->private_data;
    return f->start_error;
}

static int vnfault_stop(snd_pcm_ioplug_t *io) { (void)io; return 0; }

/* Whether an overrun is due now (an xrun fault, or every time once stuck); skips the input it loses. */
static int take_overrun(struct vnfault *f) {
    if (f->stuck) return 1;
    if (!f->xrun_pending) return 0;
    f->xrun_pending = 0;
    size_t skip = (size_t)f->lost;
    f->input_position = f->input_position + skip < f->input_frames ? f->input_position + skip : f->input_frames;
    return 1;
}

/* Playback: the hardware position, in boundary units (SND_PCM_IOPLUG_FLAG_BOUNDARY_WA, so a full buffer is not
 * mistaken for an empty one): everything written is played at once while running, nothing otherwise. */
static snd_pcm_sframes_t vnfault_playback_pointer(snd_pcm_ioplug_t *io) {
    struct vnfault *f = io->private_data;
    fire_due_faults(f);
    if (take_overrun(f)) return -EPIPE;
    if (io->state == SND_PCM_STATE_RUNNING) return (snd_pcm_sframes_t)io->appl_ptr;
    return (snd_pcm_sframes_t)io->hw_ptr;
}

/* The hardware position: always one period ahead of the reader (as fast as it is read), unless a fault fires. */
static snd_pcm_sframes_t vnfault_pointer(snd_pcm_ioplug_t *io) {
    struct vnfault *f = io->private_data;
    if (io->stream == SND_PCM_STREAM_PLAYBACK) return vnfault_playback_pointer(io);
    if (!f->poll_errors) {
        fire_due_faults(f);
        if (take_overrun(f)) return -EPIPE;
    }
    if (io->state == SND_PCM_STATE_SUSPENDED || io->state == SND_PCM_STATE_DISCONNECTED)
        return (snd_pcm_sframes_t)(io->hw_ptr % io->buffer_size);
    return (snd_pcm_sframes_t)((io->appl_ptr + io->period_size) % io->buffer_size);
}

/* With poll_errors: due faults put the PCM in its error state and the wait reports POLLERR, so snd_pcm_wait
 * answers -EPIPE, -ESTRPIPE or -ENODEV. Otherwise the eventfd's readiness as it is (always readable). */
static int vnfault_poll_revents(snd_pcm_ioplug_t *io, struct pollfd *pfd, unsigned int nfds,
                                unsigned short *revents) {
    struct vnfault *f = io->private_data;
    *revents = nfds > 0 ? (unsigned short)pfd[0].revents : 0;
    if (!f->poll_errors) return 0;
    if (io->state == SND_PCM_STATE_RUNNING) {
        fire_due_faults(f);
        if (io->state == SND_PCM_STATE_RUNNING && take_overrun(f)) snd_pcm_ioplug_set_state(io, SND_PCM_STATE_XRUN);
    }
    if (io->state == SND_PCM_STATE_XRUN || io->state == SND_PCM_STATE_SUSPENDED ||
        io->state == SND_PCM_STATE_DISCONNECTED)
        *revents = POLLERR;
    return 0;
}

static snd_pcm_sframes_t vnfault_transfer(snd_pcm_ioplug_t *io, const snd_pcm_channel_area_t *areas,
                                          snd_pcm_uframes_t offset, snd_pcm_uframes_t size) {
    struct vnfault *f = io->private_data;
    if (io->stream == SND_PCM_STREAM_PLAYBACK) {
        /* As a kernel driver answers a write to a suspended or unplugged device. */
        if (io->state == SND_PCM_STATE_SUSPENDED) return -ESTRPIPE;
        if (io->state == SND_PCM_STATE_DISCONNECTED) return -ENODEV;
        const char *in = (const char *)areas[0].addr + (areas[0].first + offset * areas[0].step) / 8;
        size_t bytes = size * sizeof(int16_t);
        while (f->output_fd >= 0 && bytes > 0) {
            ssize_t done = write(f->output_fd, in, bytes);
            if (done < 0 && errno == EINTR) continue;
            if (done <= 0) return -EIO;
            in += done;
            bytes -= (size_t)done;
        }
        f->consumed += size;
        return (snd_pcm_sframes_t)size;
    }
    int16_t *out = (int16_t *)((char *)areas[0].addr + (areas[0].first + offset * areas[0].step) / 8);
    for (snd_pcm_uframes_t i = 0; i < size; i++)
        out[i] = f->input_position < f->input_frames ? f->input[f->input_position++] : 0;
    f->consumed += size;
    return (snd_pcm_sframes_t)size;
}

static int vnfault_prepare(snd_pcm_ioplug_t *io) {
    struct vnfault *f = io->private_data;
    return f->broken ? -EIO : 0;
}

static int vnfault_resume(snd_pcm_ioplug_t *io) {
    struct vnfault *f = io->private_data;
    if (f->can_resume) snd_pcm_ioplug_set_state(io, SND_PCM_STATE_RUNNING);
    return 0;
}

static int vnfault_close(snd_pcm_ioplug_t *io) {
    struct vnfault *f = io->private_data;
    if (io->poll_fd >= 0) close(io->poll_fd);
    if (f->output_fd >= 0) close(f->output_fd);
    free(f->input);
    free(f);
    return 0;
}

static const snd_pcm_ioplug_callback_t vnfault_callbacks = {
    .start = vnfault_start,
    .stop = vnfault_stop,
    .pointer = vnfault_pointer,
    .transfer = vnfault_transfer,
    .prepare = vnfault_prepare,
    .resume = vnfault_resume,
    .poll_revents = vnfault_poll_revents,
    .close = vnfault_close,
};

static int load_input(struct vnfault *f, const char *path) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return -errno;
    long bytes = fseek(file, 0, SEEK_END) == 0 ? ftell(file) : -1;
    if (bytes < 0 || fseek(file, 0, SEEK_SET) != 0) {
        fclose(file);
        return -EIO;
    }
    f->input = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (f->input == NULL) {
        fclose(file);
        return -ENOMEM;
    }
    f->input_frames = fread(f->input, sizeof(int16_t), (size_t)bytes / sizeof(int16_t), file);
    fclose(file);
    return 0;
}

SND_PCM_PLUGIN_DEFINE_FUNC(vnfault) {
    (void)root;
    const char *infile = NULL, *outfile = NULL, *faults = "";
    long rate = 48000, lost = 0, can_resume = 1, poll_errors = 0, open_error = 0, start_error = 0, append = 0;
    snd_config_iterator_t i, next;
    snd_config_for_each(i, next, conf) {
        snd_config_t *n = snd_config_iterator_entry(i);
        const char *id;
        if (snd_config_get_id(n, &id) < 0) continue;
        if (strcmp(id, "comment") == 0 || strcmp(id, "type") == 0 || strcmp(id, "hint") == 0) continue;
        int err = 0;
        if (strcmp(id, "infile") == 0) err = snd_config_get_string(n, &infile);
        else if (strcmp(id, "outfile") == 0) err = snd_config_get_string(n, &outfile);
        else if (strcmp(id, "faults") == 0) err = snd_config_get_string(n, &faults);
        else if (strcmp(id, "rate") == 0) err = snd_config_get_integer(n, &rate);
        else if (strcmp(id, "lost") == 0) err = snd_config_get_integer(n, &lost);
        else if (strcmp(id, "resume") == 0) err = snd_config_get_integer(n, &can_resume);
        else if (strcmp(id, "poll_errors") == 0) err = snd_config_get_integer(n, &poll_errors);
        else if (strcmp(id, "open_error") == 0) err = snd_config_get_integer(n, &open_error);
        else if (strcmp(id, "start_error") == 0) err = snd_config_get_integer(n, &start_error);
        else if (strcmp(id, "append") == 0) err = snd_config_get_integer(n, &append);
        else {
            SNDERR("vnfault: unknown field %s", id);
            return -EINVAL;
        }
        if (err < 0) {
            SNDERR("vnfault: invalid value for %s", id);
            return -EINVAL;
        }
    }
    if ((stream == SND_PCM_STREAM_CAPTURE && infile == NULL) || lost < 0 || lost > 1000000 || rate <= 0 ||
        open_error > 0 || start_error > 0) {
        SNDERR("vnfault: capture needs infile; lost 0..1000000; rate > 0; errors are negative");
        return -EINVAL;
    }
    if (open_error < 0) return (int)open_error;
    struct vnfault *f = calloc(1, sizeof *f);
    if (f == NULL) return -ENOMEM;
    f->output_fd = -1;
    f->lost = lost;
    f->can_resume = (int)can_resume;
    f->poll_errors = (int)poll_errors;
    f->start_error = (int)start_error;
    int err = parse_faults(f, faults);
    if (err == 0 && stream == SND_PCM_STREAM_CAPTURE) err = load_input(f, infile);
    if (err == 0 && stream == SND_PCM_STREAM_PLAYBACK && outfile != NULL) {
        f->output_fd = open(outfile, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC) | O_CLOEXEC, 0644);
        if (f->output_fd < 0) err = -errno;
    }
    if (err < 0) {
        SNDERR("vnfault: bad faults, unreadable infile or unwritable outfile");
        if (f->output_fd >= 0) close(f->output_fd);
        free(f->input);
        free(f);
        return err;
    }
    f->io.version = SND_PCM_IOPLUG_VERSION;
    f->io.name = "voicenote fault-injecting test device";
    f->io.callback = &vnfault_callbacks;
    f->io.private_data = f;
    f->io.poll_fd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK);   /* always readable and writable: never paced */
    if (f->io.poll_fd < 0) {
        err = -errno;
        if (f->output_fd >= 0) close(f->output_fd);
        free(f->input);
        free(f);
        return err;
    }
    f->io.poll_events = stream == SND_PCM_STREAM_PLAYBACK ? POLLOUT : POLLIN;
    if (stream == SND_PCM_STREAM_PLAYBACK) f->io.flags = SND_PCM_IOPLUG_FLAG_BOUNDARY_WA;
    f->io.mmap_rw = 0;
    err = snd_pcm_ioplug_create(&f->io, name, stream, mode);
    if (err < 0) {
        close(f->io.poll_fd);
        if (f->output_fd >= 0) close(f->output_fd);
        free(f->input);
        free(f);
        return err;
    }
    const unsigned int access[] = {SND_PCM_ACCESS_RW_INTERLEAVED};
    const unsigned int formats[] = {SND_PCM_FORMAT_S16_LE};
    if ((err = snd_pcm_ioplug_set_param_list(&f->io, SND_PCM_IOPLUG_HW_ACCESS, 1, access)) < 0 ||
        (err = snd_pcm_ioplug_set_param_list(&f->io, SND_PCM_IOPLUG_HW_FORMAT, 1, formats)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(&f->io, SND_PCM_IOPLUG_HW_CHANNELS, 1, 1)) < 0 ||
        (err = snd_pcm_ioplug_set_param_minmax(&f->io, SND_PCM_IOPLUG_HW_RATE, (unsigned)rate, (unsigned)rate)) < 0) {
        snd_pcm_ioplug_delete(&f->io);
        return err;
    }
    *pcmp = f->io.pcm;
    return 0;
}

SND_PCM_PLUGIN_SYMBOL(vnfault);
