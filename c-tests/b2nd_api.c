/* b2nd: every core array function once, with results checked by hand:
 * contexts, uninit/empty/zeros/nans/full, cbuffer round trips, slices in
 * and out, get_slice into a new array, copy (same and other chunking),
 * cframes (copy and in place), from_schunk, save/open (contiguous and
 * sparse), save_append/open_offset, the metalayer functions, print_meta,
 * refresh, copy_buffer/copy_buffer2, and NULL arguments. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <b2nd.h>
#include <blosc2.h>

#include "check.h"

enum { D0 = 23, D1 = 17, D2 = 9, N = D0 * D1 * D2 };

static int32_t data[N];

static int32_t at(int64_t i, int64_t j, int64_t k) { return data[(i * D1 + j) * D2 + k]; }

static b2nd_context_t *make_ctx(blosc2_storage *st, const int32_t *cs, const int32_t *bs) {
  int64_t shape[3] = {D0, D1, D2};
  return b2nd_create_ctx(st, 3, shape, cs, bs, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
}

/* Whole-array check against `data`. */
static void check_content(b2nd_array_t *a, int line) {
  static int32_t back[N];
  memset(back, 0xff, sizeof back);
  int rc = b2nd_to_cbuffer(a, back, sizeof back);
  if (rc != 0 || memcmp(back, data, sizeof data) != 0) {
    fprintf(stderr, "content differs (rc %d), from line %d\n", rc, line);
    check_failures++;
  }
}

int main(void) {
  blosc2_init();
  for (int i = 0; i < N; i++) data[i] = i * 3 - 7;
  char path[96], path2[96], path3[96];
  snprintf(path, sizeof path, "/tmp/c-tests-b2nd-api-%ld.b2nd", (long)getpid());
  snprintf(path2, sizeof path2, "/tmp/c-tests-b2nd-api-%ld-sparse.b2nd", (long)getpid());
  snprintf(path3, sizeof path3, "/tmp/c-tests-b2nd-api-%ld-append.b2frame", (long)getpid());
  blosc2_remove_urlpath(path);
  blosc2_remove_urlpath(path2);
  blosc2_remove_urlpath(path3);

  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(int32_t);
  cparams.clevel = 5;
  blosc2_storage mem = {.contiguous = false, .cparams = &cparams};
  blosc2_storage cmem = {.contiguous = true, .cparams = &cparams};
  int32_t cs[3] = {10, 8, 9}, bs[3] = {4, 3, 5};
  int32_t cs2[3] = {7, 17, 4}, bs2[3] = {7, 5, 4};

  /* contexts: invalid input gives NULL */
  int64_t badshape[3] = {-1, 2, 3};
  CHECK(b2nd_create_ctx(&mem, 3, badshape, cs, bs, "<i4", 0, NULL, 0) == NULL);
  CHECK(b2nd_create_ctx(&mem, 17, badshape, cs, bs, "<i4", 0, NULL, 0) == NULL);
  int32_t zbs[3] = {0, 1, 1};
  int64_t shape[3] = {D0, D1, D2};
  CHECK(b2nd_create_ctx(&mem, 3, shape, cs, zbs, "<i4", 0, NULL, 0) == NULL);
  b2nd_context_t *ctx = make_ctx(&cmem, cs, bs);
  REQUIRE(ctx != NULL);

  /* special-valued arrays */
  b2nd_array_t *a = NULL;
  CHECK_EQ_INT(b2nd_zeros(ctx, &a), 0);
  REQUIRE(a != NULL);
  CHECK_EQ_INT(a->ndim, 3);
  CHECK_EQ_INT(a->nitems, N);
  CHECK_EQ_INT(a->extshape[0], 30);
  CHECK_EQ_INT(a->extshape[1], 24);
  CHECK_EQ_INT(a->extchunkshape[0], 12);
  CHECK_EQ_INT(a->extchunkshape[1], 9);
  CHECK_EQ_INT(a->extchunkshape[2], 10);
  CHECK_EQ_INT(a->chunknitems, 10 * 8 * 9);
  CHECK_EQ_INT(a->blocknitems, 4 * 3 * 5);
  CHECK_EQ_INT(a->extchunknitems, 12 * 9 * 10);
  CHECK_EQ_INT(a->sc->nchunks, 3 * 3 * 1);
  CHECK_EQ_INT(a->sc->cbytes, 0); /* special chunks only */
  CHECK_EQ_INT(a->sc->typesize, 4);
  CHECK_EQ_INT(a->sc->blocksize, 4 * 3 * 5 * 4);
  CHECK_EQ_INT(a->item_array_strides[0], D1 * D2);
  CHECK_EQ_INT(a->block_chunk_strides[0], 3 * 2);
  CHECK(a->dtype != NULL && strcmp(a->dtype, "<i4") == 0);
  CHECK_EQ_INT(a->dtype_format, 0);
  CHECK_EQ_INT(a->chunk_cache.nchunk, -1);
  int32_t one = 0;
  int64_t st1[3] = {22, 16, 8}, sp1[3] = {23, 17, 9}, sh1[3] = {1, 1, 1};
  CHECK_EQ_INT(b2nd_get_slice_cbuffer(a, st1, sp1, &one, sh1, sizeof one), 0);
  CHECK_EQ_INT(one, 0);
  CHECK_EQ_INT(b2nd_free(a), 0);

  a = NULL;
  CHECK_EQ_INT(b2nd_uninit(ctx, &a), 0);
  REQUIRE(a != NULL);
  CHECK_EQ_INT(a->sc->nchunks, 9);
  b2nd_free(a);
  a = NULL;
  CHECK_EQ_INT(b2nd_empty(ctx, &a), 0);
  REQUIRE(a != NULL);
  b2nd_free(a);

  int32_t fill = 42;
  a = NULL;
  CHECK_EQ_INT(b2nd_full(ctx, &a, &fill), 0);
  REQUIRE(a != NULL);
  CHECK_EQ_INT(b2nd_get_slice_cbuffer(a, st1, sp1, &one, sh1, sizeof one), 0);
  CHECK_EQ_INT(one, 42);
  b2nd_free(a);

  /* NaNs need float sizes */
  a = NULL;
  CHECK(b2nd_nans(ctx, &a) == 0); /* typesize 4 */
  if (a) {
    float f = 0;
    CHECK_EQ_INT(b2nd_get_slice_cbuffer(a, st1, sp1, &f, sh1, sizeof f), 0);
    CHECK(isnan(f));
    b2nd_free(a);
  }

  /* from_cbuffer / to_cbuffer / slices */
  a = NULL;
  CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, data, sizeof data), 0);
  REQUIRE(a != NULL);
  check_content(a, __LINE__);
  b2nd_array_t *tooshort = NULL;
  CHECK(b2nd_from_cbuffer(ctx, &tooshort, data, sizeof data - 4) < 0);
  CHECK(b2nd_to_cbuffer(a, data, 10) < 0);

  int64_t start[3] = {3, 5, 2}, stop[3] = {19, 16, 9};
  int64_t bshape[3] = {16, 11, 7};
  static int32_t sl[16 * 11 * 7];
  CHECK_EQ_INT(b2nd_get_slice_cbuffer(a, start, stop, sl, bshape, sizeof sl), 0);
  int bad = 0;
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 11; j++)
      for (int k = 0; k < 7; k++)
        bad += sl[(i * 11 + j) * 7 + k] != at(i + 3, j + 5, k + 2);
  CHECK_EQ_INT(bad, 0);
  /* out of range */
  int64_t past[3] = {24, 16, 9};
  CHECK(b2nd_get_slice_cbuffer(a, start, past, sl, bshape, sizeof sl) < 0);

  /* set a box, in the array and in the model */
  for (int i = 0; i < 16 * 11 * 7; i++) sl[i] = -i;
  CHECK_EQ_INT(b2nd_set_slice_cbuffer(sl, bshape, sizeof sl, start, stop, a), 0);
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 11; j++)
      for (int k = 0; k < 7; k++)
        data[((i + 3) * D1 + j + 5) * D2 + k + 2] = sl[(i * 11 + j) * 7 + k];
  check_content(a, __LINE__);

  /* get_slice into a new array with other chunking; the context's shape
   * becomes the slice's */
  b2nd_context_t *ctx2 = make_ctx(&mem, cs2, bs2);
  REQUIRE(ctx2 != NULL);
  b2nd_array_t *s = NULL;
  CHECK_EQ_INT(b2nd_get_slice(ctx2, &s, a, start, stop), 0);
  if (s) {
    CHECK_EQ_INT(s->shape[0], 16);
    CHECK_EQ_INT(s->shape[2], 7);
    CHECK_EQ_INT(s->chunkshape[1], 17);
    static int32_t sl2[16 * 11 * 7];
    CHECK_EQ_INT(b2nd_to_cbuffer(s, sl2, sizeof sl2), 0);
    CHECK(memcmp(sl, sl2, sizeof sl) == 0);
    b2nd_free(s);
  }

  /* copy: same chunking (chunks copied), other chunking (re-chunked) */
  uint8_t vl[5] = {1, 2, 3, 4, 5};
  CHECK(blosc2_vlmeta_add(a->sc, "vlm", vl, sizeof vl, NULL) >= 0);
  b2nd_array_t *c1 = NULL, *c2 = NULL;
  b2nd_context_t *ctx3 = make_ctx(&mem, cs, bs);
  CHECK_EQ_INT(b2nd_copy(ctx3, a, &c1), 0);
  if (c1) {
    check_content(c1, __LINE__);
    CHECK_EQ_INT(c1->sc->nchunks, a->sc->nchunks);
    b2nd_free(c1);
  }
  CHECK_EQ_INT(b2nd_copy(ctx2, a, &c2), 0);
  if (c2) {
    check_content(c2, __LINE__);
    CHECK_EQ_INT(c2->chunkshape[0], 7);
    CHECK_EQ_INT(c2->sc->nchunks, 4 * 1 * 3);
    uint8_t *content = NULL;
    int32_t content_len = 0;
    CHECK(blosc2_vlmeta_get(c2->sc, "vlm", &content, &content_len) >= 0);
    CHECK_EQ_INT(content_len, 5);
    if (content) {
      CHECK(memcmp(content, vl, 5) == 0);
      free(content);
    }
    b2nd_free(c2);
  }

  /* cframes */
  uint8_t *cframe = NULL;
  int64_t cframe_len = 0;
  bool needs_free = false;
  CHECK_EQ_INT(b2nd_to_cframe(a, &cframe, &cframe_len, &needs_free), 0);
  CHECK(cframe_len > 0);
  b2nd_array_t *f1 = NULL;
  CHECK_EQ_INT(b2nd_from_cframe(cframe, cframe_len, true, &f1), 0);
  if (f1) {
    check_content(f1, __LINE__);
    b2nd_free(f1);
  }
  /* in place: the buffer stays the caller's */
  uint8_t *owned = malloc((size_t)cframe_len);
  memcpy(owned, cframe, (size_t)cframe_len);
  b2nd_array_t *f2 = NULL;
  CHECK_EQ_INT(b2nd_from_cframe(owned, cframe_len, false, &f2), 0);
  if (f2) {
    check_content(f2, __LINE__);
    b2nd_free(f2);
  }
  free(owned);
  if (needs_free) free(cframe);

  /* from_schunk: the array takes the schunk over */
  blosc2_schunk *sc = blosc2_schunk_copy(a->sc, &mem);
  REQUIRE(sc != NULL);
  b2nd_array_t *fs = NULL;
  CHECK_EQ_INT(b2nd_from_schunk(sc, &fs), 0);
  if (fs) {
    CHECK(fs->sc == sc);
    check_content(fs, __LINE__);
    b2nd_free(fs);
  }
  blosc2_schunk *plain = blosc2_schunk_new(&mem);
  b2nd_array_t *nometa = NULL;
  CHECK_EQ_INT(b2nd_from_schunk(plain, &nometa), BLOSC2_ERROR_METALAYER_NOT_FOUND);
  blosc2_schunk_free(plain);

  /* save and open, contiguous then sparse */
  CHECK_EQ_INT(b2nd_save(a, path), 0);
  b2nd_array_t *o = NULL;
  CHECK_EQ_INT(b2nd_open(path, &o), 0);
  if (o) {
    check_content(o, __LINE__);
    CHECK(o->sc->storage->contiguous);
    CHECK(strcmp(o->dtype, "<i4") == 0);
    /* writes through an opened file stay */
    int32_t v = 12345;
    int64_t p0[3] = {0, 0, 0}, p1[3] = {1, 1, 1};
    CHECK_EQ_INT(b2nd_set_slice_cbuffer(&v, sh1, 4, p0, p1, o), 0);
    data[0] = v;
    b2nd_free(o);
    o = NULL;
    CHECK_EQ_INT(b2nd_open(path, &o), 0);
    if (o) {
      check_content(o, __LINE__);
      CHECK_EQ_INT(b2nd_print_meta(o), 0);
      b2nd_free(o);
    }
  }
  int32_t v0 = data[0];
  int64_t p0[3] = {0, 0, 0}, p1[3] = {1, 1, 1};
  CHECK_EQ_INT(b2nd_set_slice_cbuffer(&v0, sh1, 4, p0, p1, a), 0);
  b2nd_context_t *sctx = make_ctx(&mem, cs, bs);
  b2nd_array_t *sp = NULL;
  CHECK_EQ_INT(b2nd_copy(sctx, a, &sp), 0); /* sparse in-memory copy */
  if (sp) {
    CHECK_EQ_INT(b2nd_save(sp, path2), 0);
    b2nd_array_t *so = NULL;
    CHECK_EQ_INT(b2nd_open(path2, &so), 0);
    if (so) {
      CHECK(!so->sc->storage->contiguous);
      check_content(so, __LINE__);
      b2nd_free(so);
    }
    b2nd_free(sp);
  }

  /* save_append + open_offset */
  int64_t off1 = b2nd_save_append(a, path3);
  int64_t off2 = b2nd_save_append(a, path3);
  CHECK_EQ_INT(off1, 0);
  CHECK(off2 > 0);
  b2nd_array_t *ao = NULL;
  CHECK_EQ_INT(b2nd_open_offset(path3, &ao, off2), 0);
  if (ao) {
    check_content(ao, __LINE__);
    b2nd_free(ao);
  }
  CHECK(b2nd_open("/nonexistent/b2nd/array", &ao) < 0);

  /* metalayer functions */
  uint8_t *smeta = NULL;
  int32_t chs[3] = {10, 8, 9}, bls[3] = {4, 3, 5};
  int len = b2nd_serialize_meta(3, shape, chs, bls, "<f8", 0, &smeta);
  CHECK_EQ_INT(len, 3 + (1 + 27) + 2 * (1 + 15) + 1 + 5 + 3);
  if (len > 0) {
    CHECK_EQ_INT(smeta[0], 0x97);
    int8_t nd = 0, fmt = 9;
    int64_t sh[B2ND_MAX_DIM];
    int32_t c[B2ND_MAX_DIM], b[B2ND_MAX_DIM];
    char *dtype = NULL;
    CHECK_EQ_INT(b2nd_deserialize_meta(smeta, len, &nd, sh, c, b, &dtype, &fmt), len);
    CHECK_EQ_INT(nd, 3);
    CHECK_EQ_INT(sh[1], D1);
    CHECK_EQ_INT(c[2], 9);
    CHECK_EQ_INT(b[0], 4);
    CHECK_EQ_INT(fmt, 0);
    CHECK(dtype != NULL && strcmp(dtype, "<f8") == 0);
    free(dtype);
    /* without the dtype outputs, reading stops after the shapes */
    CHECK_EQ_INT(b2nd_deserialize_meta(smeta, len, &nd, sh, c, b, NULL, NULL), 3 + 28 + 32);
    /* the inline reader agrees */
    dtype = NULL;
    CHECK_EQ_INT(b2nd_deserialize_meta_inline(smeta, len, &nd, sh, c, b, &dtype, &fmt), len);
    free(dtype);
    /* truncated or corrupt: errors */
    CHECK(b2nd_deserialize_meta(smeta, 10, &nd, sh, c, b, &dtype, &fmt) < 0);
    smeta[2] = 40;
    CHECK(b2nd_deserialize_meta(smeta, len, &nd, sh, c, b, &dtype, &fmt) < 0);
    free(smeta);
  }

  /* refresh: current -> 0; after a shape change through the schunk -> 1 */
  b2nd_array_t *r = NULL;
  CHECK_EQ_INT(b2nd_open(path, &r), 0);
  if (r) {
    CHECK_EQ_INT(b2nd_refresh(r), 0);
    int64_t newshape[3] = {20, D1, D2};
    uint8_t *m2 = NULL;
    int l2 = b2nd_serialize_meta(3, newshape, r->chunkshape, r->blockshape, r->dtype, 0, &m2);
    CHECK(l2 > 0);
    CHECK(blosc2_meta_update(r->sc, "b2nd", m2, l2) >= 0);
    free(m2);
    CHECK_EQ_INT(b2nd_refresh(r), 1);
    CHECK_EQ_INT(r->shape[0], 20);
    CHECK_EQ_INT(r->nitems, 20 * D1 * D2);
    CHECK_EQ_INT(b2nd_refresh(r), 0);
    b2nd_free(r);
  }

  /* copy_buffer2 / copy_buffer */
  int64_t srcshape[2] = {4, 5}, dstshape[2] = {3, 6};
  int16_t src2[20], dst2[18];
  for (int i = 0; i < 20; i++) src2[i] = (int16_t)i;
  memset(dst2, 0, sizeof dst2);
  int64_t ss[2] = {1, 2}, se[2] = {3, 5}, ds[2] = {1, 3};
  CHECK_EQ_INT(b2nd_copy_buffer2(2, 2, src2, srcshape, ss, se, dst2, dstshape, ds), 0);
  CHECK_EQ_INT(dst2[1 * 6 + 3], 7);
  CHECK_EQ_INT(dst2[1 * 6 + 5], 9);
  CHECK_EQ_INT(dst2[2 * 6 + 3], 12);
  CHECK_EQ_INT(dst2[0], 0);
  memset(dst2, 0, sizeof dst2);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  CHECK_EQ_INT(b2nd_copy_buffer(2, 2, src2, srcshape, ss, se, dst2, dstshape, ds), 0);
#pragma GCC diagnostic pop
  CHECK_EQ_INT(dst2[2 * 6 + 4], 13);

  /* NULL arguments are errors, not crashes */
  CHECK(b2nd_free(NULL) < 0);
  CHECK(b2nd_zeros(NULL, &a) < 0);
  CHECK(b2nd_zeros(ctx, NULL) < 0);
  CHECK(b2nd_to_cbuffer(NULL, data, sizeof data) < 0);
  CHECK(b2nd_get_slice_cbuffer(a, NULL, stop, sl, bshape, sizeof sl) < 0);
  CHECK(b2nd_set_slice_cbuffer(NULL, bshape, sizeof sl, start, stop, a) < 0);
  CHECK(b2nd_from_schunk(NULL, &a) < 0);
  CHECK(b2nd_open(NULL, &a) < 0);
  CHECK(b2nd_refresh(NULL) < 0);
  CHECK(b2nd_print_meta(NULL) < 0);
  CHECK(b2nd_to_cframe(NULL, &cframe, &cframe_len, &needs_free) < 0);
  CHECK(b2nd_from_cframe(NULL, 10, true, &a) < 0);

  /* 0-dim array: one item */
  b2nd_context_t *ctx0 = b2nd_create_ctx(&mem, 0, NULL, NULL, NULL, NULL, 0, NULL, 0);
  REQUIRE(ctx0 != NULL);
  b2nd_array_t *z = NULL;
  int32_t item = 77, got = 0;
  CHECK_EQ_INT(b2nd_from_cbuffer(ctx0, &z, &item, sizeof item), 0);
  if (z) {
    CHECK_EQ_INT(z->ndim, 0);
    CHECK_EQ_INT(z->nitems, 1);
    CHECK(strcmp(z->dtype, "|S4") == 0);
    CHECK_EQ_INT(b2nd_to_cbuffer(z, &got, sizeof got), 0);
    CHECK_EQ_INT(got, 77);
    b2nd_free(z);
  }

  /* zero-length dimension */
  int64_t zshape[2] = {0, 5};
  int32_t zcs[2] = {2, 5}, zbl[2] = {2, 5};
  b2nd_context_t *ctxz = b2nd_create_ctx(&mem, 2, zshape, zcs, zbl, "<i4", 0, NULL, 0);
  REQUIRE(ctxz != NULL);
  z = NULL;
  CHECK_EQ_INT(b2nd_zeros(ctxz, &z), 0);
  if (z) {
    CHECK_EQ_INT(z->nitems, 0);
    CHECK_EQ_INT(z->sc->nchunks, 0);
    CHECK_EQ_INT(b2nd_to_cbuffer(z, &got, sizeof got), 0);
    b2nd_free(z);
  }

  b2nd_free(a);
  CHECK_EQ_INT(b2nd_free_ctx(ctx), 0);
  b2nd_free_ctx(ctx2);
  b2nd_free_ctx(ctx3);
  b2nd_free_ctx(sctx);
  b2nd_free_ctx(ctx0);
  b2nd_free_ctx(ctxz);
  blosc2_remove_urlpath(path);
  blosc2_remove_urlpath(path2);
  blosc2_remove_urlpath(path3);
  blosc2_destroy();
  return check_result("b2nd_api");
}
