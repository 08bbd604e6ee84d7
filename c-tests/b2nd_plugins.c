/*
 * The b2nd plugins built into the library: the NDLZ codec (32, cells of 4
 * or 8 by compcode_meta) and the NDCELL (32) and NDMEAN (33) filters.
 *
 * - Chunks compressed through a super-chunk carrying a `b2nd` metalayer must
 *   be byte-identical to C-Blosc2 3.3.5's (sizes and FNV-1a hashes below were
 *   recorded with it: run this program with B2ND_PLUGINS_GENERATE=1 against
 *   the reference to print them again) and decompress to the input (NDLZ,
 *   NDCELL) or to the same means (NDMEAN).
 * - Arrays made with b2nd_from_cbuffer and these plugins read back whole and
 *   by slices (partial reads decode single blocks).
 * - A context made from the super-chunk's cparams (cparams.schunk set)
 *   compresses with NDLZ as the reference does.
 * - Codec names 32-40 are known; ZFP either works (the reference is built
 *   with it) or fails cleanly with BLOSC2_ERROR_CODEC_SUPPORT.
 */
#include <b2nd.h>
#include <blosc2/codecs-registry.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

typedef struct {
  const char *name;
  int nd;
  int32_t cs[3], bs[3];
  int ts;
  uint8_t compcode, cmeta, filter, fmeta, filter2;
  int kind;
  int32_t cbytes[3];
  uint32_t hash[3];
  uint32_t dhash[3]; /* of the decompressed chunk (NDMEAN: the means) */
} config_t;

/* Recorded with C-Blosc2 3.3.5 (nthreads = 1: with more threads its block
 * order depends on timing). */
static config_t configs[] = {
  {"ndlz4-a", 2, {64, 64}, {32, 32}, 1, 32, 4, 0, 0, 0, 0, {1036, 2036, 4128}, {0x4f2e4621, 0x333eec42, 0xc940983c}, {0x82756455, 0x5cde4341, 0x5c2c4746}},
  {"ndlz4-b", 2, {64, 64}, {32, 32}, 1, 32, 4, 0, 0, 0, 3, {4128, 4128, 3804}, {0x0e963a04, 0xa51b4833, 0x16b31798}, {0x6edce62a, 0xfa0f7529, 0x63e8f204}},
  {"ndlz4-c", 2, {48, 40}, {24, 20}, 1, 32, 4, 0, 0, 0, 1, {1156, 1952, 1952}, {0x0ec97aa3, 0xc1cab115, 0xc6363c87}, {0x778a5f13, 0xe0dc9540, 0x94f3b32e}},
  {"ndlz4-d", 2, {64, 64}, {13, 7}, 1, 32, 4, 0, 0, 0, 5, {4128, 4128, 4128}, {0x323d4905, 0xc02c7c20, 0x8bf6a57c}, {0x63e8f204, 0x82756455, 0x5cde4341}},
  {"ndlz8-a", 2, {64, 64}, {32, 32}, 1, 32, 8, 0, 0, 0, 0, {1036, 2956, 4128}, {0x371c0fb9, 0xb69406f2, 0x02e865f5}, {0x82756455, 0x5cde4341, 0x3e143b23}},
  {"ndlz8-b", 2, {128, 128}, {64, 64}, 1, 32, 8, 0, 0, 0, 5, {16268, 1612, 9292}, {0xad60fb5b, 0x17b4f379, 0xb22b24f9}, {0x2bffcca9, 0x8876a2e5, 0x3500fe7f}},
  {"ndlz8-c", 2, {48, 40}, {24, 20}, 1, 32, 8, 0, 0, 0, 1, {1704, 1952, 1952}, {0xbb60ca26, 0x71d50854, 0xe82ad463}, {0x778a5f13, 0x31e1b781, 0x94f3b32e}},
  {"ndcell2-3d", 3, {10, 16, 20}, {5, 8, 10}, 4, 0, 0, 32, 2, 1, 1, {2688, 6592, 10724}, {0x1da84c33, 0x3a9ce92f, 0x8514bb3f}, {0x243189c5, 0xf9ba7918, 0xbdcb0cba}},
  {"ndcell3-3d", 3, {10, 16, 20}, {5, 8, 10}, 4, 0, 0, 32, 3, 1, 3, {11164, 6592, 5520}, {0x4b3c4ba8, 0x3b1dc39a, 0xa72c8233}, {0x9ebc9b66, 0xd444eabc, 0x5743ff35}},
  {"ndcell4-zstd", 3, {10, 16, 20}, {10, 4, 5}, 8, 5, 0, 32, 4, 1, 5, {3435, 2594, 2912}, {0x9a241866, 0xe59f9f46, 0xedb84984}, {0xfc030339, 0x06bc76c5, 0x1c2918c5}},
  {"ndcell3-lz4", 2, {48, 40}, {24, 20}, 4, 1, 0, 32, 3, 0, 0, {2616, 1192, 4026}, {0x4980e981, 0x7a1c290e, 0x24dd0f79}, {0xd8e8b9c5, 0xe90594f5, 0x24adc908}},
  {"ndcell-ndlz", 2, {64, 64}, {32, 32}, 1, 32, 4, 32, 4, 0, 0, {1244, 1404, 4128}, {0xd3e83ccd, 0x900b7223, 0xd8b1c63a}, {0x82756455, 0x5cde4341, 0x754580f0}},
  {"ndmean2-f32", 3, {10, 16, 20}, {5, 8, 10}, 4, 0, 0, 33, 2, 1, 3, {7360, 4739, 2650}, {0xf3d2ef1a, 0x6ef64c59, 0x001c817d}, {0x25868e65, 0x290e2ab5, 0x08fc1e05}},
  {"ndmean3-f64", 3, {10, 16, 20}, {5, 8, 10}, 8, 0, 0, 33, 3, 1, 3, {8303, 7321, 7520}, {0xed1a6d74, 0xff360f05, 0xa9f55baa}, {0x614c1f05, 0x52a75d1d, 0xc2338ae6}},
  {"ndmean4-zstd", 3, {10, 16, 20}, {10, 4, 5}, 4, 5, 0, 33, 4, 1, 5, {950, 914, 1392}, {0xc2da0894, 0xe4a7b168, 0x09d6d041}, {0x1b778c45, 0xa1277dc5, 0xe9de0bc5}},
  {"ndmean3-1d", 1, {1000}, {100}, 8, 0, 0, 33, 3, 1, 1, {566, 7079, 7660}, {0xbb50f91c, 0x4507cb9b, 0x419c6231}, {0xfa3cd198, 0x06d6feba, 0xfaa14fdf}},
  {"ndmean5-2d", 2, {48, 40}, {24, 20}, 4, 1, 0, 33, 5, 1, 4, {1549, 1283, 1176}, {0x962d334e, 0x0494e5f5, 0x80f11a73}, {0xb43107a0, 0xa33c693f, 0x475aad85}},
};
#define NCONFIGS (int)(sizeof configs / sizeof configs[0])

static int meta_b2nd(uint8_t *m, int nd, const int64_t *shape, const int32_t *cs, const int32_t *bs) {
  int p = 0;
  m[p++] = 0x97; m[p++] = 0; m[p++] = (uint8_t)nd; m[p++] = (uint8_t)(0x90 | nd);
  for (int i = 0; i < nd; i++) { m[p++] = 0xd3; for (int k = 7; k >= 0; k--) m[p++] = (uint8_t)(shape[i] >> (8 * k)); }
  m[p++] = (uint8_t)(0x90 | nd);
  for (int i = 0; i < nd; i++) { m[p++] = 0xd2; for (int k = 3; k >= 0; k--) m[p++] = (uint8_t)(cs[i] >> (8 * k)); }
  m[p++] = (uint8_t)(0x90 | nd);
  for (int i = 0; i < nd; i++) { m[p++] = 0xd2; for (int k = 3; k >= 0; k--) m[p++] = (uint8_t)(bs[i] >> (8 * k)); }
  m[p++] = 0; m[p++] = 0xdb; m[p++] = 0; m[p++] = 0; m[p++] = 0; m[p++] = 3;
  m[p++] = '|'; m[p++] = 'u'; m[p++] = '1';
  return p;
}

static uint64_t rng;
static uint32_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (uint32_t)rng; }

/* Data with 2-D structure of a few kinds (cells, periodic rows, noise...). */
static void fill(uint8_t *buf, int64_t nitems, int ts, int kind, int32_t ncols) {
  for (int64_t i = 0; i < nitems; i++) {
    int64_t r = i / ncols, c = i % ncols;
    double v;
    switch (kind) {
      case 0: v = (double)((r / 4 + c / 4) % 3); break;
      case 1: v = (double)((r % 5) * 7 + (c % 3)); break;
      case 2: v = (double)(rnd() % 4); break;
      case 3: v = sin(r * 0.05) * 100 + cos(c * 0.07) * 50; break;
      case 4: v = (double)(rnd() % 256); break;
      default: v = (double)(((r * 31) ^ (c * 17)) % 9 < 3 ? 7 : (r + c) % 5); break;
    }
    if (ts == 1) buf[i] = (uint8_t)(int)v;
    else if (ts == 4) { float f = (float)v + (kind == 3 ? (float)(rnd() % 100) * 0.001f : 0); memcpy(buf + 4 * i, &f, 4); }
    else { double d = v + (kind == 3 ? (rnd() % 100) * 0.001 : 0); memcpy(buf + 8 * i, &d, 8); }
  }
}

static uint32_t fnv(const uint8_t *p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 16777619u; }
  return h;
}

static void blank_filters(blosc2_cparams *cp) {
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) { cp->filters[i] = 0; cp->filters_meta[i] = 0; }
}

static void run_config(int ci, config_t *c, int generate) {
  int64_t shape[3], cn = 1, bn = 1;
  for (int i = 0; i < c->nd; i++) { shape[i] = c->cs[i] * 2; cn *= c->cs[i]; bn *= c->bs[i]; }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = c->compcode; cp.compcode_meta = c->cmeta; cp.typesize = c->ts; cp.clevel = 5;
  cp.blocksize = (int32_t)(bn * c->ts); cp.nthreads = 1;
  blank_filters(&cp);
  cp.filters[0] = c->filter; cp.filters_meta[0] = c->fmeta; cp.filters[5] = c->filter2;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  uint8_t m[256];
  CHECK(blosc2_meta_add(sc, "b2nd", m, meta_b2nd(m, c->nd, shape, c->cs, c->bs)) >= 0);
  size_t nbytes = (size_t)cn * c->ts;
  uint8_t *buf = malloc(nbytes), *back = malloc(nbytes);
  rng = 88172645463325252ULL ^ (uint64_t)(ci * 7919 + 1);
  if (generate) printf("  {\"%s\", ...", c->name);
  for (int k = 0; k < 3; k++) {
    fill(buf, cn, c->ts, (c->kind + k) % 6, c->cs[c->nd - 1]);
    CHECK(blosc2_schunk_append_buffer(sc, buf, (int32_t)nbytes) == k + 1);
    uint8_t *chunk;
    bool needs_free;
    int cb = blosc2_schunk_get_chunk(sc, k, &chunk, &needs_free);
    REQUIRE(cb > 0);
    uint32_t h = fnv(chunk, (size_t)cb);
    /* (big-endian: other bytes, and LZ4, which hashes native words, finds
     * other matches: other sizes too; see check.h) */
    int same_bytes = !check_host_big_endian();
    int lz4 = c->compcode == BLOSC_LZ4 || c->compcode == BLOSC_LZ4HC;
    if (generate) {
      printf(" %d 0x%08x", cb, h);
    } else if (c->cbytes[k] != 0) {
      if (same_bytes && (cb != c->cbytes[k] || h != c->hash[k]))
        fprintf(stderr, "%s chunk %d: %d bytes hash %08x, 3.3.5 made %d bytes hash %08x\n", c->name, k, cb,
                h, c->cbytes[k], c->hash[k]);
      if (same_bytes || !lz4) CHECK_EQ_INT(cb, c->cbytes[k]);
      if (same_bytes) CHECK_EQ_INT(h, c->hash[k]);
    }
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, k, back, (int32_t)nbytes), (int)nbytes);
    if (c->filter != 33) CHECK(memcmp(back, buf, nbytes) == 0);
    check_to_le_items(back, nbytes, c->ts);
    uint32_t dh = fnv(back, nbytes);
    if (generate) {
      printf(" 0x%08x", dh);
    } else if (c->cbytes[k] != 0) {
      if (dh != c->dhash[k])
        fprintf(stderr, "%s chunk %d: decoded hash %08x, 3.3.5 decoded %08x\n", c->name, k, dh, c->dhash[k]);
      CHECK_EQ_INT(dh, c->dhash[k]);
    }
    /* (above: lossless ones give the input back; NDMEAN the same means as
     * 3.3.5, by the decoded hash) */
    if (needs_free) free(chunk);
  }
  if (generate) printf("\n");
  free(buf);
  free(back);
  blosc2_schunk_free(sc);
}

static void test_arrays(void) {
  /* NDCELL + zstd and NDLZ arrays through the b2nd API, read by slices */
  struct { uint8_t compcode, cmeta, filter, fmeta; int ts; } kinds[] = {
    {5, 0, 32, 3, 4}, {32, 4, 0, 0, 1}, {32, 8, 32, 4, 1}, {1, 0, 33, 2, 8},
  };
  int64_t shape[] = {37, 45};
  int32_t cs[] = {20, 24}, bs[] = {8, 8};
  for (int t = 0; t < 4; t++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = kinds[t].ts;
    cp.compcode = kinds[t].compcode;
    cp.compcode_meta = kinds[t].cmeta;
    blank_filters(&cp);
    cp.filters[0] = kinds[t].filter;
    cp.filters_meta[0] = kinds[t].fmeta;
    blosc2_storage st = {.cparams = &cp, .contiguous = t % 2 == 0};
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, cs, bs, NULL, 0, NULL, 0);
    REQUIRE(ctx != NULL);
    size_t n = 37 * 45, nb = n * kinds[t].ts;
    uint8_t *src = malloc(nb), *all = malloc(nb), *part = malloc(nb);
    rng = 12345 + t;
    fill(src, (int64_t)n, kinds[t].ts, t == 3 ? 3 : 1, 45);
    b2nd_array_t *a = NULL;
    CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, src, (int64_t)nb), 0);
    REQUIRE(a != NULL);
    CHECK_EQ_INT(b2nd_to_cbuffer(a, all, (int64_t)nb), 0);
    if (kinds[t].filter != 33) CHECK(memcmp(all, src, nb) == 0);
    int64_t start[] = {3, 9}, stop[] = {11, 20}, pshape[] = {8, 11};
    CHECK_EQ_INT(b2nd_get_slice_cbuffer(a, start, stop, part, pshape, 88 * kinds[t].ts), 0);
    int bad = 0;
    for (int i = 0; i < 8; i++)
      for (int j = 0; j < 11; j++)
        bad += memcmp(part + (i * 11 + j) * kinds[t].ts, all + ((3 + i) * 45 + 9 + j) * kinds[t].ts,
                      kinds[t].ts) != 0;
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(a->sc->compcode, kinds[t].compcode);
    b2nd_free(a);
    b2nd_free_ctx(ctx);
    free(src);
    free(all);
    free(part);
  }
}

static void test_context_from_schunk(void) {
  /* blosc2_create_cctx with cparams.schunk: NDLZ finds the geometry there */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  cp.compcode = 32;
  cp.compcode_meta = 4;
  cp.blocksize = 32 * 32;
  blank_filters(&cp);
  blosc2_storage st = {.cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  int64_t shape[] = {64, 64};
  int32_t cs[] = {64, 64}, bs[] = {32, 32};
  uint8_t m[256];
  CHECK(blosc2_meta_add(sc, "b2nd", m, meta_b2nd(m, 2, shape, cs, bs)) >= 0);
  blosc2_cparams *scp = NULL;
  CHECK_EQ_INT(blosc2_schunk_get_cparams(sc, &scp), 0);
  REQUIRE(scp != NULL);
  blosc2_context *cctx = blosc2_create_cctx(*scp);
  REQUIRE(cctx != NULL);
  uint8_t src[4096], out[4096 + BLOSC2_MAX_OVERHEAD], back[4096];
  rng = 99;
  fill(src, 4096, 1, 0, 64);
  int cb = blosc2_compress_ctx(cctx, src, 4096, out, sizeof out);
  CHECK(cb > 0 && cb < 4096);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, out, cb, back, sizeof back), 4096);
  CHECK(memcmp(src, back, 4096) == 0);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(scp);

  /* ZFP: works (reference built with it) or fails cleanly */
  cp.compcode = BLOSC_CODEC_ZFP_FIXED_RATE;
  cp.compcode_meta = 50;
  cp.typesize = 4;
  blosc2_context *z = blosc2_create_cctx(cp);
  REQUIRE(z != NULL);
  float f[1024];
  for (int i = 0; i < 1024; i++) f[i] = (float)i;
  int zr = blosc2_compress_ctx(z, f, sizeof f, out, sizeof out);
  CHECK(zr > 0 || zr == BLOSC2_ERROR_CODEC_SUPPORT || zr == BLOSC2_ERROR_DATA);
  blosc2_free_ctx(z);
  blosc2_schunk_free(sc);
}

static void test_names(void) {
  const char *names[] = {"ndlz", "zfp_acc", "zfp_prec", "zfp_rate", "openhtj2k", "grok", "openzl", "j2k", "htj2k"};
  for (int i = 0; i < 9; i++) {
    const char *n = NULL;
    CHECK_EQ_INT(blosc2_compcode_to_compname(32 + i, &n), 32 + i);
    CHECK(n != NULL && strcmp(n, names[i]) == 0);
    CHECK_EQ_INT(blosc2_compname_to_compcode(names[i]), 32 + i);
  }
  const char *n = NULL;
  CHECK_EQ_INT(blosc2_compcode_to_compname(41, &n), -1);
}

int main(void) {
  blosc2_init();
  int generate = getenv("B2ND_PLUGINS_GENERATE") != NULL;
  for (int i = 0; i < NCONFIGS; i++) run_config(i, &configs[i], generate);
  if (!generate) {
    test_arrays();
    test_context_from_schunk();
    test_names();
  }
  blosc2_destroy();
  return check_result("b2nd_plugins");
}
