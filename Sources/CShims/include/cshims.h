/* CShims: the few things Swift cannot express, for voicenote's own modules only.
 * Nothing here is public: the version script exports vn_* alone, and these are named vnshim_*. */
#ifndef VOICENOTE_CSHIMS_H
#define VOICENOTE_CSHIMS_H

#include <semaphore.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct OpusDecoder OpusDecoder;

/** Stores this thread's last error message (copied, truncated to 1023 bytes). */
void vnshim_set_last_error(const char *message);

/** This thread's last error message; "" when none. Valid until the next vnshim_set_last_error on this thread. */
const char *vnshim_last_error(void);

/** A non-blocking, close-on-exec eventfd (sys/eventfd.h is not in Glibc's Swift module); -1 and errno on failure. */
int vnshim_eventfd(void);

/** Names the calling thread (at most 15 bytes are kept); pthread_setname_np needs _GNU_SOURCE. */
void vnshim_set_thread_name(const char *name);

/** Sets an OpusDecoder's output gain (Q7.8 dB, the Ogg Opus header's field); OPUS_OK or an Opus error. */
int vnshim_opus_decoder_set_gain(OpusDecoder *decoder, int gain_q8);

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

#endif
