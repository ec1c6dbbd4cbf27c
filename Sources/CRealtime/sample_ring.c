/* A single-producer single-consumer ring of int16 samples with C11 atomics: the real-time capture thread writes,
 * the encoder thread reads. Neither side allocates or locks; the producer wakes the consumer with sem_post
 * (async-signal-safe, never blocks). */
#include "realtime.h"
#include "deadline.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t round_up_power_of_two(size_t value) {
    size_t result = 1;
    while (result < value) result <<= 1;
    return result;
}

vnshim_ring *vnshim_ring_create(size_t minimum_samples) {
    vnshim_ring *ring = calloc(1, sizeof *ring);
    if (ring == NULL) return NULL;
    ring->capacity = round_up_power_of_two(minimum_samples < 2 ? 2 : minimum_samples);
    ring->samples = calloc(ring->capacity, sizeof(int16_t));
    if (ring->samples == NULL || sem_init(&ring->readable, 0, 0) != 0) {
        free(ring->samples);
        free(ring);
        return NULL;
    }
    atomic_init(&ring->write_index, 0);
    atomic_init(&ring->read_index, 0);
    return ring;
}

void vnshim_ring_destroy(vnshim_ring *ring) {
    if (ring == NULL) return;
    sem_destroy(&ring->readable);
    free(ring->samples);
    free(ring);
}

size_t vnshim_ring_write(vnshim_ring *ring, const int16_t *samples, size_t count) {
    size_t write = atomic_load_explicit(&ring->write_index, memory_order_relaxed);
    size_t read = atomic_load_explicit(&ring->read_index, memory_order_acquire);
    size_t space = ring->capacity - (write - read);
    if (count > space) count = space;
    size_t start = write & (ring->capacity - 1);
    size_t first = ring->capacity - start < count ? ring->capacity - start : count;
    memcpy(ring->samples + start, samples, first * sizeof(int16_t));
    memcpy(ring->samples, samples + first, (count - first) * sizeof(int16_t));
    atomic_store_explicit(&ring->write_index, write + count, memory_order_release);
    if (count > 0) sem_post(&ring->readable);
    return count;
}

size_t vnshim_ring_read(vnshim_ring *ring, int16_t *samples, size_t count) {
    size_t read = atomic_load_explicit(&ring->read_index, memory_order_relaxed);
    size_t write = atomic_load_explicit(&ring->write_index, memory_order_acquire);
    size_t available = write - read;
    if (count > available) count = available;
    size_t start = read & (ring->capacity - 1);
    size_t first = ring->capacity - start < count ? ring->capacity - start : count;
    memcpy(samples, ring->samples + start, first * sizeof(int16_t));
    memcpy(samples + first, ring->samples, (count - first) * sizeof(int16_t));
    atomic_store_explicit(&ring->read_index, read + count, memory_order_release);
    return count;
}

size_t vnshim_ring_available(vnshim_ring *ring) {
    return atomic_load_explicit(&ring->write_index, memory_order_acquire) -
           atomic_load_explicit(&ring->read_index, memory_order_acquire);
}

void vnshim_ring_notify(vnshim_ring *ring) { sem_post(&ring->readable); }

int vnshim_ring_wait(vnshim_ring *ring, int timeout_ms) {
    struct timespec deadline = vnshim_deadline_after_ms(CLOCK_REALTIME, timeout_ms);  /* sem_timedwait's clock */
    while (sem_timedwait(&ring->readable, &deadline) != 0) {
        if (errno != EINTR) return 0;
    }
    return 1;
}
