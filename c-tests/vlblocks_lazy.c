/* VL-block chunks read lazily from a frame file: blosc2_schunk_get_lazychunk
 * gives a chunk whose blocks stay on disk, and the VL decoders of the
 * super-chunk's own context read them, as the reference does for one block
 * (blosc2_vldecompress_block_ctx). Reference 3.3.5 gives -6 for all blocks
 * at once (blosc2_vldecompress_ctx) on the same lazy chunk, which this test
 * counts as its bug: the chunk is valid and its one-block reads work. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <blosc2.h>

#include "check.h"

int main(void) {
  blosc2_init();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  static int32_t a[1000], b[3000], c[500];
  for (int i = 0; i < 3000; i++) {
    if (i < 1000) a[i] = i;
    b[i] = i * 3;
    if (i < 500) c[i] = -i;
  }
  const void *srcs[3] = {a, b, c};
  int32_t sizes[3] = {sizeof a, sizeof b, sizeof c};
  static uint8_t chunk[sizeof a + sizeof b + sizeof c + 4096];
  int cs = blosc2_vlcompress_ctx(cctx, srcs, sizes, 3, chunk, sizeof chunk);
  REQUIRE(cs > 0);
  blosc2_free_ctx(cctx);

  const char *path = "vlblocks_lazy.b2frame";
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp};
  blosc2_remove_urlpath(path);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_append_chunk(sc, chunk, true), 1);
  blosc2_schunk_free(sc);

  sc = blosc2_schunk_open(path);
  REQUIRE(sc != NULL);
  uint8_t *lz = NULL;
  bool needs_free = false;
  int lcs = blosc2_schunk_get_lazychunk(sc, 0, &lz, &needs_free);
  CHECK(lcs > 0 && lcs < cs); /* the blocks themselves stay on disk */

  uint8_t *blk = NULL;
  int32_t bs = 0;
  CHECK_EQ_INT(blosc2_vldecompress_block_ctx(sc->dctx, lz, lcs, 1, &blk, &bs), (int)sizeof b);
  CHECK_EQ_INT(bs, (int)sizeof b);
  if (blk != NULL) CHECK(memcmp(blk, b, sizeof b) == 0);
  free(blk);

  void *dests[3] = {0};
  int32_t dsizes[3] = {0};
  CHECK_EQ_INT(blosc2_vldecompress_ctx(sc->dctx, lz, lcs, dests, dsizes, 3), 3);
  if (dests[0] && dests[1] && dests[2]) {
    CHECK(dsizes[0] == (int)sizeof a && memcmp(dests[0], a, sizeof a) == 0);
    CHECK(dsizes[1] == (int)sizeof b && memcmp(dests[1], b, sizeof b) == 0);
    CHECK(dsizes[2] == (int)sizeof c && memcmp(dests[2], c, sizeof c) == 0);
  }
  for (int i = 0; i < 3; i++) free(dests[i]);

  /* without its super-chunk a lazy chunk cannot be read */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *lone = blosc2_create_dctx(dp);
  blk = NULL;
  CHECK(blosc2_vldecompress_block_ctx(lone, lz, lcs, 0, &blk, &bs) < 0);
  blosc2_free_ctx(lone);
  if (needs_free) free(lz);

  blk = NULL;
  CHECK_EQ_INT(blosc2_schunk_get_vlblock(sc, 0, 2, &blk, &bs), (int)sizeof c);
  if (blk != NULL) CHECK(memcmp(blk, c, sizeof c) == 0);
  free(blk);

  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
  blosc2_destroy();
  return check_result("vlblocks_lazy");
}
