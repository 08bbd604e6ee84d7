/* blosc2_get_slice_nchunks on the super-chunk of a b2nd array takes one
 * start/stop coordinate per dimension and lists the chunks (C order over the
 * chunk grid) that the box touches, as the reference does. */
#include <stdint.h>
#include <stdlib.h>

#include <b2nd.h>
#include <blosc2.h>

#include "check.h"

int main(void) {
  blosc2_init();
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  blosc2_storage storage = {.contiguous = false, .cparams = &cparams};
  int64_t shape[2] = {10, 11};
  int32_t chunkshape[2] = {4, 4};
  int32_t blockshape[2] = {2, 2};
  b2nd_context_t *ctx =
      b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
  REQUIRE(ctx != NULL);
  b2nd_array_t *arr = NULL;
  REQUIRE(b2nd_zeros(ctx, &arr) == 0);

  /* rows 1..5 -> chunk rows 0,1; cols 3..9 -> chunk cols 0,1,2 (grid 3x3) */
  int64_t start[2] = {1, 3}, stop[2] = {6, 9};
  int64_t *idx = NULL;
  int64_t n = blosc2_get_slice_nchunks(arr->sc, start, stop, &idx);
  CHECK_EQ_INT(n, 6);
  if (n == 6 && idx != NULL) {
    int64_t want[6] = {0, 1, 2, 3, 4, 5};
    for (int i = 0; i < 6; i++) CHECK_EQ_INT(idx[i], want[i]);
  }
  free(idx);

  /* one chunk at the far corner */
  int64_t start2[2] = {9, 10}, stop2[2] = {10, 11};
  idx = NULL;
  n = blosc2_get_slice_nchunks(arr->sc, start2, stop2, &idx);
  CHECK_EQ_INT(n, 1);
  if (n == 1 && idx != NULL) CHECK_EQ_INT(idx[0], 8);
  free(idx);

  /* a plain (non-array) super-chunk still takes item offsets */
  blosc2_storage st1 = {.contiguous = false, .cparams = &cparams};
  cparams.typesize = 4;
  blosc2_schunk *sc = blosc2_schunk_new(&st1);
  REQUIRE(sc != NULL);
  int32_t buf[100] = {0};
  for (int i = 0; i < 3; i++) CHECK(blosc2_schunk_append_buffer(sc, buf, sizeof buf) == i + 1);
  int64_t a = 150, b = 250;
  idx = NULL;
  n = blosc2_get_slice_nchunks(sc, &a, &b, &idx);
  CHECK_EQ_INT(n, 2);
  if (n == 2 && idx != NULL) {
    CHECK_EQ_INT(idx[0], 1);
    CHECK_EQ_INT(idx[1], 2);
  }
  free(idx);
  blosc2_schunk_free(sc);

  b2nd_free(arr);
  b2nd_free_ctx(ctx);
  blosc2_destroy();
  return check_result("b2nd_slice_nchunks");
}
