/* A real plugin from PyPI (blosc2-openzl) through the by-name lookup:
 *   openzl enc FILE   compress a ramp of doubles with codec 38 and write it
 *   openzl dec FILE   decode FILE and check it holds that ramp
 * with 1 and 4 threads. Used by scripts/client-openzl.sh, which runs it on
 * our library and on the reference, and crosses the files. */
#include <blosc2.h>
#include <blosc2/codecs-registry.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1000000, NBYTES = N * (int)sizeof(double) };

static double *ramp(void) {
  double *a = malloc(NBYTES);
  for (int i = 0; i < N; i++) a[i] = i * 0.0001;
  return a;
}

static int enc(const char *path, int nthreads) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = BLOSC_CODEC_OPENZL;
  cp.compcode_meta = 6; /* a profile: shuffle, byte delta, zstd */
  cp.typesize = sizeof(double);
  cp.clevel = 5;
  cp.nthreads = nthreads;
  blosc2_context *c = blosc2_create_cctx(cp);
  double *a = ramp();
  int cap = NBYTES + BLOSC2_MAX_OVERHEAD;
  char *out = malloc(cap);
  int n = blosc2_compress_ctx(c, a, NBYTES, out, cap);
  blosc2_free_ctx(c);
  if (n <= 0 || n >= NBYTES / 2) {
    fprintf(stderr, "openzl: compress gave %d\n", n);
    return 1;
  }
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(out, 1, n, f) == (size_t)n;
  if (f) fclose(f);
  free(a);
  free(out);
  printf("openzl: %d threads compressed %d bytes to %d\n", nthreads, NBYTES, n);
  return !ok;
}

static int dec(const char *path, int nthreads) {
  static char in[NBYTES + BLOSC2_MAX_OVERHEAD];
  FILE *f = fopen(path, "rb");
  if (!f) return 1;
  int n = (int)fread(in, 1, sizeof in, f);
  fclose(f);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = nthreads;
  blosc2_context *d = blosc2_create_dctx(dp);
  double *a = ramp(), *b = malloc(NBYTES);
  int m = blosc2_decompress_ctx(d, in, n, b, NBYTES);
  blosc2_free_ctx(d);
  int same = m == NBYTES && memcmp(a, b, NBYTES) == 0;
  printf("openzl: %d threads decompressed %d bytes: %s\n", nthreads, m, same ? "same" : "WRONG");
  free(a);
  free(b);
  return !same;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  blosc2_init();
  int rc = 0;
  for (int t = 1; t <= 4; t += 3) {
    if (!strcmp(argv[1], "enc")) {
      char p[4096];
      snprintf(p, sizeof p, "%s.%d", argv[2], t);
      rc |= enc(t == 1 ? argv[2] : p, t);
    } else {
      rc |= dec(argv[2], t);
    }
  }
  blosc2_destroy();
  return rc;
}
