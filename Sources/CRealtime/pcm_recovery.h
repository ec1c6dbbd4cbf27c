/* What the capture and playback loops share (capture_loop.c, playback_loop.c): sleeping and the way back from a
 * suspend. Private to CRealtime (outside include/, so Swift never sees it); real-time safe: no allocation, no
 * lock, no call into Swift. */
#ifndef VOICENOTE_PCM_RECOVERY_H
#define VOICENOTE_PCM_RECOVERY_H

#include <alsa/asoundlib.h>
#include <stdatomic.h>

/* -EPIPE or -ESTRPIPE this many times in a row with no frame moved in between: the device is not recovering (a
 * recovery that "succeeds" but moves nothing), give up rather than spin. */
#define VNSHIM_MAX_RECOVERIES_WITHOUT_PROGRESS 8

/** Waits at most `timeout_ms` for the PCM to be ready (one poll(2) on its descriptors, then the plugin's revents):
 *  1 when it is, 0 when not (the timeout, or a wake-up the plugin did not confirm: then after a 1 ms pause, so a
 *  descriptor that stays readable never becomes a busy loop), or the negative error of a PCM in error (-EPIPE for an
 *  xrun, -ESTRPIPE suspended, -ENODEV disconnected, -EIO otherwise). Unlike snd_pcm_wait, which polls again for as
 *  long as a plugin's descriptor wakes without its revents saying ready (the PulseAudio plugin on a suspended source
 *  does so for ever), the wait is bounded, so a loop that calls it sees its stop flag. No allocation. */
int vnshim_pcm_wait_bounded(snd_pcm_t *pcm, int timeout_ms);

/** Sleeps `milliseconds`, through EINTR. */
void vnshim_sleep_milliseconds(long milliseconds);

/** -ESTRPIPE (suspended): resume, or prepare (and, when `restart`, start) as snd_pcm_recover would, without its
 *  unbounded sleep(1) loop. snd_pcm_resume answering -EAGAIN is retried 100 times, 10 ms apart. A resume that
 *  answers 0 but leaves the PCM suspended (plugins whose driver cannot resume do that) also falls back to prepare.
 *  A capture restarts at once; a playback stream is left prepared (its buffer is empty: it starts when written).
 *  0 when the PCM runs again (or `*stop_requested` became set), else the error that ends the loop. */
int vnshim_pcm_resume_after_suspend(snd_pcm_t *pcm, _Atomic int *stop_requested, int restart);

#endif
