/*
 * An array of B2ND_MAX_DIM (16) dimensions: its b2nd metalayer uses the
 * one-byte array markers upstream writes (0x90 + ndim = 0xa0), so that
 * upstream reads it and we read upstream's (the files are byte-identical:
 * checked by hand against 3.3.5; a 3-byte msgpack array16 marker made 16-d
 * arrays unreadable). Found by the b2nd_open fuzzer.
 */
#include <b2nd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

int main(void) {
  blosc2_init();
  char path[] = "/tmp/b2nd_16d_XXXXXX";
  int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  unlink(path);
  int64_t shape[16];
  int32_t cs[16], bs[16];
  for (int i = 0; i < 16; i++) {
    shape[i] = 2;
    cs[i] = 2;
    bs[i] = 1;
  }
  shape[15] = 3;
  cs[15] = 3;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 16, shape, cs, bs, NULL, 0, NULL, 0);
  REQUIRE(ctx != NULL);
  b2nd_array_t *a = NULL;
  CHECK_EQ_INT(b2nd_zeros(ctx, &a), 0);
  REQUIRE(a != NULL);
  uint8_t *meta = NULL;
  int32_t len = 0;
  CHECK(blosc2_meta_get(a->sc, "b2nd", &meta, &len) >= 0);
  REQUIRE(meta != NULL && len > 4);
  CHECK_EQ_INT(meta[2], 16);
  CHECK_EQ_INT(meta[3], 0xa0);
  free(meta);
  b2nd_free(a);
  b2nd_free_ctx(ctx);

  b2nd_array_t *b = NULL;
  CHECK_EQ_INT(b2nd_open(path, &b), 0);
  REQUIRE(b != NULL);
  CHECK_EQ_INT(b->ndim, 16);
  CHECK_EQ_INT(b->shape[15], 3);
  CHECK_EQ_INT(b->chunkshape[15], 3);
  CHECK_EQ_INT(b->nitems, 3 << 15);
  b2nd_free(b);
  unlink(path);
  blosc2_destroy();
  return check_result("b2nd_16d");
}
