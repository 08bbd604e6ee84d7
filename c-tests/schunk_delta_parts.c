/* Partial reads of DELTA chunks in frame files.  DELTA encodes every block
 * of a chunk against its first block, so a slice, a b2nd box or a lazy
 * chunk's getitem that touches only later blocks must still decode block 0.
 * A reader that fetched only the blocks of the range returned wrong bytes
 * with no error: ours did until the sframe fuzz target found it, and
 * C-Blosc2 3.3.5 still does for both calls below (its whole-chunk
 * decompression is right). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <blosc2.h>

#include "check.h"

#define NCHUNKS 3
#define N (64 * 1024) /* int32 items per chunk: 256 KiB, 16 blocks */

static int32_t data[NCHUNKS][N];

static void run(const char *path, bool contiguous) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 16 * 1024;
  cp.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  blosc2_remove_urlpath(path);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  for (int c = 0; c < NCHUNKS; c++)
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data[c], sizeof data[c]), c + 1);
  blosc2_schunk_free(sc);

  sc = blosc2_schunk_open(path);
  REQUIRE(sc != NULL);
  for (int c = 0; c < NCHUNKS; c++) {
    /* ten items in the seventh block of chunk c */
    int64_t at = (int64_t)c * N + 25000;
    int32_t items[10];
    CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, at, at + 10, items), 0);
    CHECK(memcmp(items, &data[c][25000], sizeof items) == 0);

    /* the same items from the lazy chunk, through the schunk's context */
    uint8_t *lazy = NULL;
    bool needs_free = false;
    int lazy_len = blosc2_schunk_get_lazychunk(sc, c, &lazy, &needs_free);
    REQUIRE(lazy_len > 0);
    memset(items, 0, sizeof items);
    CHECK_EQ_INT(blosc2_getitem_ctx(sc->dctx, lazy, lazy_len, 25000, 10, items, sizeof items),
                 (int)sizeof items);
    CHECK(memcmp(items, &data[c][25000], sizeof items) == 0);
    if (needs_free) free(lazy);
  }
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
}

int main(void) {
  blosc2_init();
  for (int c = 0; c < NCHUNKS; c++)
    for (int i = 0; i < N; i++) data[c][i] = (int32_t)(1000 * c + i / 3 + (i * 7 % 5));
  run("schunk_delta_parts.b2frame", true);
  run("schunk_delta_parts.b2dir", false);
  blosc2_destroy();
  return check_result("schunk_delta_parts");
}
