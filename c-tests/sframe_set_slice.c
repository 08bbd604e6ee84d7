/* A slice written across the chunks of a sparse frame whose chunks were
 * reordered, zeroing two whole chunks (which become zero chunks, their
 * files dropped) and part of a third (which gets a new file). The new file
 * once took the number of a dropped one and was deleted with it, so the
 * frame lost that chunk (found by the schunk_ops fuzzer). The content must
 * hold in the handle and after a reopen. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <blosc2.h>

#include "check.h"

#define ITEMS 256 /* int32 items per chunk */

int main(void) {
  blosc2_init();
  char path[256];
  snprintf(path, sizeof path, "/tmp/b2-sframe-slice-%d.b2frame", (int)getpid());
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = false, .urlpath = path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  static int32_t want[3 * ITEMS], got[3 * ITEMS];
  for (int c = 0; c < 3; c++) {
    int32_t chunk[ITEMS];
    for (int i = 0; i < ITEMS; i++) chunk[i] = c * 100000 + i + 1;
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, chunk, sizeof chunk), c + 1);
  }
  int64_t order[3] = {0, 2, 1};
  CHECK_EQ_INT(blosc2_schunk_reorder_offsets(sc, order), 0);
  for (int c = 0; c < 3; c++)
    for (int i = 0; i < ITEMS; i++) want[c * ITEMS + i] = (int32_t)order[c] * 100000 + i + 1;
  static int32_t zeros[600];
  CHECK_EQ_INT(blosc2_schunk_set_slice_buffer(sc, 0, 600, zeros), 0);
  memset(want, 0, sizeof zeros);
  CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, 0, 3 * ITEMS, got), 0);
  CHECK(memcmp(got, want, sizeof want) == 0);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(path);
  REQUIRE(sc != NULL);
  memset(got, 0xff, sizeof got);
  CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, 0, 3 * ITEMS, got), 0);
  CHECK(memcmp(got, want, sizeof want) == 0);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
  blosc2_destroy();
  return check_result("sframe_set_slice");
}
