/*
 * floor_waveform.c: the C floor of the waveform bench (docs/waveform.md, docs/performance.md): the least work that gives voicenote's
 * waveform of an Ogg Opus file, with nothing but libogg and libopus.
 *
 * Usage: floor_waveform FILE [SAMPLES]      (SAMPLES defaults to 100)
 * Prints the waveform as one JSON array on stdout, formatted as `voicenote waveform FILE --samples SAMPLES`
 * prints it (values rounded to 4 decimals). Exit status 0, or 1 with a message on stderr.
 *
 * What it does, and nothing more:
 * - Streams the file in 64 KiB reads through ogg_sync, as the library does; keeps only the first logical stream.
 * - N (frames at 16 kHz) = (granule of that stream's last page − pre-skip) / 3, read from the file's tail.
 * - A plain OpusDecoder (no multistream API) at 16 kHz, int16 output, header gain applied with OPUS_SET_GAIN;
 *   pre-skip dropped (rounded to 16 kHz) and output trimmed to N frames. Damaged packets are skipped; fewer than
 *   N frames in all (a truncated file) is an error, since the floor is only meant for whole files.
 * - docs/waveform.md: bucket i holds frames [⌊i·N/n⌋, ⌊(i+1)·N/n⌋); every sample's dB, 20·log10(|x| / 32767) clipped to
 *   [−50, 0], comes from a 32768-entry table (−32768 reads 32767); a bucket's value is the mean over its samples
 *   (every channel), mapped by (v + 50) / 50; a bucket without frames is 0.
 * Channel-mapping family 0 only (mono, stereo), which is every voice note.
 *
 * Build: cc -O2 floor_waveform.c $(pkg-config --cflags --libs ogg opus) -lm -o floor_waveform
 */
#define _FILE_OFFSET_BITS 64
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <ogg/ogg.h>
#include <opus/opus.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

enum { CHUNK = 65536, RATE = 16000, DECIMATION = 48000 / RATE, MAX_FRAMES = RATE * 120 / 1000 };

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "floor_waveform: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    return 1;
}

/* The granule position of the last page of stream `serial` with one, or -1: reads the file's tail in growing
 * windows through a second ogg_sync (which checks every page's CRC). Leaves the file position where it was. */
static int64_t last_granule(FILE *f, int serial)
{
    off_t resume = ftello(f);
    if (fseeko(f, 0, SEEK_END) != 0)
        return -1;
    off_t end = ftello(f), window = CHUNK;
    int64_t granule = -1;
    for (;;) {
        off_t start = end > window ? end - window : 0;
        ogg_sync_state sync;
        ogg_page page;
        ogg_sync_init(&sync);
        if (fseeko(f, start, SEEK_SET) != 0)
            break;
        for (off_t left = end - start; left > 0;) {
            char *buffer = ogg_sync_buffer(&sync, CHUNK);
            size_t got = fread(buffer, 1, left < CHUNK ? (size_t)left : CHUNK, f);
            if (got == 0)
                break;
            ogg_sync_wrote(&sync, (long)got);
            left -= (off_t)got;
            while (ogg_sync_pageout(&sync, &page) == 1)
                if (ogg_page_serialno(&page) == serial && ogg_page_granulepos(&page) >= 0)
                    granule = ogg_page_granulepos(&page);
        }
        ogg_sync_clear(&sync);
        if (granule >= 0 || start == 0)
            break;
        window *= 4;
    }
    fseeko(f, resume, SEEK_SET);
    return granule;
}

/* Prints a value as the CLI does: the Float rounded to 4 decimals, then as Swift prints that Double (the shortest
 * text that reads back to it, always with a decimal point). */
static void print_value(float value, int first)
{
    double rounded = (double)roundf(value * 10000.0f) / 10000.0;
    char text[40];
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(text, sizeof text, "%.*g", precision, rounded);
        if (strtod(text, NULL) == rounded)
            break;
    }
    printf("%s%s%s", first ? "" : ",", text, strpbrk(text, ".e") ? "" : ".0");
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: floor_waveform FILE [SAMPLES]\n");
        return 2;
    }
    long n = argc == 3 ? strtol(argv[2], NULL, 10) : 100;
    if (n < 1 || n > 1000000)
        return fail("SAMPLES must be 1…1000000", NULL);
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL)
        return fail("cannot open", argv[1]);

    static float decibels[32768];
    decibels[0] = -50.0f;
    for (int m = 1; m < 32768; m++) {
        double db = 20.0 * log10(m / 32767.0);
        decibels[m] = db < -50.0 ? -50.0f : (float)db;
    }

    double *sums = calloc((size_t)n, sizeof *sums);
    int16_t pcm[MAX_FRAMES * 2];
    ogg_sync_state sync;
    ogg_stream_state stream;
    ogg_page page;
    ogg_packet packet;
    ogg_sync_init(&sync);
    OpusDecoder *decoder = NULL;
    int have_stream = 0, serial = 0, channels = 0, done = 0;
    long packets = 0, damaged = 0;
    int64_t frames = 0;      /* N */
    int64_t skip = 0;        /* pre-skip frames still to drop */
    int64_t position = 0;    /* frames kept so far */
    long bucket = 0;         /* the bucket being filled */
    int64_t bucket_end = 0;  /* its first frame past the end */
    if (sums == NULL)
        return fail("out of memory", NULL);

    while (!done) {
        int got_page = ogg_sync_pageout(&sync, &page);
        if (got_page == 0) {
            char *buffer = ogg_sync_buffer(&sync, CHUNK);
            size_t got = fread(buffer, 1, CHUNK, f);
            if (got == 0)
                break;
            ogg_sync_wrote(&sync, (long)got);
            continue;
        }
        if (got_page < 0)
            continue; /* skipped bytes before a page */
        if (!have_stream) {
            if (!ogg_page_bos(&page))
                continue;
            serial = ogg_page_serialno(&page);
            ogg_stream_init(&stream, serial);
            have_stream = 1;
        }
        if (ogg_page_serialno(&page) != serial)
            continue;
        ogg_stream_pagein(&stream, &page);
        int got_packet;
        while (!done && (got_packet = ogg_stream_packetout(&stream, &packet)) != 0) {
            if (got_packet < 0)
                continue; /* a hole in the data */
            packets++;
            if (packets == 1) { /* OpusHead */
                const unsigned char *h = packet.packet;
                if (packet.bytes < 19 || memcmp(h, "OpusHead", 8) != 0)
                    return fail("not an Ogg Opus stream", argv[1]);
                channels = h[9];
                if (h[18] != 0 || channels < 1 || channels > 2)
                    return fail("only channel-mapping family 0 (mono, stereo) here", argv[1]);
                int pre_skip = h[10] | h[11] << 8;
                int gain = (int16_t)(h[16] | h[17] << 8);
                int error = 0;
                decoder = opus_decoder_create(RATE, channels, &error);
                if (decoder == NULL)
                    return fail("opus_decoder_create", opus_strerror(error));
                if (gain != 0 && opus_decoder_ctl(decoder, OPUS_SET_GAIN(gain)) != OPUS_OK)
                    return fail("OPUS_SET_GAIN failed", NULL);
                int64_t granule = last_granule(f, serial);
                if (granule < 0)
                    return fail("no granule position in the stream", argv[1]);
                frames = granule > pre_skip ? (granule - pre_skip) / DECIMATION : 0;
                skip = (pre_skip + DECIMATION / 2) / DECIMATION;
                bucket_end = frames / n;
                continue;
            }
            if (packets == 2 || packet.bytes == 0) /* OpusTags */
                continue;
            int decoded = opus_decode(decoder, packet.packet, (opus_int32)packet.bytes, pcm, MAX_FRAMES, 0);
            if (decoded <= 0) {
                damaged++;
                continue;
            }
            int start = skip < decoded ? (int)skip : decoded;
            skip -= start;
            int end = frames - position < decoded - start ? start + (int)(frames - position) : decoded;
            if (end <= start) {
                done = position >= frames;
                continue;
            }
            /* Runs of frames that stay inside one bucket: a table read and an add per sample. */
            for (int i = start; i < end;) {
                while (position >= bucket_end && bucket < n - 1)
                    bucket_end = frames * (++bucket + 1) / n;
                int run = bucket_end - position < end - i ? (int)(bucket_end - position) : end - i;
                const int16_t *p = pcm + (size_t)i * channels;
                double sum = 0.0;
                for (int k = 0; k < run * channels; k++) {
                    int m = p[k] < 0 ? -p[k] : p[k];
                    sum += decibels[m > 32767 ? 32767 : m];
                }
                sums[bucket] += sum;
                position += run;
                i += run;
            }
            done = position >= frames;
        }
    }
    if (decoder == NULL)
        return fail("no Opus stream found", argv[1]);
    if (position != frames) {
        fprintf(stderr, "floor_waveform: %lld of the %lld frames the granule positions promise were decoded\n",
                (long long)position, (long long)frames);
        return 1; /* truncated or lying: not a bench input */
    }
    if (damaged > 0)
        fprintf(stderr, "floor_waveform: %ld damaged packets skipped\n", damaged);

    putchar('[');
    for (long i = 0; i < n; i++) {
        int64_t first = frames * i / n, last = frames * (i + 1) / n;
        float value = 0.0f;
        if (last > first) {
            double mean = sums[i] / ((double)(last - first) * channels);
            double level = (mean + 50.0) / 50.0;
            value = (float)(level < 0.0 ? 0.0 : level > 1.0 ? 1.0 : level);
        }
        print_value(value, i == 0);
    }
    puts("]");

    opus_decoder_destroy(decoder);
    ogg_stream_clear(&stream);
    ogg_sync_clear(&sync);
    free(sums);
    fclose(f);
    return 0;
}
