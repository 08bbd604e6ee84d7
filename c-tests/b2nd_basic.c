/* b2nd arrays: create from a C buffer, read back whole and as a slice,
 * save/open, and the cframe round trip. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <b2nd.h>
#include <blosc2.h>

#include "check.h"

int main(void) {
  enum { D0 = 37, D1 = 50 };
  static double data[D0 * D1], back[D0 * D1];
  for (int i = 0; i < D0 * D1; i++) data[i] = i * 0.5;
  blosc2_init();

  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(double);
  cparams.compcode = BLOSC_ZSTD;
  blosc2_storage storage = {.contiguous = true, .cparams = &cparams};
  int64_t shape[2] = {D0, D1};
  int32_t chunkshape[2] = {10, 20};
  int32_t blockshape[2] = {5, 10};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, "<f8", DTYPE_NUMPY_FORMAT, NULL, 0);
  REQUIRE(ctx != NULL);

  b2nd_array_t *arr = NULL;
  CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &arr, data, sizeof data), 0);
  REQUIRE(arr != NULL);
  CHECK_EQ_INT(arr->ndim, 2);
  CHECK_EQ_INT(arr->shape[0], D0);
  CHECK_EQ_INT(arr->shape[1], D1);

  memset(back, 0, sizeof back);
  CHECK_EQ_INT(b2nd_to_cbuffer(arr, back, sizeof back), 0);
  CHECK(memcmp(data, back, sizeof data) == 0);

  int64_t start[2] = {3, 7}, stop[2] = {21, 44};
  int64_t sshape[2] = {18, 37};
  static double slice[18 * 37];
  CHECK_EQ_INT(b2nd_get_slice_cbuffer(arr, start, stop, slice, sshape, sizeof slice), 0);
  CHECK(slice[0] == data[3 * D1 + 7]);
  CHECK(slice[18 * 37 - 1] == data[20 * D1 + 43]);

  uint8_t *cframe = NULL;
  int64_t cframe_len = 0;
  bool needs_free = false;
  CHECK_EQ_INT(b2nd_to_cframe(arr, &cframe, &cframe_len, &needs_free), 0);
  b2nd_array_t *arr2 = NULL;
  CHECK_EQ_INT(b2nd_from_cframe(cframe, cframe_len, true, &arr2), 0);
  if (arr2) {
    memset(back, 0, sizeof back);
    CHECK_EQ_INT(b2nd_to_cbuffer(arr2, back, sizeof back), 0);
    CHECK(memcmp(data, back, sizeof data) == 0);
    b2nd_free(arr2);
  }
  if (needs_free) free(cframe);

  char path[64];
  snprintf(path, sizeof path, "/tmp/c-tests-b2nd-%ld.b2nd", (long)getpid());
  blosc2_remove_urlpath(path);
  CHECK_EQ_INT(b2nd_save(arr, path), 0);
  b2nd_array_t *arr3 = NULL;
  CHECK_EQ_INT(b2nd_open(path, &arr3), 0);
  if (arr3) {
    CHECK_EQ_INT(arr3->shape[0], D0);
    CHECK_EQ_INT(arr3->chunkshape[1], 20);
    CHECK_EQ_INT(arr3->blockshape[0], 5);
    memset(back, 0, sizeof back);
    CHECK_EQ_INT(b2nd_to_cbuffer(arr3, back, sizeof back), 0);
    CHECK(memcmp(data, back, sizeof data) == 0);
    b2nd_free(arr3);
  }
  blosc2_remove_urlpath(path);

  b2nd_free(arr);
  b2nd_free_ctx(ctx);
  blosc2_destroy();
  return check_result("b2nd_basic");
}
