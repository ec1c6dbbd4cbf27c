/* PulseAudio streams with a role (docs/desktop.md, "Stream roles"): capture and playback through libpulse itself,
 * opened with dlopen on first use (libpulse.so.0), for the one thing ALSA's pulse plugin cannot do — give a stream
 * its `media.role` (and a name), so the sound server's own policies (module-role-cork, module-role-ducking,
 * PipeWire's roles) see a voice message for what it is. Same contracts as the ALSA loops in realtime.h: frames move
 * through a vnshim_ring, counters are atomics, nothing here calls Swift. libpulse's own thread (`vn-pulse`) runs the
 * stream's callbacks; a playback stream adds a `vn-playback` thread of ours that feeds it from the ring. Owner calls
 * (start, stop, end_of_stream, close) are serialized by the owner. Errors are negative errno values; a message
 * (libpulse's text) goes to the caller's buffer. Nothing here is public: the version script exports vn_* alone. */
#ifndef VOICENOTE_PULSE_STREAMS_H
#define VOICENOTE_PULSE_STREAMS_H

#include <stddef.h>
#include <stdint.h>

#include "realtime.h"

/** Loads libpulse (libpulse.so.0) and resolves every function voicenote calls; once per process (pthread_once).
 *  \param message on failure, receives static text naming what is missing (NULL is fine).
 *  \returns 0 when libpulse is ready, -1 when it cannot be loaded (and never will be in this process). */
int vnpa_load(const char **message);

/** A stream's direction. */
typedef enum { VNPA_CAPTURE = 0, VNPA_PLAYBACK = 1 } vnpa_direction;

/** What to open (the client is named after the program). Strings are copied; NULL `server` is libpulse's default
 *  server, NULL `device` the server's default source or sink. */
typedef struct vnpa_request {
    vnpa_direction direction;
    const char *server;         /* "unix:/run/user/1000/pulse/native", ... */
    const char *device;         /* a source or sink name */
    const char *role;           /* media.role: "phone", "music", ...; NULL for none */
    const char *stream_name;    /* media.name */
    unsigned rate;              /* 8000 ... 192000 */
    unsigned channels;          /* 1 ... 8 */
    unsigned period_ms;         /* a read's or write's size: 1 ... 1000 */
    unsigned buffer_ms;         /* playback: what the server holds ahead (tlength); capture: unused */
    unsigned timeout_ms;        /* bounds the connection and the stream's setup */
} vnpa_request;

/** An open stream; fields are private. */
typedef struct vnpa_stream vnpa_stream;

/** Connects to the server and sets the stream up (corked: nothing moves until start), within `timeout_ms`.
 *  \returns 0 with *out set, or -EINVAL (bad request), -ENOMEM, -ECONNREFUSED (no server answered, or it refused),
 *  -ETIMEDOUT, -ENOENT (no such source or sink), -EIO (anything else); `message` gets libpulse's text. */
int vnpa_open(const vnpa_request *request, vnpa_stream **out, char *message, size_t message_size);
/** Stops and disconnects from the server (libpulse's thread ends); the counters stay readable, every other call is
 *  then harmless (a start is -EBADFD). Idempotent. */
void vnpa_disconnect(vnpa_stream *stream);
/** Disconnects and frees; NULL is fine. Counters are gone with it. */
void vnpa_close(vnpa_stream *stream);

/** Frames per period, and (playback) the frames the server holds ahead at most. */
size_t vnpa_period_frames(vnpa_stream *stream);
size_t vnpa_buffer_frames(vnpa_stream *stream);

/** Capture: frames go into `ring` from now on (the stream is uncorked). 0, -EBUSY while running, or -EIO when the
 *  stream is gone. */
int vnpa_capture_start(vnpa_stream *stream, vnshim_ring *ring);
/** Capture: corks the stream, drops what the server still holds, and wakes the ring's consumer. Harmless when not
 *  running. */
void vnpa_capture_stop(vnpa_stream *stream);

/** Playback: starts the `vn-playback` thread feeding the stream from `ring` (uncorked). Clears the end-of-stream
 *  mark, the error and `finished`. 0, -EBUSY while running, -EIO when the stream is gone, or the pthread error. */
int vnpa_playback_start(vnpa_stream *stream, vnshim_ring *ring);
/** Playback: nothing more comes after what the ring holds: the thread plays it out (a server drain) and ends. */
void vnpa_playback_end_of_stream(vnpa_stream *stream);
/** Playback: waits up to `timeout_ms` for the thread to end; 1 when it is not running, 0 on timeout. */
int vnpa_playback_wait_end(vnpa_stream *stream, int timeout_ms);
/** Playback producer: waits up to `timeout_ms` until the thread leaves the ring at most half full, or ends; 1 when
 *  woken (or not running), 0 on timeout. One waiting thread at a time. */
int vnpa_playback_wait(vnpa_stream *stream, int timeout_ms);
/** Playback: stops and joins the thread, corks the stream and drops what the server holds (counted as dropped).
 *  The ring keeps what it holds. Harmless when not running. */
void vnpa_playback_stop(vnpa_stream *stream);
/** Playback: frames written, dropped and the server's delay now (its interpolated latency while running). */
void vnpa_playback_position_now(vnpa_stream *stream, vnshim_playback_position *position);

/** 1 from a successful start until the stream stops, ends or is lost. Any thread. */
int vnpa_is_running(vnpa_stream *stream);
/** The negative error that ended it by itself (-ENODEV: the server or the device went away), 0 if none since the
 *  last start. */
int vnpa_error(vnpa_stream *stream);
/** Playback: 1 when the last run ended by playing the end of stream out; cleared by start. */
int vnpa_finished(vnpa_stream *stream);
/** Frames moved: captured into rings, or written to the server; since open. */
int64_t vnpa_frames(vnpa_stream *stream);
/** Capture: always 0 (what the ring has no room for waits in libpulse's queue); playback: frames written, never heard. */
int64_t vnpa_dropped_frames(vnpa_stream *stream);
/** Capture overflows (the server's buffer full: it dropped frames), or playback underflows reported by the server. */
int64_t vnpa_xruns(vnpa_stream *stream);

#endif
