/* b2bench: compression and decompression speed of libblosc2 on synthetic
 * data, every round trip checked.  Run by ctest with upstream's benchmark
 * test options (TEST_INCLUDE_BENCH_*); also a quick manual benchmark.
 *
 *   b2bench [CODEC|all] [FILTER|all] [MODE] [NTHREADS] [SIZE] [TYPESIZE]
 *
 * CODEC: blosclz, lz4, lz4hc, zlib, zstd (codecs the library was built
 * without are reported and skipped).  FILTER: noshuffle, shuffle,
 * bitshuffle, delta (delta + shuffle), trunc_prec (float32 kept to 20 bits
 * + shuffle).  MODE: single (clevels 0-9), zeros (all-zero data), suite
 * (every codec and filter), hardsuite (and several typesizes and sizes),
 * extremesuite (typesizes 1-32), debugsuite (extremesuite with 1-4
 * threads, one repetition).  Exit status 0 when every round trip matched. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <blosc2.h>

static const char *all_codecs[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
static const char *all_filters[] = {"noshuffle", "shuffle", "bitshuffle", "delta", "trunc_prec"};
static int failures = 0;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void fill(uint8_t *buf, int32_t size, int32_t typesize, int zeros, int floats) {
  if (zeros) {
    memset(buf, 0, (size_t)size);
    return;
  }
  uint32_t state = 12345;
  if (floats) {
    float *f = (float *)buf;
    for (int32_t i = 0; i < size / 4; i++) {
      state = state * 1103515245u + 12345u;
      f[i] = (float)sin(i * 0.001) * 1000.0f + (float)(state >> 24) * 1e-3f;
    }
    return;
  }
  /* A ramp with a little noise in the low byte of each item: compressible
   * after shuffling, as real numeric data is. */
  for (int32_t i = 0; i < size / typesize; i++) {
    state = state * 1103515245u + 12345u;
    uint64_t v = (uint64_t)i * 3u + (state >> 29);
    for (int32_t b = 0; b < typesize; b++) {
      buf[(size_t)i * typesize + b] = b < 8 ? (uint8_t)(v >> (8 * b)) : 0;
    }
  }
  memset(buf + (size / typesize) * typesize, 0x5a, (size_t)(size % typesize));
}

static int check(const uint8_t *src, const uint8_t *back, int32_t size, int trunc) {
  if (!trunc) return memcmp(src, back, (size_t)size) == 0;
  const float *a = (const float *)src, *b = (const float *)back;
  for (int32_t i = 0; i < size / 4; i++) {
    /* 20 mantissa bits kept: relative error below 2^-19. */
    if (fabsf(a[i] - b[i]) > fabsf(a[i]) * 0x1p-19f) return 0;
  }
  return 1;
}

static void run(const char *codec, const char *filter, int zeros, int clevel, int nthreads,
                int32_t size, int32_t typesize, int reps) {
  int compcode = blosc2_compname_to_compcode(codec);
  if (compcode < 0) {
    printf("%-8s %-10s skipped: not in this build\n", codec, filter);
    return;
  }
  int trunc = strcmp(filter, "trunc_prec") == 0;
  if (trunc) typesize = 4;
  uint8_t *src = malloc((size_t)size), *back = malloc((size_t)size);
  uint8_t *dest = malloc((size_t)size + BLOSC2_MAX_OVERHEAD);
  if (src == NULL || back == NULL || dest == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  fill(src, size, typesize, zeros, trunc);

  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.compcode = (uint8_t)compcode;
  cparams.clevel = (uint8_t)clevel;
  cparams.typesize = typesize;
  cparams.nthreads = (int16_t)nthreads;
  memset(cparams.filters, 0, sizeof cparams.filters);
  memset(cparams.filters_meta, 0, sizeof cparams.filters_meta);
  if (strcmp(filter, "shuffle") == 0) {
    cparams.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
  } else if (strcmp(filter, "bitshuffle") == 0) {
    cparams.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_BITSHUFFLE;
  } else if (strcmp(filter, "delta") == 0) {
    cparams.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
    cparams.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
  } else if (trunc) {
    cparams.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_TRUNC_PREC;
    cparams.filters_meta[BLOSC2_MAX_FILTERS - 2] = 20;
    cparams.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
  }
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  dparams.nthreads = (int16_t)nthreads;
  blosc2_context *cctx = blosc2_create_cctx(cparams);
  blosc2_context *dctx = blosc2_create_dctx(dparams);
  if (cctx == NULL || dctx == NULL) {
    printf("%-8s %-10s clevel %d: no context\n", codec, filter, clevel);
    failures++;
    goto out;
  }
  int csize = 0;
  double t0 = now();
  for (int r = 0; r < reps; r++) {
    csize = blosc2_compress_ctx(cctx, src, size, dest, size + BLOSC2_MAX_OVERHEAD);
  }
  double tc = (now() - t0) / reps;
  int dsize = 0;
  t0 = now();
  for (int r = 0; r < reps && csize > 0; r++) {
    dsize = blosc2_decompress_ctx(dctx, dest, csize, back, size);
  }
  double td = (now() - t0) / reps;
  if (csize <= 0 || dsize != size || !check(src, back, size, trunc)) {
    printf("%-8s %-10s clevel %d typesize %2d size %8d threads %d: ROUND TRIP FAILED (%d, %d)\n",
           codec, filter, clevel, typesize, size, nthreads, csize, dsize);
    failures++;
  } else {
    printf("%-8s %-10s clevel %d typesize %2d size %8d threads %d: ratio %7.2f  "
           "comp %8.1f MB/s  decomp %8.1f MB/s\n",
           codec, filter, clevel, typesize, size, nthreads, (double)size / csize,
           size / (tc > 0 ? tc : 1e-9) / 1e6, size / (td > 0 ? td : 1e-9) / 1e6);
  }
out:
  if (cctx != NULL) blosc2_free_ctx(cctx);
  if (dctx != NULL) blosc2_free_ctx(dctx);
  free(src);
  free(back);
  free(dest);
}

static void sweep(const char *codec, const char *filter, int zeros, int nthreads, int32_t size,
                  int32_t typesize, int reps, int clevel_step) {
  size_t nc = strcmp(codec, "all") == 0 ? sizeof all_codecs / sizeof *all_codecs : 1;
  size_t nf = strcmp(filter, "all") == 0 ? sizeof all_filters / sizeof *all_filters : 1;
  for (size_t c = 0; c < nc; c++) {
    for (size_t f = 0; f < nf; f++) {
      for (int clevel = 0; clevel <= 9; clevel += clevel_step) {
        run(nc > 1 ? all_codecs[c] : codec, nf > 1 ? all_filters[f] : filter, zeros, clevel,
            nthreads, size, typesize, reps);
      }
    }
  }
}

int main(int argc, char **argv) {
  const char *codec = argc > 1 ? argv[1] : "blosclz";
  const char *filter = argc > 2 ? argv[2] : "shuffle";
  const char *mode = argc > 3 ? argv[3] : "single";
  int nthreads = argc > 4 ? atoi(argv[4]) : 1;
  int32_t size = argc > 5 ? atoi(argv[5]) : 2 * 1024 * 1024;
  int32_t typesize = argc > 6 ? atoi(argv[6]) : 4;
  if (nthreads < 1 || size < 1 || typesize < 1 || typesize > 255) {
    fprintf(stderr, "usage: %s [codec|all] [filter|all] [single|zeros|suite|hardsuite|"
                    "extremesuite|debugsuite] [nthreads] [size] [typesize]\n", argv[0]);
    return 2;
  }
  blosc2_init();
  printf("b2bench: libblosc2 %s, %s\n", blosc2_get_version_string(), blosc2_list_compressors());
  if (strcmp(mode, "single") == 0 || strcmp(mode, "zeros") == 0) {
    sweep(codec, filter, strcmp(mode, "zeros") == 0, nthreads, size, typesize, 3, 1);
  } else if (strcmp(mode, "suite") == 0) {
    sweep("all", "all", 0, nthreads, 1 << 20, 4, 1, 1);
  } else if (strcmp(mode, "hardsuite") == 0 || strcmp(mode, "extremesuite") == 0 ||
             strcmp(mode, "debugsuite") == 0) {
    int extreme = strcmp(mode, "hardsuite") != 0;
    int debug = strcmp(mode, "debugsuite") == 0;
    static const int32_t sizes[] = {32 * 1024, 256 * 1024, 1 << 20};
    for (int t = 1; t <= (debug ? 4 : 1); t++) {
      for (int32_t ts = 1; ts <= (extreme ? 32 : 16); ts = extreme ? ts + 1 : ts * 2) {
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
          sweep("all", "all", 0, debug ? t : nthreads, sizes[s], ts, 1, 3);
        }
      }
    }
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    blosc2_destroy();
    return 2;
  }
  blosc2_destroy();
  printf("b2bench: %d failed round trip(s)\n", failures);
  return failures == 0 ? 0 : 1;
}
