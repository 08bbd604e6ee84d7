/*
 * A user tuner written against the public API, as upstream runs one: its
 * init when a compression context is made (by blosc2_create_cctx, a
 * super-chunk, a special chunk), its next_blocksize before each chunk, and
 * none of next_cparams, update and free (upstream only calls those once a
 * tuner keeps state in the context's private struct). Unknown tuner ids,
 * and failing init or next_blocksize, are errors as upstream's.
 *
 * Upstream divides by a zero block size when a user tuner runs with the
 * automatic one (SIGFPE); here the automatic block size applies. That last
 * part is skipped with the argument "reference", to run the rest there.
 */
#include <blosc2.h>
#include <string.h>

#include "check.h"

static int ninit, nnext, nother, fail_init, fail_next;
static void *seen_params;
static blosc2_context *seen_cctx, *seen_dctx;
static int32_t seen_typesize;

static int t_init(void *params, blosc2_context *cctx, blosc2_context *dctx) {
  ninit++;
  seen_params = params;
  seen_cctx = cctx;
  seen_dctx = dctx;
  return fail_init ? -1 : 0;
}

static int t_next_blocksize(blosc2_context *ctx) {
  nnext++;
  /* a tuner may look at its context through the public API */
  blosc2_cparams cp;
  if (blosc2_ctx_get_cparams(ctx, &cp) == 0) seen_typesize = cp.typesize;
  return fail_next ? -1 : 0;
}

static int t_next_cparams(blosc2_context *ctx) {
  (void)ctx;
  nother++;
  return 0;
}
static int t_update(blosc2_context *ctx, double ctime) {
  (void)ctx, (void)ctime;
  nother++;
  return 0;
}
static int t_free(blosc2_context *ctx) {
  (void)ctx;
  nother++;
  return 0;
}

enum { N = 100000 };
static int32_t src[N];
static uint8_t dst[sizeof src + BLOSC2_MAX_OVERHEAD];

static blosc2_cparams tuned(int tuner_id, int32_t blocksize) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.tuner_id = tuner_id;
  cp.tuner_params = &ninit; /* any pointer: init must get it back */
  cp.blocksize = blocksize;
  cp.typesize = 4;
  return cp;
}

int main(int argc, char **argv) {
  int on_reference = argc > 1 && strcmp(argv[1], "reference") == 0;
  for (int i = 0; i < N; i++) src[i] = i;
  blosc2_init();
  blosc2_tuner t = {.id = 200, .name = "counting", .init = t_init,
                    .next_blocksize = t_next_blocksize, .next_cparams = t_next_cparams,
                    .update = t_update, .free = t_free};
  CHECK_EQ_INT(blosc2_register_tuner(&t), 0);

  /* a context: init once, with the params and the context itself */
  blosc2_cparams cp = tuned(200, 65536);
  blosc2_context *c = blosc2_create_cctx(cp);
  REQUIRE(c != NULL);
  CHECK_EQ_INT(ninit, 1);
  CHECK(seen_params == &ninit);
  CHECK(seen_cctx == c);
  CHECK(seen_dctx == NULL);
  CHECK_EQ_INT(nnext, 0);
  int n = blosc2_compress_ctx(c, src, sizeof src, dst, sizeof dst);
  CHECK(n > 0);
  CHECK_EQ_INT(blosc2_compress_ctx(c, src, sizeof src, dst, sizeof dst), n);
  CHECK_EQ_INT(nnext, 2);
  CHECK_EQ_INT(seen_typesize, 4);
  int32_t nbytes, cbytes, blocksize;
  CHECK_EQ_INT(blosc2_cbuffer_sizes(dst, &nbytes, &cbytes, &blocksize), 0);
  CHECK_EQ_INT(blocksize, 65536);
  /* VL blocks are chunks too */
  const void *srcs[2] = {src, src + 100};
  int32_t sizes[2] = {400, 800};
  CHECK(blosc2_vlcompress_ctx(c, srcs, sizes, 2, dst, sizeof dst) > 0);
  CHECK_EQ_INT(nnext, 3);
  /* a tuner that refuses a chunk fails it */
  fail_next = 1;
  CHECK_EQ_INT(blosc2_compress_ctx(c, src, sizeof src, dst, sizeof dst), BLOSC2_ERROR_TUNER);
  fail_next = 0;
  blosc2_free_ctx(c);
  CHECK_EQ_INT(nother, 0);

  /* decompression contexts have no tuner */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *d = blosc2_create_dctx(dp);
  CHECK_EQ_INT(ninit, 1);
  blosc2_free_ctx(d);

  /* a failing init refuses the context, and a super-chunk with it */
  fail_init = 1;
  CHECK(blosc2_create_cctx(cp) == NULL);
  CHECK_EQ_INT(ninit, 2);
  blosc2_storage refused = {.contiguous = true, .cparams = &cp};
  CHECK(blosc2_schunk_new(&refused) == NULL);
  CHECK_EQ_INT(ninit, 3);
  fail_init = 0;
  ninit = 2;

  /* a super-chunk's context: init when made, next_blocksize per chunk */
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(ninit, 3);
  CHECK(seen_cctx == sc->cctx);
  int before = nnext;
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, src, sizeof src), 1);
  CHECK_EQ_INT(nnext, before + 1);
  blosc2_schunk_free(sc);

  /* special chunks make a context of their own */
  before = nnext;
  CHECK_EQ_INT(blosc2_chunk_zeros(cp, sizeof src, dst, sizeof dst), BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ_INT(ninit, 4);
  CHECK_EQ_INT(nnext, before + 1);
  CHECK_EQ_INT(nother, 0);

  /* an id nobody registered: no context, no super-chunk, no chunk */
  blosc2_cparams unknown = tuned(201, 65536);
  CHECK(blosc2_create_cctx(unknown) == NULL);
  blosc2_storage st2 = {.contiguous = true, .cparams = &unknown};
  CHECK(blosc2_schunk_new(&st2) == NULL);
  CHECK_EQ_INT(blosc2_chunk_zeros(unknown, sizeof src, dst, sizeof dst), BLOSC2_ERROR_NULL_POINTER);

  /* a tuner registered by name only is a plugin to load; none is here */
  blosc2_tuner byname = {.id = 210, .name = "no_such_tuner_plugin"};
  CHECK_EQ_INT(blosc2_register_tuner(&byname), 0);
  CHECK(blosc2_create_cctx(tuned(210, 65536)) == NULL);

  if (!on_reference) {
    /* the automatic block size, which upstream divides by zero here */
    blosc2_context *a = blosc2_create_cctx(tuned(200, 0));
    REQUIRE(a != NULL);
    n = blosc2_compress_ctx(a, src, sizeof src, dst, sizeof dst);
    CHECK(n > 0);
    CHECK_EQ_INT(blosc2_cbuffer_sizes(dst, &nbytes, &cbytes, &blocksize), 0);
    CHECK(blocksize > 0);
    static int32_t back[N];
    CHECK_EQ_INT(blosc2_decompress(dst, n, back, sizeof back), (int)sizeof src);
    CHECK(memcmp(back, src, sizeof src) == 0);
    blosc2_free_ctx(a);
  }
  blosc2_destroy();
  return check_result("tuners");
}
