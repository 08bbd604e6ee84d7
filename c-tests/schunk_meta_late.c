/*
 * blosc2_meta_add once a frame holds chunks. Fixed-size metalayers live in
 * the frame header, in front of the chunks:
 *   - after real chunk data the header cannot grow, and the call fails
 *     (BLOSC2_ERROR_INVALID_PARAM, as upstream). Upstream still lists the
 *     refused metalayer in the handle, which the frame on disk lacks; here
 *     the handle stays as it was. (Upstream 3.3.5 can also leave a sparse
 *     frame whose index no longer opens after such a refusal.)
 *   - after special chunks only (all zeros: no chunk bytes in the frame),
 *     the header can grow, and the call succeeds in both libraries. Upstream
 *     3.3.5 then leaves a frame file that no longer opens; here it opens
 *     with its chunk and the new metalayer.
 * In memory (no frame) metalayers can always be added.
 */
#include <blosc2.h>
#include <string.h>

#include "check.h"

enum { N = 10000 };
static int32_t data[N], back[N];

static void late_meta(int contiguous, int zeros) {
  const char *path = contiguous ? "meta_late.b2frame" : "meta_late.b2dir";
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = contiguous, .cparams = &cp, .urlpath = (char *)path};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  for (int i = 0; i < N; i++) data[i] = zeros ? 0 : i;
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof data), 1);
  uint8_t content[3] = {1, 2, 3};
  int rc = blosc2_meta_add(sc, "late", content, sizeof content);
  if (zeros) {
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(blosc2_meta_exists(sc, "late"), 0);
  } else {
    CHECK_EQ_INT(rc, BLOSC2_ERROR_INVALID_PARAM);
    CHECK(blosc2_meta_exists(sc, "late") < 0);
    CHECK_EQ_INT(sc->nmetalayers, 0);
  }
  blosc2_schunk_free(sc);

  sc = blosc2_schunk_open(path);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(sc->nchunks, 1);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, back, sizeof back), (int)sizeof back);
  CHECK(memcmp(back, data, sizeof data) == 0);
  uint8_t *got = NULL;
  int32_t got_len = 0;
  if (zeros) {
    CHECK_EQ_INT(blosc2_meta_get(sc, "late", &got, &got_len), 0);
    CHECK_EQ_INT(got_len, 3);
    CHECK(got != NULL && memcmp(got, content, 3) == 0);
    free(got);
  } else {
    CHECK(blosc2_meta_exists(sc, "late") < 0);
  }
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
}

int main(void) {
  blosc2_init();
  for (int contiguous = 0; contiguous < 2; contiguous++)
    for (int zeros = 0; zeros < 2; zeros++) late_meta(contiguous, zeros);

  /* in memory: no frame header to grow */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = false, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof data), 1);
  uint8_t content[2] = {9, 8};
  CHECK_EQ_INT(blosc2_meta_add(sc, "late", content, sizeof content), 0);
  CHECK_EQ_INT(blosc2_meta_exists(sc, "late"), 0);
  blosc2_schunk_free(sc);
  blosc2_destroy();
  return check_result("schunk_meta_late");
}
