/*
 * Binary drop-in check.  This program is compiled and linked against the
 * REFERENCE C-Blosc2 3.3.5 (headers and libblosc2.so.9) and then run with
 * LD_LIBRARY_PATH pointing at another libblosc2.so.9: it must work unchanged.
 * It prints which libblosc2 file the loader actually mapped (dl_iterate_phdr),
 * so the caller can tell that the replacement, not the reference, was
 * exercised.  Output: "library: <path>", "version: <v>", then the checks.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blosc2.h>

#define N (512 * 1024)

static int failures = 0;
#define EXPECT(c)                                                  \
  do {                                                             \
    if (!(c)) {                                                    \
      fprintf(stderr, "dropin.c:%d: failed: %s\n", __LINE__, #c);  \
      failures++;                                                  \
    }                                                              \
  } while (0)

/* Walking the loaded objects avoids dladdr pitfalls (a function address taken
 * in the executable can be its own PLT stub). */
static int print_blosc2(struct dl_phdr_info *obj, size_t size, void *found) {
  (void)size;
  if (obj->dlpi_name && strstr(obj->dlpi_name, "libblosc2")) {
    char *real = realpath(obj->dlpi_name, NULL);
    printf("library: %s\n", real ? real : obj->dlpi_name);
    free(real);
    ++*(int *)found;
  }
  return 0;
}

int main(void) {
  int found = 0;
  dl_iterate_phdr(print_blosc2, &found);
  if (!found) printf("library: unknown\n");

  blosc2_init();
  printf("version: %s\n", blosc2_get_version_string());
  char *complib = NULL, *cversion = NULL;
  if (blosc2_get_complib_info("zstd", &complib, &cversion) >= 0)
    printf("zstd: %s %s\n", complib ? complib : "?", cversion ? cversion : "?");
  free(complib);
  free(cversion);

  static int32_t src[N], back[N];
  static uint8_t chunk[sizeof src + BLOSC2_MAX_OVERHEAD];
  for (int i = 0; i < N; i++) src[i] = i / 3 + (i & 1);

  const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  for (int c = 0; c < 5; c++) {
    /* Struct layouts come from the reference headers: this is where an ABI
     * mismatch in blosc2_cparams/dparams would show. */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)codecs[c];
    cp.typesize = 4;
    cp.nthreads = 2;
    cp.filters[BLOSC2_MAX_FILTERS - 1] = c % 2 ? BLOSC_BITSHUFFLE : BLOSC_SHUFFLE;
    blosc2_context *cctx = blosc2_create_cctx(cp);
    EXPECT(cctx != NULL);
    if (!cctx) continue;
    int csize = blosc2_compress_ctx(cctx, src, sizeof src, chunk, sizeof chunk);
    EXPECT(csize > 0 && csize < (int)sizeof src);
    blosc2_free_ctx(cctx);

    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = 2;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    EXPECT(dctx != NULL);
    if (!dctx || csize <= 0) continue;
    memset(back, 0, sizeof back);
    EXPECT(blosc2_decompress_ctx(dctx, chunk, csize, back, sizeof back) == (int)sizeof back);
    EXPECT(memcmp(src, back, sizeof src) == 0);
    int32_t items[16];
    EXPECT(blosc2_getitem_ctx(dctx, chunk, csize, 1000, 16, items, sizeof items) == (int)sizeof items);
    EXPECT(memcmp(items, src + 1000, sizeof items) == 0);
    blosc2_free_ctx(dctx);
  }

  /* Legacy global API too. */
  int csize = blosc1_compress(9, BLOSC_SHUFFLE, 4, sizeof src, src, chunk, sizeof chunk);
  EXPECT(csize > 0);
  memset(back, 0, sizeof back);
  EXPECT(blosc1_decompress(chunk, back, sizeof back) == (int)sizeof back);
  EXPECT(memcmp(src, back, sizeof src) == 0);

  blosc2_destroy();
  printf("dropin: %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
