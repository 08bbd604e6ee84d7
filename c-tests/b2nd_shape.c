/*
 * b2nd shape changes and selections through the C API: resize, insert,
 * append, delete, concatenate (copy and in place), squeeze,
 * squeeze_index, expand_dims, orthogonal get/set and the sparse gather.
 * Every result is checked item by item against a plain C model (items a
 * growth exposes in an existing chunk's padding are not checked: the
 * reference promises zeros only for new chunks).
 *
 * Built against the reference 3.3.5 it passes too.  With B2ND_SHAPE_OUT set
 * the final array is saved there; with B2ND_SHAPE_IN set, an array saved by
 * an earlier run (of either library) is opened and checked.
 */
#include <b2nd.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define UNKNOWN INT32_MIN

typedef struct {
  int ndim;
  int64_t shape[B2ND_MAX_DIM];
  int32_t *v; /* C order; UNKNOWN where anything goes */
} model_t;

static int64_t nitems(int ndim, const int64_t *shape) {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  return n;
}

static void unravel(int64_t k, int ndim, const int64_t *shape, int64_t *idx) {
  for (int i = ndim - 1; i >= 0; i--) {
    idx[i] = shape[i] ? k % shape[i] : 0;
    if (shape[i]) k /= shape[i];
  }
}

static int64_t ravel(int ndim, const int64_t *shape, const int64_t *idx) {
  int64_t k = 0;
  for (int i = 0; i < ndim; i++) k = k * shape[i] + idx[i];
  return k;
}

/* Compare the whole array with the model. */
static void check_model(b2nd_array_t *a, const model_t *m, const char *what) {
  CHECK_EQ_INT(a->ndim, m->ndim);
  for (int i = 0; i < m->ndim; i++) CHECK_EQ_INT(a->shape[i], m->shape[i]);
  int64_t n = nitems(m->ndim, m->shape);
  CHECK_EQ_INT(a->nitems, n);
  int32_t *buf = malloc((size_t)(n ? n : 1) * 4);
  REQUIRE(buf != NULL);
  CHECK_EQ_INT(b2nd_to_cbuffer(a, buf, n * 4), 0);
  int bad = 0;
  for (int64_t k = 0; k < n; k++) {
    if (m->v[k] != UNKNOWN && buf[k] != m->v[k]) {
      if (bad++ < 5) fprintf(stderr, "%s: item %lld is %d, expected %d\n", what, (long long)k, buf[k], m->v[k]);
    }
  }
  CHECK(bad == 0);
  free(buf);
}

static b2nd_array_t *make_array(int ndim, const int64_t *shape, const int32_t *cs, const int32_t *bs,
                                const int32_t *values) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.cparams = &cp, .contiguous = true};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, (int8_t)ndim, shape, cs, bs, "<i4", 0, NULL, 0);
  REQUIRE(ctx != NULL);
  b2nd_array_t *a = NULL;
  int64_t n = nitems(ndim, shape);
  CHECK_EQ_INT(b2nd_from_cbuffer(ctx, &a, values, n * 4), 0);
  REQUIRE(a != NULL);
  b2nd_free_ctx(ctx);
  return a;
}

/* The model after a resize with `start` (NULL: at the ends). */
static void model_resize(model_t *m, const int64_t *new_shape, const int64_t *start) {
  int nd = m->ndim;
  int64_t n = nitems(nd, new_shape);
  int32_t *v = malloc((size_t)(n ? n : 1) * 4);
  int64_t idx[B2ND_MAX_DIM], old[B2ND_MAX_DIM];
  for (int64_t k = 0; k < n; k++) {
    unravel(k, nd, new_shape, idx);
    int known = 1;
    for (int d = 0; d < nd; d++) {
      int64_t st = start ? start[d] : (new_shape[d] < m->shape[d] ? new_shape[d] : m->shape[d]);
      int64_t diff = new_shape[d] - m->shape[d];
      if (diff >= 0) {
        if (idx[d] < st) old[d] = idx[d];
        else if (idx[d] < st + diff) known = 0;
        else old[d] = idx[d] - diff;
      } else {
        old[d] = idx[d] < st ? idx[d] : idx[d] - diff;
      }
    }
    v[k] = known ? m->v[ravel(nd, m->shape, old)] : UNKNOWN;
  }
  free(m->v);
  m->v = v;
  memcpy(m->shape, new_shape, sizeof(int64_t) * nd);
}

/* Write `vals` (C order over the model box start..start+len) into the model. */
static void model_set_box(model_t *m, const int64_t *start, const int64_t *len, const int32_t *vals) {
  int64_t n = nitems(m->ndim, len), idx[B2ND_MAX_DIM];
  for (int64_t k = 0; k < n; k++) {
    unravel(k, m->ndim, len, idx);
    for (int d = 0; d < m->ndim; d++) idx[d] += start[d];
    m->v[ravel(m->ndim, m->shape, idx)] = vals[k];
  }
}

static void test_resize_insert_append_delete(void) {
  int64_t shape[] = {10, 12};
  int32_t cs[] = {4, 5}, bs[] = {2, 3};
  model_t m = {.ndim = 2, .shape = {10, 12}};
  m.v = malloc(120 * 4);
  for (int i = 0; i < 120; i++) m.v[i] = i;
  b2nd_array_t *a = make_array(2, shape, cs, bs, m.v);
  check_model(a, &m, "initial");

  /* grow at the ends, then shrink back */
  int64_t big[] = {13, 17};
  CHECK_EQ_INT(b2nd_resize(a, big, NULL), 0);
  model_resize(&m, big, NULL);
  check_model(a, &m, "resize grow");
  CHECK_EQ_INT(a->sc->nchunks, 4 * 4);
  int64_t small[] = {7, 12};
  CHECK_EQ_INT(b2nd_resize(a, small, NULL), 0);
  model_resize(&m, small, NULL);
  check_model(a, &m, "resize shrink");
  /* chunk-aligned growth inside the array: new chunks of zeros */
  int64_t mid[] = {11, 12}, at[] = {4, 0};
  CHECK_EQ_INT(b2nd_resize(a, mid, at), 0);
  model_resize(&m, mid, at);
  for (int64_t k = 4 * 12; k < 8 * 12; k++) m.v[k] = 0;
  check_model(a, &m, "resize inside");
  /* not chunk aligned inside: refused */
  int64_t bad_start[] = {1, 0}, bad_shape[] = {15, 12};
  CHECK(b2nd_resize(a, bad_shape, bad_start) < 0);

  /* insert 4 rows at row 4 (a chunk boundary) */
  int32_t rows[4 * 12];
  for (int i = 0; i < 48; i++) rows[i] = 1000 + i;
  CHECK_EQ_INT(b2nd_insert(a, rows, sizeof rows, 0, 4), 0);
  int64_t ins_shape[] = {15, 12}, ins_at[] = {4, 0}, ins_len[] = {4, 12};
  model_resize(&m, ins_shape, ins_at);
  model_set_box(&m, ins_at, ins_len, rows);
  check_model(a, &m, "insert");
  /* a buffer that is not whole rows: refused */
  CHECK(b2nd_insert(a, rows, 5 * 4, 0, 0) < 0);
  CHECK(b2nd_insert(a, rows, sizeof rows, 2, 0) < 0);

  /* append 2 columns */
  int32_t cols[15 * 2];
  for (int i = 0; i < 30; i++) cols[i] = 2000 + i;
  CHECK_EQ_INT(b2nd_append(a, cols, sizeof cols, 1), 0);
  int64_t app_shape[] = {15, 14}, app_at[] = {0, 12}, app_len[] = {15, 2};
  model_resize(&m, app_shape, NULL);
  model_set_box(&m, app_at, app_len, cols);
  check_model(a, &m, "append");

  /* delete rows 4..8 (a whole chunk) and the last 3 columns */
  CHECK_EQ_INT(b2nd_delete(a, 0, 4, 4), 0);
  int64_t del_shape[] = {11, 14}, del_at[] = {4, 0};
  model_resize(&m, del_shape, del_at);
  check_model(a, &m, "delete rows");
  CHECK_EQ_INT(b2nd_delete(a, 1, 11, 3), 0);
  int64_t del2[] = {11, 11};
  model_resize(&m, del2, NULL);
  check_model(a, &m, "delete columns");
  CHECK(b2nd_delete(a, 2, 0, 1) < 0);

  /* orthogonal selection: read, then write */
  int64_t s0[] = {10, 0, 3, 3}, s1[] = {7, 1, 10};
  int64_t *sel[] = {s0, s1};
  int64_t sel_size[] = {4, 3}, bshape[] = {4, 3};
  int32_t got[12];
  CHECK_EQ_INT(b2nd_get_orthogonal_selection(a, sel, sel_size, got, bshape, sizeof got), 0);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++) {
      int64_t idx[] = {s0[i], s1[j]};
      CHECK_EQ_INT(got[i * 3 + j], m.v[ravel(2, m.shape, idx)]);
    }
  int32_t put[12];
  for (int i = 0; i < 12; i++) put[i] = 3000 + i;
  int64_t t0[] = {9, 2, 5, 0}, t1[] = {0, 8, 4};
  int64_t *tsel[] = {t0, t1};
  CHECK_EQ_INT(b2nd_set_orthogonal_selection(a, tsel, sel_size, put, bshape, sizeof put), 0);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++) {
      int64_t idx[] = {t0[i], t1[j]};
      m.v[ravel(2, m.shape, idx)] = put[i * 3 + j];
    }
  check_model(a, &m, "orthogonal set");
  int64_t oob[] = {12}; /* past the end (the reference lets index == shape through) */
  int64_t *osel[] = {oob, s1};
  int64_t osize[] = {1, 3}, obshape[] = {1, 3};
  CHECK(b2nd_get_orthogonal_selection(a, osel, osize, got, obshape, 12) < 0);

  /* sparse gather by flat index */
  int64_t coords[] = {120, 0, 5, 77, 5};
  int32_t sp[5];
  CHECK_EQ_INT(b2nd_get_sparse_cbuffer(a, 5, coords, sp, sizeof sp), 0);
  for (int i = 0; i < 5; i++) CHECK_EQ_INT(sp[i], m.v[coords[i]]);
  int64_t bad_coord[] = {121};
  CHECK(b2nd_get_sparse_cbuffer(a, 1, bad_coord, sp, sizeof sp) < 0);
  CHECK_EQ_INT(b2nd_get_sparse_cbuffer(a, 0, NULL, NULL, 0), 0);

  /* concatenate: a copy, then in place */
  int64_t shape2[] = {3, 11};
  int32_t cs2[] = {2, 4}, bs2[] = {1, 2};
  int32_t vals2[33];
  for (int i = 0; i < 33; i++) vals2[i] = 4000 + i;
  b2nd_array_t *b = make_array(2, shape2, cs2, bs2, vals2);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.cparams = &cp, .contiguous = false};
  int32_t ccs[] = {5, 5}, cbs[] = {5, 1};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, a->shape, ccs, cbs, "<i4", 0, NULL, 0);
  b2nd_array_t *c = NULL;
  CHECK_EQ_INT(b2nd_concatenate(ctx, a, b, 0, true, &c), 0);
  REQUIRE(c != NULL);
  model_t mc = {.ndim = 2, .shape = {14, 11}};
  mc.v = malloc(14 * 11 * 4);
  memcpy(mc.v, m.v, 11 * 11 * 4);
  memcpy(mc.v + 121, vals2, sizeof vals2);
  check_model(c, &mc, "concatenate copy");
  CHECK_EQ_INT(c->chunkshape[0], 5);
  check_model(a, &m, "concatenate source");
  b2nd_array_t *d = NULL;
  CHECK_EQ_INT(b2nd_concatenate(ctx, a, b, 0, false, &d), 0);
  CHECK(d == a);
  check_model(a, &mc, "concatenate in place");
  int64_t shape3[] = {3, 10};
  b2nd_array_t *e = make_array(2, shape3, cs2, bs2, vals2);
  b2nd_array_t *f = NULL;
  CHECK(b2nd_concatenate(ctx, a, e, 0, true, &f) < 0);
  CHECK(b2nd_concatenate(ctx, a, e, 3, true, &f) < 0);
  b2nd_free_ctx(ctx);

  const char *out = getenv("B2ND_SHAPE_OUT");
  if (out) {
    unlink(out);
    CHECK_EQ_INT(b2nd_save(a, (char *)out), 0);
    /* the expected content beside it, for a reader of another library */
    char path[4096];
    snprintf(path, sizeof path, "%s.expected", out);
    FILE *fp = fopen(path, "wb");
    REQUIRE(fp != NULL);
    fwrite(mc.v, 4, 14 * 11, fp);
    fclose(fp);
  }

  b2nd_free(a);
  b2nd_free(b);
  b2nd_free(c);
  b2nd_free(e);
  free(m.v);
  free(mc.v);
}

static void test_squeeze_expand(void) {
  int64_t shape[] = {1, 5, 1, 4};
  int32_t cs[] = {1, 3, 1, 2}, bs[] = {1, 2, 1, 1};
  int32_t vals[20];
  for (int i = 0; i < 20; i++) vals[i] = 7 * i - 3;
  b2nd_array_t *a = make_array(4, shape, cs, bs, vals);
  b2nd_array_t *s = NULL;
  CHECK_EQ_INT(b2nd_squeeze(a, &s), 0);
  REQUIRE(s != NULL);
  model_t m = {.ndim = 2, .shape = {5, 4}, .v = vals};
  check_model(s, &m, "squeeze");
  CHECK_EQ_INT(s->chunkshape[0], 3);
  CHECK_EQ_INT(s->blockshape[0], 2);

  bool idx[] = {true, false, false, false};
  b2nd_array_t *s2 = NULL;
  CHECK_EQ_INT(b2nd_squeeze_index(a, &s2, idx), 0);
  model_t m2 = {.ndim = 3, .shape = {5, 1, 4}, .v = vals};
  check_model(s2, &m2, "squeeze_index");
  bool bad[] = {false, true, false, false};
  b2nd_array_t *s3 = NULL;
  CHECK(b2nd_squeeze_index(a, &s3, bad) < 0);

  bool axis[] = {false, true, false};
  b2nd_array_t *x = NULL;
  CHECK_EQ_INT(b2nd_expand_dims(s, &x, axis, 3), 0);
  REQUIRE(x != NULL);
  model_t mx = {.ndim = 3, .shape = {5, 1, 4}, .v = vals};
  check_model(x, &mx, "expand_dims");
  CHECK_EQ_INT(x->chunkshape[1], 1);
  b2nd_free(a);
  b2nd_free(s);
  b2nd_free(s2);
  b2nd_free(x);
}

static void test_read_saved(const char *in) {
  b2nd_array_t *a = NULL;
  CHECK_EQ_INT(b2nd_open(in, &a), 0);
  REQUIRE(a != NULL);
  char path[4096];
  snprintf(path, sizeof path, "%s.expected", in);
  FILE *fp = fopen(path, "rb");
  REQUIRE(fp != NULL);
  model_t m = {.ndim = 2, .shape = {14, 11}};
  m.v = malloc(14 * 11 * 4);
  REQUIRE(fread(m.v, 4, 14 * 11, fp) == 14 * 11);
  fclose(fp);
  check_model(a, &m, "saved array");
  free(m.v);
  b2nd_free(a);
}

int main(void) {
  blosc2_init();
  const char *in = getenv("B2ND_SHAPE_IN");
  if (in) {
    test_read_saved(in);
  } else {
    test_resize_insert_append_delete();
    test_squeeze_expand();
  }
  blosc2_destroy();
  return check_result("b2nd_shape");
}
