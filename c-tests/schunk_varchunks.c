/* Super-chunks whose chunks differ in size (3.x: `chunksize` 0): appended,
 * inserted, updated, deleted, then read and written with
 * blosc2_schunk_get_slice_buffer / set_slice_buffer across chunk borders
 * (where reference 3.3.5 divides by the zero chunksize), in memory, in a
 * contiguous file and in a sparse directory, and after reopening. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <blosc2.h>

#include "check.h"

#define MAXITEMS 40000

static int32_t model[MAXITEMS];
static int64_t nitems = 0;

static int32_t value(int64_t i, int round) { return (int32_t)(i * 2654435761u) ^ round; }

/* chunk sizes in items, as appended */
static const int sizes[] = {1000, 1000, 2500, 300, 4000, 1000};

static void check_all(blosc2_schunk *sc, const char *what) {
  static int32_t buf[MAXITEMS];
  CHECK_EQ_INT(sc->chunksize, 0);
  CHECK_EQ_INT(sc->nbytes, nitems * 4);
  memset(buf, 0, sizeof buf);
  CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, 0, nitems, buf), 0);
  if (memcmp(buf, model, nitems * 4) != 0) fprintf(stderr, "%s: whole content differs\n", what);
  CHECK(memcmp(buf, model, nitems * 4) == 0);
  for (int64_t a = 0; a < nitems; a += 277) {
    int64_t b = a + 1 + (a * 31) % 3000;
    if (b > nitems) b = nitems;
    CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, a, b, buf), 0);
    CHECK(memcmp(buf, model + a, (b - a) * 4) == 0);
  }
  /* past the end is an error, not a crash */
  CHECK(blosc2_schunk_get_slice_buffer(sc, nitems - 1, nitems + 1, buf) < 0);
}

static void run(bool contiguous, const char *path) {
  static int32_t buf[MAXITEMS];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  if (path) blosc2_remove_urlpath(path);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  nitems = 0;
  for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
    for (int i = 0; i < sizes[c]; i++) buf[i] = model[nitems + i] = value(nitems + i, 0);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizes[c] * 4), (int64_t)c + 1);
    nitems += sizes[c];
  }
  check_all(sc, "appended");

  /* insert a 700-item chunk at 1, update chunk 3 with 50 items, delete 5 */
  int32_t *chunk = malloc(4 * 700 + BLOSC2_MAX_OVERHEAD);
  for (int i = 0; i < 700; i++) buf[i] = value(i, 99);
  int cb = blosc2_compress_ctx(sc->cctx, buf, 700 * 4, chunk, 4 * 700 + BLOSC2_MAX_OVERHEAD);
  REQUIRE(cb > 0);
  CHECK_EQ_INT(blosc2_schunk_insert_chunk(sc, 1, (uint8_t *)chunk, true), 7);
  memmove(model + 1700, model + 1000, (nitems - 1000) * 4);
  memcpy(model + 1000, buf, 700 * 4);
  nitems += 700;
  /* chunk 3 is the one of 2500 items, starting at item 2700 */
  for (int i = 0; i < 50; i++) buf[i] = value(i, 7);
  cb = blosc2_compress_ctx(sc->cctx, buf, 50 * 4, chunk, 4 * 700 + BLOSC2_MAX_OVERHEAD);
  REQUIRE(cb > 0);
  CHECK_EQ_INT(blosc2_schunk_update_chunk(sc, 3, (uint8_t *)chunk, true), 7);
  memmove(model + 2750, model + 5200, (nitems - 5200) * 4);
  memcpy(model + 2700, buf, 50 * 4);
  nitems -= 2450;
  /* chunk 5 is the one of 4000 items, starting at 2750 + 300 */
  CHECK_EQ_INT(blosc2_schunk_delete_chunk(sc, 5), 6);
  memmove(model + 3050, model + 7050, (nitems - 7050) * 4);
  nitems -= 4000;
  free(chunk);
  check_all(sc, "changed");

  /* a slice written across several chunks of different sizes */
  int64_t a = 500, b = nitems - 200;
  for (int64_t i = a; i < b; i++) buf[i - a] = model[i] = value(i, 5);
  CHECK_EQ_INT(blosc2_schunk_set_slice_buffer(sc, a, b, buf), 0);
  check_all(sc, "slice written");

  if (path) {
    blosc2_schunk_free(sc);
    sc = blosc2_schunk_open(path);
    REQUIRE(sc != NULL);
    check_all(sc, "reopened");
  }
  /* serialized and read back */
  uint8_t *cframe;
  bool needs_free;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
  REQUIRE(len > 0);
  blosc2_schunk *back = blosc2_schunk_from_buffer(cframe, len, true);
  REQUIRE(back != NULL);
  check_all(back, "from buffer");
  blosc2_schunk_free(back);
  if (needs_free) free(cframe);
  blosc2_schunk_free(sc);
  if (path) blosc2_remove_urlpath(path);
}

int main(void) {
  blosc2_init();
  run(false, NULL);
  run(true, NULL);
  run(true, "c_tests_varchunks.b2frame");
  run(false, "c_tests_varchunks_s.b2frame");
  blosc2_destroy();
  return check_result("schunk_varchunks");
}
