/* CRealtime: the real-time C of voicenote (docs/recorder.md, "Threads"): the lock-free sample ring, the ALSA
 * capture and playback loops, and the capture of ALSA's error messages. Plain C threads that never allocate, lock
 * or call Swift once started. Named vnshim_*; hidden by the version script. */
#ifndef VOICENOTE_CREALTIME_H
#define VOICENOTE_CREALTIME_H

#include <semaphore.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/** A single-producer single-consumer ring of int16 samples (see sample_ring.c); fields are private. */
typedef struct vnshim_ring {
    int16_t *samples;
    size_t capacity;                /* a power of two */
    _Atomic size_t write_index;     /* samples ever written */
    _Atomic size_t read_index;      /* samples ever read */
    sem_t readable;                 /* posted after each write */
} vnshim_ring;

/** A ring holding at least `minimum_samples`; NULL when out of memory. */
vnshim_ring *vnshim_ring_create(size_t minimum_samples);
/** Frees a ring (NULL is fine). No reader or writer may be running. */
void vnshim_ring_destroy(vnshim_ring *ring);
/** Producer: copies up to `count` samples in; returns how many fitted. Real-time safe; wakes the consumer. */
size_t vnshim_ring_write(vnshim_ring *ring, const int16_t *samples, size_t count);
/** Consumer: copies up to `count` samples out; returns how many were there. */
size_t vnshim_ring_read(vnshim_ring *ring, int16_t *samples, size_t count);
/** Samples waiting to be read. */
size_t vnshim_ring_available(vnshim_ring *ring);
/** Wakes a waiting consumer without writing (to make it notice a stop). */
void vnshim_ring_notify(vnshim_ring *ring);
/** Consumer: waits up to `timeout_ms` for a write or notify; 1 when woken, 0 on timeout. */
int vnshim_ring_wait(vnshim_ring *ring, int timeout_ms);

/* ALSA (alsa_errors.c, capture_loop.c, playback_loop.c). <alsa/asoundlib.h> stays out of this header: CALSA owns it. */
struct _snd_pcm;

/** Until the matching end, ALSA's error messages on the calling thread are kept (vnshim_alsa_errors_last) instead
 *  of printed to stderr. Per thread (snd_lib_error_set_local), never the process-wide handler; nests. */
void vnshim_alsa_errors_begin(void);
/** Restores the calling thread's previous ALSA error handler when the outermost begin ends. */
void vnshim_alsa_errors_end(void);
/** The calling thread's last ALSA message since the outermost begin ("" if none), with snd_strerror appended. */
const char *vnshim_alsa_errors_last(void);
/** Drops every ALSA message on the calling thread from now on, without formatting it (for the capture thread). */
void vnshim_alsa_errors_silence_thread(void);

/** A capture thread bound to one configured PCM (see capture_loop.c); fields are private. */
typedef struct vnshim_capture vnshim_capture;

/** Takes ownership of `pcm` (configured: S16 interleaved, `channels`, non-blocking) and allocates one period.
 *  While the ring has no room for a period, the device is not read for up to `buffer_ms` (its buffer's length);
 *  after that, periods are read and dropped. NULL when out of memory or an argument is 0/NULL (the PCM is then
 *  still the caller's). */
vnshim_capture *vnshim_capture_create(struct _snd_pcm *pcm, size_t period_frames, size_t channels,
                                      unsigned period_ms, unsigned buffer_ms);
/** Prepares and starts the PCM and the thread writing into `ring` (kept alive by the caller until stop/close).
 *  0, -EBUSY while running, -EBADFD after close, or the ALSA/pthread error. Owner calls are not concurrent. */
int vnshim_capture_start(vnshim_capture *capture, vnshim_ring *ring);
/** Stops and joins the thread (at most one 20 ms wait plus one read), drops pending frames, wakes the ring's
 *  consumer. Harmless when not running. */
void vnshim_capture_stop(vnshim_capture *capture);
/** Stop, then snd_pcm_close; idempotent. The counters stay readable. */
void vnshim_capture_close(vnshim_capture *capture);
/** Close and free (NULL is fine). */
void vnshim_capture_destroy(vnshim_capture *capture);
/** 1 from a successful start until the thread ends (stop or device lost). Any thread. */
int vnshim_capture_is_running(vnshim_capture *capture);
/** The negative ALSA error that ended the thread by itself (device lost), 0 if none since the last start. */
int vnshim_capture_error(vnshim_capture *capture);
/** -EPIPE overruns plus periods the ring had no room for (dropped); since create. */
int64_t vnshim_capture_overruns(vnshim_capture *capture);
/** Frames written into rings; since create. */
int64_t vnshim_capture_frames(vnshim_capture *capture);
/** Frames read from the device but dropped because the ring was full; since create. */
int64_t vnshim_capture_dropped_frames(vnshim_capture *capture);
/** Loop iterations (one snd_pcm_wait each); since create. For tests: proves the loop does not spin. */
uint64_t vnshim_capture_iterations(vnshim_capture *capture);
/** snd_pcm_recover / resume attempts; since create. */
uint64_t vnshim_capture_recoveries(vnshim_capture *capture);

/** A playback thread bound to one configured PCM (see playback_loop.c); fields are private. */
typedef struct vnshim_playback vnshim_playback;

/** Where playback is, in frames of the device: `frames_written - frames_dropped - delay_frames` have been heard. */
typedef struct vnshim_playback_position {
    int64_t frames_written;     /* accepted by the device (snd_pcm_writei), since create */
    int64_t frames_dropped;     /* accepted but never heard: dropped by stop, or lost with the device */
    int64_t delay_frames;       /* accepted, not heard yet: snd_pcm_delay as last measured, less the time since */
} vnshim_playback_position;

/** Takes ownership of `pcm` (configured: S16 interleaved, `channels` at `rate`, non-blocking, start threshold at
 *  most `buffer_frames`) and allocates one period. NULL when out of memory or an argument is 0/NULL (the PCM is
 *  then still the caller's). */
vnshim_playback *vnshim_playback_create(struct _snd_pcm *pcm, unsigned rate, size_t channels, size_t period_frames,
                                        size_t buffer_frames);
/** Prepares the PCM and starts the thread reading from `ring` (kept alive by the caller until stop/close); the PCM
 *  itself starts when its buffer is full, or when the ring runs dry with frames queued. Clears the end-of-stream
 *  mark, the error and `finished`. 0, -EBUSY while running, -EBADFD after close, or the ALSA/pthread error. Owner
 *  calls (start, stop, close) are not concurrent. */
int vnshim_playback_start(vnshim_playback *playback, vnshim_ring *ring);
/** Nothing more comes after what the ring holds: the thread plays the ring and the device's buffer out, stops the
 *  PCM and ends by itself (`finished` becomes 1). Wakes the thread. An owner call (serialized with start and stop;
 *  the producer may make it under the owner's lock). */
void vnshim_playback_end_of_stream(vnshim_playback *playback);
/** Waits up to `timeout_ms` for the thread to end (played out, stopped or device lost); 1 when it is not running,
 *  0 on timeout. Any thread, any number of waiters. */
int vnshim_playback_wait_end(vnshim_playback *playback, int timeout_ms);
/** Producer: waits up to `timeout_ms` until the thread has taken frames from the ring leaving it at most half full
 *  (room for a good batch: a producer that refills a half-empty ring wakes once per half ring, not once per period)
 *  or ends; 1 when woken (or not running), 0 on timeout. One waiting thread at a time. */
int vnshim_playback_wait(vnshim_playback *playback, int timeout_ms);
/** Stops and joins the thread (at most one 20 ms device wait, or at once when it waits on the ring), drops what the
 *  device holds (counted in frames_dropped) and what the thread had taken from the ring but not written. The ring
 *  keeps what it holds. Harmless when not running. */
void vnshim_playback_stop(vnshim_playback *playback);
/** Stop, then snd_pcm_close; idempotent. The counters stay readable. */
void vnshim_playback_close(vnshim_playback *playback);
/** Close and free (NULL is fine). */
void vnshim_playback_destroy(vnshim_playback *playback);
/** 1 from a successful start until the thread ends (stop, end of stream played out, device lost). Any thread. */
int vnshim_playback_is_running(vnshim_playback *playback);
/** 1 when the last run ended by playing the end of stream out; cleared by start. */
int vnshim_playback_finished(vnshim_playback *playback);
/** The negative error that ended the thread by itself (ALSA's; -ETIMEDOUT for a device that stopped playing while
 *  the end was played out), 0 if none since the last start. */
int vnshim_playback_error(vnshim_playback *playback);
/** A consistent snapshot of the position, the delay extrapolated to now while the device plays. Any thread; never
 *  touches the PCM (the thread measures, so no lock inside alsa-lib is ever contended). */
void vnshim_playback_position_now(vnshim_playback *playback, vnshim_playback_position *position);
/** Frames accepted by the device; since create. */
int64_t vnshim_playback_frames(vnshim_playback *playback);
/** Underruns (-EPIPE) met while playing, each recovered with snd_pcm_recover; since create. */
int64_t vnshim_playback_underruns(vnshim_playback *playback);
/** Loop iterations; since create. For tests: proves the loop does not spin. */
uint64_t vnshim_playback_iterations(vnshim_playback *playback);
/** snd_pcm_recover / resume attempts; since create. */
uint64_t vnshim_playback_recoveries(vnshim_playback *playback);

#endif
