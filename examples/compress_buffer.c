/* Example: compress one buffer into a Blosc2 chunk and back, with a
 * compression context (codec, level, filter and threads chosen explicitly). */
#include <stdio.h>
#include <string.h>

#include <blosc2.h>

#define N (1000 * 1000)

int main(void) {
  static double data[N], back[N];
  static uint8_t chunk[sizeof data + BLOSC2_MAX_OVERHEAD];
  for (int i = 0; i < N; i++) data[i] = i * 0.5;

  blosc2_init();
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.compcode = BLOSC_LZ4;
  cparams.clevel = 5;
  cparams.typesize = sizeof(double);
  cparams.nthreads = 2;
  blosc2_context *cctx = blosc2_create_cctx(cparams);
  int csize = blosc2_compress_ctx(cctx, data, sizeof data, chunk, sizeof chunk);
  blosc2_free_ctx(cctx);
  if (csize <= 0) {
    fprintf(stderr, "compression failed: %d\n", csize);
    return 1;
  }

  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  dparams.nthreads = 2;
  blosc2_context *dctx = blosc2_create_dctx(dparams);
  int dsize = blosc2_decompress_ctx(dctx, chunk, csize, back, sizeof back);
  blosc2_free_ctx(dctx);
  blosc2_destroy();

  printf("%zu bytes -> %d bytes (ratio %.1f), back to %d bytes\n", sizeof data, csize,
         (double)sizeof data / csize, dsize);
  return dsize == (int)sizeof data && memcmp(data, back, sizeof data) == 0 ? 0 : 1;
}
