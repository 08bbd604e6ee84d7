/* Fuzz driver: arbitrary bytes as a contiguous frame, through the public C
 * API (open from a buffer, metalayers, every chunk decompressed).  Nothing
 * may crash, hang or read outside the input. */
#include <stdint.h>
#include <stdlib.h>

#include <blosc2.h>

#define MAX_NBYTES (64 * 1024 * 1024)
#define MAX_CHUNKS 1000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int initialized = 0;
  if (!initialized) {
    blosc2_init();
    initialized = 1;
  }
  if (size > INT64_MAX) return 0;
  /* copy=true: the library owns its own copy, the input stays read-only. */
  blosc2_schunk *schunk = blosc2_schunk_from_buffer((uint8_t *)data, (int64_t)size, true);
  if (schunk == NULL) return 0;
  int64_t nchunks = schunk->nchunks < MAX_CHUNKS ? schunk->nchunks : MAX_CHUNKS;
  int32_t chunksize = schunk->chunksize;
  if (chunksize > 0 && chunksize <= MAX_NBYTES) {
    void *out = malloc((size_t)chunksize);
    if (out != NULL) {
      for (int64_t i = 0; i < nchunks; i++) {
        blosc2_schunk_decompress_chunk(schunk, i, out, chunksize);
      }
      free(out);
    }
  }
  for (int i = 0; i < schunk->nmetalayers; i++) {
    uint8_t *content = NULL;
    int32_t len = 0;
    if (blosc2_meta_get(schunk, schunk->metalayers[i]->name, &content, &len) >= 0) {
      free(content);
    }
  }
  for (int i = 0; i < schunk->nvlmetalayers; i++) {
    uint8_t *content = NULL;
    int32_t len = 0;
    if (blosc2_vlmeta_get(schunk, schunk->vlmetalayers[i]->name, &content, &len) >= 0) {
      free(content);
    }
  }
  blosc2_schunk_free(schunk);
  return 0;
}
