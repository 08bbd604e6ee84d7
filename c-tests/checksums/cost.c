/*
 * What frame checksums cost (docs/checksums.md): appends to a frame file
 * and reads of all its chunks, with checksums off and on, interleaved in
 * one process, best of several rounds. A measurement, not a test: it
 * asserts nothing about time (run it by hand, or under
 * `valgrind --tool=callgrind` for instruction counts).
 *
 *   cost CHUNK_BYTES NCHUNKS [ROUNDS] [DIR]
 *
 * Prints one line per phase: the times off and on and their ratio.
 */
#include <blosc2.h>
#include <blosc2/blosc2-rs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* float32 samples of a noisy wave: compresses about 3x with shuffle */
static void fill(float *buf, size_t n, size_t first) {
    for (size_t i = 0; i < n; i++) {
        size_t k = first + i;
        buf[i] = (float)(k % 1000) * 0.001f + (float)((k * 2654435761u) >> 28) * 1e-4f;
    }
}

static int run(int on, size_t bytes, int nchunks, const char *path, float *buf, float *out,
               double *t_append, double *t_read) {
    blosc2_remove_urlpath(path);
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.compcode = BLOSC_LZ4;
    cp.nthreads = 1;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp, .dparams = &dp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    if (!sc || (on && blosc2rs_schunk_set_checksums(sc, true) < 0)) return -1;
    double t0 = now();
    for (int c = 0; c < nchunks; c++) {
        if (blosc2_schunk_append_buffer(sc, buf + (size_t)c * (bytes / 4), (int32_t)bytes) < 0) return -1;
    }
    *t_append = now() - t0;
    blosc2_schunk_free(sc);
    sc = blosc2_schunk_open(path);
    if (!sc) return -1;
    t0 = now();
    for (int c = 0; c < nchunks; c++) {
        if (blosc2_schunk_decompress_chunk(sc, c, out, (int32_t)bytes) != (int)bytes) return -1;
    }
    *t_read = now() - t0;
    blosc2_schunk_free(sc);
    blosc2_remove_urlpath(path);
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s CHUNK_BYTES NCHUNKS [ROUNDS] [DIR]\n", argv[0]);
        return 2;
    }
    size_t bytes = (size_t)atol(argv[1]) / 4 * 4;
    int nchunks = atoi(argv[2]);
    int rounds = argc > 3 ? atoi(argv[3]) : 5;
    char path[4096];
    snprintf(path, sizeof path, "%s/b2rs-cost.b2frame", argc > 4 ? argv[4] : "/tmp");
    blosc2_init();
    float *buf = malloc(bytes * (size_t)nchunks), *out = malloc(bytes);
    fill(buf, bytes / 4 * (size_t)nchunks, 0);
    double best[2][2] = {{1e9, 1e9}, {1e9, 1e9}};
    for (int r = 0; r < rounds; r++) {
        for (int on = 0; on < 2; on++) {
            double a, d;
            if (run(on, bytes, nchunks, path, buf, out, &a, &d) < 0) {
                fprintf(stderr, "cost: a call failed\n");
                return 1;
            }
            if (a < best[on][0]) best[on][0] = a;
            if (d < best[on][1]) best[on][1] = d;
        }
    }
    double mb = (double)bytes * nchunks / 1e6;
    const char *phase[2] = {"append", "read"};
    for (int p = 0; p < 2; p++)
        printf("%zu-byte chunks x %d, %s: off %.1f MB/s, on %.1f MB/s, on/off time %.3f\n", bytes,
               nchunks, phase[p], mb / best[0][p], mb / best[1][p], best[1][p] / best[0][p]);
    free(buf);
    free(out);
    blosc2_destroy();
    return 0;
}
