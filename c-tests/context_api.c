/* The contextual API: cparams/dparams, threads, filters pipeline, forced
 * blocksize, getitem, special chunks and error returns on bad input. */
#include <math.h>
#include <string.h>

#include <blosc2.h>

#include "check.h"

/* A multiple of the typesize: upstream's DELTA mangles a trailing partial item. */
#define N (1024 * 1024 + 12)

int main(void) {
  static unsigned char src[N], dst[N + BLOSC2_MAX_OVERHEAD], back[N + 64];
  check_fill(src, N, 2);
  blosc2_init();

  for (int threads = 1; threads <= 2; threads++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = BLOSC_ZSTD;
    cp.clevel = 3;
    cp.typesize = 4;
    cp.nthreads = (int16_t)threads;
    cp.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
    cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
    cp.blocksize = 64 * 1024;
    blosc2_context *cctx = blosc2_create_cctx(cp);
    REQUIRE(cctx != NULL);
    int cbytes = blosc2_compress_ctx(cctx, src, N, dst, sizeof dst);
    CHECK(cbytes > 0 && cbytes < N / 2);

    blosc2_cparams got;
    CHECK_EQ_INT(blosc2_ctx_get_cparams(cctx, &got), 0);
    CHECK_EQ_INT(got.compcode, BLOSC_ZSTD);
    CHECK_EQ_INT(got.typesize, 4);
    CHECK_EQ_INT(got.nthreads, threads);
    blosc2_free_ctx(cctx);

    int32_t nbytes, cb, blocksize;
    CHECK_EQ_INT(blosc2_cbuffer_sizes(dst, &nbytes, &cb, &blocksize), 0);
    CHECK_EQ_INT(nbytes, N);
    CHECK_EQ_INT(cb, cbytes);
    CHECK_EQ_INT(blocksize, 64 * 1024);
    int version = 0, versionlz = 0;
    blosc2_cbuffer_versions(dst, &version, &versionlz);
    CHECK(version >= 2);

    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = (int16_t)threads;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    REQUIRE(dctx != NULL);
    memset(back, 0xEE, sizeof back);
    CHECK_EQ_INT(blosc2_decompress_ctx(dctx, dst, cbytes, back, N), N);
    CHECK(memcmp(src, back, N) == 0);
    CHECK(back[N] == 0xEE);
    /* getitem inside the first block (DELTA is unreliable past it upstream). */
    CHECK_EQ_INT(blosc2_getitem_ctx(dctx, dst, cbytes, 100, 50, back, 200), 200);
    CHECK(memcmp(back, src + 400, 200) == 0);
    blosc2_dparams dgot;
    CHECK_EQ_INT(blosc2_ctx_get_dparams(dctx, &dgot), 0);
    CHECK_EQ_INT(dgot.nthreads, threads);

    /* Corrupted or truncated input must give an error, not a crash. */
    CHECK(blosc2_decompress_ctx(dctx, dst, 10, back, N) < 0);
    CHECK(blosc2_decompress_ctx(dctx, dst, cbytes, back, N - 1) < 0);
    blosc2_free_ctx(dctx);
  }

  /* Special chunks: zeros, NaNs, a repeated value. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  REQUIRE(dctx != NULL);
  int csize = blosc2_chunk_zeros(cp, 8000, dst, sizeof dst);
  CHECK_EQ_INT(csize, BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, dst, csize, back, 8000), 8000);
  int zeros = 1;
  for (int i = 0; i < 8000; i++) zeros &= back[i] == 0;
  CHECK(zeros);

  csize = blosc2_chunk_nans(cp, 8000, dst, sizeof dst);
  CHECK(csize > 0);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, dst, csize, back, 8000), 8000);
  double d;
  memcpy(&d, back + 800, 8);
  CHECK(isnan(d));

  double val = 3.25;
  csize = blosc2_chunk_repeatval(cp, 8000, dst, sizeof dst, &val);
  CHECK(csize > 0);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, dst, csize, back, 8000), 8000);
  memcpy(&d, back + 7992, 8);
  CHECK(d == 3.25);
  blosc2_free_ctx(dctx);

  /* The defaults getters agree with the header's initializers. */
  blosc2_cparams defaults = blosc2_get_blosc2_cparams_defaults();
  CHECK_EQ_INT(defaults.compcode, BLOSC2_CPARAMS_DEFAULTS.compcode);
  CHECK_EQ_INT(defaults.clevel, BLOSC2_CPARAMS_DEFAULTS.clevel);
  CHECK_EQ_INT(defaults.typesize, BLOSC2_CPARAMS_DEFAULTS.typesize);

  /* An undefined filter id refuses the context, and so everything that
   * makes one: a super-chunk, a special chunk (NULL_POINTER, as upstream). */
  {
    blosc2_cparams bad = BLOSC2_CPARAMS_DEFAULTS;
    bad.filters[2] = 20;
    CHECK(blosc2_create_cctx(bad) == NULL);
    blosc2_storage st = {.contiguous = true, .cparams = &bad};
    CHECK(blosc2_schunk_new(&st) == NULL);
    CHECK_EQ_INT(blosc2_chunk_zeros(bad, 4000, dst, sizeof dst), BLOSC2_ERROR_NULL_POINTER);
  }

  blosc2_destroy();
  return check_result("context_api");
}
