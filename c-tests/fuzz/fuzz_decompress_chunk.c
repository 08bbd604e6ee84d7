/* Fuzz driver: arbitrary bytes as one Blosc chunk, through the public C API
 * (sizes, full decompression, getitem).  Nothing may crash, hang or read
 * outside the input; errors are expected and ignored. */
#include <stdint.h>
#include <stdlib.h>

#include <blosc2.h>

/* Bounds what a header can make the driver allocate. */
#define MAX_NBYTES (64 * 1024 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int initialized = 0;
  if (!initialized) {
    blosc2_init();
    initialized = 1;
  }
  int32_t nbytes = 0, cbytes = 0, blocksize = 0;
  if (size > INT32_MAX) return 0;
  if (blosc2_cbuffer_sizes(data, &nbytes, &cbytes, &blocksize) < 0) return 0;
  if (nbytes <= 0 || nbytes > MAX_NBYTES) return 0;
  void *out = malloc((size_t)nbytes);
  if (out == NULL) return 0;
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  dparams.nthreads = 1;
  blosc2_context *dctx = blosc2_create_dctx(dparams);
  if (dctx != NULL) {
    blosc2_decompress_ctx(dctx, data, (int32_t)size, out, nbytes);
    /* A few items from the start and the middle, through getitem. */
    blosc2_getitem_ctx(dctx, data, (int32_t)size, 0, 1, out, nbytes);
    blosc2_getitem_ctx(dctx, data, (int32_t)size, nbytes / 2, 4, out, nbytes);
    blosc2_free_ctx(dctx);
  }
  blosc2_decompress(data, (int32_t)size, out, nbytes);
  free(out);
  return 0;
}
