/* What a frame's chunk count costs, through the public blosc2.h API only
 * (index.sh builds it once per library and runs each phase in a fresh
 * process, so peak memory is the phase's own):
 *
 *   bench_index make PATH NCHUNKS
 *       a contiguous frame file of NCHUNKS zero chunks of 4 KiB
 *       (blosc2_schunk_fill_special; the file stays small whatever NCHUNKS)
 *   bench_index open PATH NREADS
 *       blosc2_schunk_open, then NREADS decompressions of chunks spread
 *       over the frame; prints `open seconds S rss_kib K`
 *   bench_index append PATH NAPPENDS
 *       open PATH and append NAPPENDS chunks of 4 KiB of float64 data;
 *       prints `append seconds S per_append_us U rss_kib K`
 *
 * Every chunk read is checked (zeros, or the appended values); a mismatch
 * exits 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <blosc2.h>

#define CHUNK 4096

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long rss_kib(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

static int make(const char *path, int64_t n) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp};
  blosc2_remove_urlpath(path);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  if (sc == NULL) return 1;
  int64_t r = blosc2_schunk_fill_special(sc, n * (CHUNK / 8), BLOSC2_SPECIAL_ZERO, CHUNK);
  blosc2_schunk_free(sc);
  if (r != n) {
    fprintf(stderr, "fill_special gave %lld chunks, not %lld\n", (long long)r, (long long)n);
    return 1;
  }
  return 0;
}

static int open_read(const char *path, int64_t nreads) {
  uint8_t *out = malloc(CHUNK);
  double t0 = now();
  blosc2_schunk *sc = blosc2_schunk_open(path);
  if (sc == NULL) return 1;
  int64_t n = sc->nchunks;
  uint64_t x = 88172645463325252ull;
  for (int64_t i = 0; i < nreads; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    int64_t k = (int64_t)(x % (uint64_t)n);
    if (blosc2_schunk_decompress_chunk(sc, k, out, CHUNK) != CHUNK) return 1;
    for (int j = 0; j < CHUNK; j++)
      if (out[j] != 0) return 1;
  }
  blosc2_schunk_free(sc);
  double t = now() - t0;
  printf("open seconds %.6f rss_kib %ld nchunks %lld\n", t, rss_kib(), (long long)n);
  free(out);
  return 0;
}

static int append(const char *path, int64_t nappends) {
  double buf[CHUNK / 8];
  blosc2_schunk *sc = blosc2_schunk_open(path);
  if (sc == NULL) return 1;
  int64_t before = sc->nchunks;
  double t0 = now();
  for (int64_t i = 0; i < nappends; i++) {
    for (int j = 0; j < CHUNK / 8; j++) buf[j] = (double)(i * 512 + j) * 0.25;
    if (blosc2_schunk_append_buffer(sc, buf, CHUNK) != before + i + 1) return 1;
  }
  double t = now() - t0;
  blosc2_schunk_free(sc);
  /* what another handle sees */
  sc = blosc2_schunk_open(path);
  if (sc == NULL || sc->nchunks != before + nappends) return 1;
  double got[CHUNK / 8];
  int64_t last = nappends - 1;
  if (blosc2_schunk_decompress_chunk(sc, before + last, got, CHUNK) != CHUNK) return 1;
  if (got[3] != (double)(last * 512 + 3) * 0.25) return 1;
  blosc2_schunk_free(sc);
  printf("append seconds %.6f per_append_us %.2f rss_kib %ld\n", t,
         nappends ? t / (double)nappends * 1e6 : 0.0, rss_kib());
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s make|open|append PATH N\n", argv[0]);
    return 2;
  }
  blosc2_init();
  int64_t n = strtoll(argv[3], NULL, 10);
  int rc = 2;
  if (strcmp(argv[1], "make") == 0) rc = make(argv[2], n);
  else if (strcmp(argv[1], "open") == 0) rc = open_read(argv[2], n);
  else if (strcmp(argv[1], "append") == 0) rc = append(argv[2], n);
  blosc2_destroy();
  if (rc == 1) fprintf(stderr, "bench_index %s failed\n", argv[1]);
  return rc;
}
