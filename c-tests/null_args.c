/*
 * NULL and malformed arguments get an error code, never a crash: every
 * chunk-level export is called with NULL pointers and absurd sizes.
 */
#include <blosc2.h>
#include <string.h>
#include "check.h"

int main(void) {
  char buf[256], out[256];
  memset(buf, 0, sizeof buf);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_context *dctx = blosc2_create_dctx(dp);
  REQUIRE(cctx && dctx);

  CHECK_EQ_INT(blosc2_compress_ctx(NULL, buf, 10, out, 100), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ_INT(blosc2_compress_ctx(cctx, NULL, 10, out, 100), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ_INT(blosc2_compress_ctx(cctx, buf, 10, NULL, 100), BLOSC2_ERROR_NULL_POINTER);
  CHECK(blosc2_compress_ctx(cctx, buf, -1, out, 100) < 0);
  CHECK(blosc2_compress_ctx(cctx, buf, 10, out, 8) < 0);          /* dest below the header */
  CHECK(blosc2_compress_ctx(dctx, buf, 10, out, 100) < 0);        /* wrong context kind */
  CHECK_EQ_INT(blosc2_decompress_ctx(NULL, buf, 10, out, 100), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, NULL, 10, out, 100), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, buf, 10, NULL, 100), BLOSC2_ERROR_NULL_POINTER);
  CHECK(blosc2_decompress_ctx(dctx, buf, 10, out, 100) < 0);      /* truncated header */
  CHECK(blosc2_decompress_ctx(dctx, buf, sizeof buf, out, 100) < 0); /* all-zero header */
  CHECK(blosc2_decompress_ctx(cctx, buf, 10, out, 100) < 0);
  CHECK_EQ_INT(blosc2_getitem_ctx(NULL, buf, 10, 0, 1, out, 100), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ_INT(blosc2_getitem_ctx(dctx, NULL, 10, 0, 1, out, 100), BLOSC2_ERROR_NULL_POINTER);
  CHECK(blosc2_getitem_ctx(dctx, buf, 10, 0, 1, out, 100) < 0);
  CHECK_EQ_INT(blosc2_ctx_get_cparams(NULL, &cp), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ_INT(blosc2_ctx_get_cparams(cctx, NULL), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ_INT(blosc2_ctx_get_dparams(NULL, &dp), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ_INT(blosc2_set_maskout(NULL, NULL, 1), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ_INT(blosc2_decompress(NULL, 10, out, 100), BLOSC2_ERROR_NULL_POINTER);
  CHECK(blosc2_getitem(NULL, 10, 0, 1, out, 100) < 0);
  CHECK(blosc2_cbuffer_sizes(NULL, NULL, NULL, NULL) < 0);
  CHECK(blosc2_chunk_zeros(cp, 100, NULL, 100) < 0);
  CHECK(blosc2_chunk_repeatval(cp, 80, out, 100, NULL) < 0);
  CHECK(blosc2_compname_to_compcode(NULL) < 0);
  CHECK(blosc2_get_complib_info(NULL, NULL, NULL) < 0);
  CHECK(blosc2_shuffle(4, 16, NULL, out) < 0);
  CHECK(blosc2_shuffle(0, 16, buf, out) < 0);
  CHECK(blosc1_set_compressor(NULL) < 0);
  CHECK(blosc2_register_codec(NULL) < 0);
  CHECK(blosc2_register_filter(NULL) < 0);
  CHECK(blosc2_register_tuner(NULL) < 0);
  blosc2_free_ctx(NULL); /* allowed, does nothing */

  /* typesize 0 and out-of-range levels are refused, not crashed on */
  cp.typesize = 0;
  blosc2_context *bad = blosc2_create_cctx(cp);
  if (bad) {
    CHECK(blosc2_compress_ctx(bad, buf, 100, out, 200) < 0);
    blosc2_free_ctx(bad);
  }
  CHECK(blosc2_compress(10, BLOSC_SHUFFLE, 4, buf, 100, out, 200) < 0);
  CHECK(blosc1_compress(5, BLOSC_SHUFFLE, 0, 100, buf, out, 200) < 0);

  /* every error code has upstream's string */
  CHECK(strcmp(blosc2_error_string(BLOSC2_ERROR_NULL_POINTER), "Pointer is null") == 0);
  CHECK(strcmp(blosc2_error_string(12345), "Unknown error") == 0);

  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  return check_result("null_args");
}
