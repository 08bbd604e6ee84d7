/*
 * blosc2_destroy then blosc2_init starts from a clean plugin registry, as
 * upstream's does: codecs, filters and tuners registered before are gone,
 * so the ids can be taken again by other plugins (a test fixture that sets
 * the library up and tears it down around each test does exactly that),
 * and an id nobody registered again no longer compresses. The codecs upstream
 * knows by name are still there.
 */
#include <blosc2.h>
#include <blosc2/codecs-registry.h>
#include <string.h>

#include "check.h"

enum { N = 4096 };

/* Two trivial codecs under one id, for blocks that repeat two bytes: each
 * writes a tag then the two bytes, so the chunk shows which one compressed
 * it. */
static int tagged(const uint8_t *in, int32_t n, uint8_t *out, int32_t cap, uint8_t tag) {
  for (int32_t i = 2; i < n; i++)
    if (in[i] != in[i % 2]) return 0;
  if (cap < 3) return 0;
  out[0] = tag;
  out[1] = in[0];
  out[2] = in[1];
  return 3;
}
static int enc_a(const uint8_t *in, int32_t n, uint8_t *out, int32_t cap, uint8_t meta,
                 blosc2_cparams *cp, const void *chunk) {
  (void)meta, (void)cp, (void)chunk;
  return tagged(in, n, out, cap, 'A');
}
static int enc_b(const uint8_t *in, int32_t n, uint8_t *out, int32_t cap, uint8_t meta,
                 blosc2_cparams *cp, const void *chunk) {
  (void)meta, (void)cp, (void)chunk;
  return tagged(in, n, out, cap, 'B');
}
static int dec(const uint8_t *in, int32_t n, uint8_t *out, int32_t cap, uint8_t meta,
               blosc2_dparams *dp, const void *chunk) {
  (void)meta, (void)dp, (void)chunk;
  if (n != 3) return -1;
  for (int32_t i = 0; i < cap; i++) out[i] = in[1 + i % 2];
  return cap;
}

static int fwd(const uint8_t *in, uint8_t *out, int32_t n, uint8_t meta, blosc2_cparams *cp,
               uint8_t id) {
  (void)meta, (void)cp, (void)id;
  memcpy(out, in, n);
  return BLOSC2_ERROR_SUCCESS;
}
static int bwd(const uint8_t *in, uint8_t *out, int32_t n, uint8_t meta, blosc2_dparams *dp,
               uint8_t id) {
  (void)meta, (void)dp, (void)id;
  memcpy(out, in, n);
  return BLOSC2_ERROR_SUCCESS;
}

/* Compress N bytes with codec 200; the first byte of the first block's
 * stream (the tag) or a negative code. */
static int tag_of_codec_200(void) {
  static uint8_t src[N], dst[N + BLOSC2_MAX_OVERHEAD + 64];
  for (int i = 0; i < N; i++) src[i] = (uint8_t)(i % 2 ? 9 : 7);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = 200;
  cp.typesize = 2;
  cp.splitmode = BLOSC_NEVER_SPLIT;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_NOFILTER;
  blosc2_context *c = blosc2_create_cctx(cp);
  if (!c) return -9999;
  int n = blosc2_compress_ctx(c, src, N, dst, sizeof dst);
  blosc2_free_ctx(c);
  if (n < 0) return n;
  /* one block: header, one 4-byte stream size, then the stream */
  return n > BLOSC_EXTENDED_HEADER_LENGTH + 4 ? dst[BLOSC_EXTENDED_HEADER_LENGTH + 4 + 4] : -9998;
}

int main(void) {
  blosc2_codec a = {.compcode = 200, .compname = "tag-a", .complib = 200, .version = 1,
                    .encoder = enc_a, .decoder = dec};
  blosc2_codec b = a;
  b.compname = "tag-b";
  b.encoder = enc_b;
  blosc2_filter f1 = {.id = 201, .name = "copy-1", .version = 1, .forward = fwd, .backward = bwd};
  blosc2_filter f2 = f1;
  f2.name = "copy-2";
  blosc2_tuner t1 = {.id = 202, .name = "tuner-1"};
  blosc2_tuner t2 = t1;
  t2.name = "tuner-2";

  blosc2_init();
  CHECK_EQ_INT(blosc2_register_codec(&a), 0);
  CHECK_EQ_INT(blosc2_register_filter(&f1), 0);
  CHECK_EQ_INT(blosc2_register_tuner(&t1), 0);
  CHECK_EQ_INT(tag_of_codec_200(), 'A');
  /* taken ids refuse another name while the library lives */
  CHECK(blosc2_register_codec(&b) < 0);
  CHECK(blosc2_register_filter(&f2) < 0);
  CHECK(blosc2_register_tuner(&t2) < 0);
  blosc2_destroy();

  blosc2_init();
  /* nothing registered under 200 any more */
  CHECK(tag_of_codec_200() < 0);
  CHECK_EQ_INT(blosc2_register_codec(&b), 0);
  CHECK_EQ_INT(blosc2_register_filter(&f2), 0);
  CHECK_EQ_INT(blosc2_register_tuner(&t2), 0);
  CHECK_EQ_INT(tag_of_codec_200(), 'B');
  /* the names upstream registers itself survive the cycle */
  CHECK(blosc2_compname_to_compcode("grok") == BLOSC_CODEC_GROK);
  blosc2_destroy();
  return check_result("reinit_registry");
}
