/* What user callbacks receive, and what happens when they fail, as upstream
 * 3.3.5 does it (this program passes against the reference library too).
 *
 * For a super-chunk with nthreads 1, 2 and 8:
 *   - prefilters get the chunk number (the super-chunk's current_nchunk,
 *     also when a caller sets it and compresses through schunk->cctx), the
 *     block number and offset, output size and typesize, a per-thread ttmp of
 *     upstream's size, a tid below nthreads and a context whose cparams name
 *     the super-chunk; postfilters the same for decompression;
 *   - user filters and codecs get cparams->schunk / dparams->schunk, the
 *     typesize, the chunk's block size and the thread count;
 *   - a prefilter, postfilter, filter or codec that fails gives upstream's
 *     error code, nothing is left locked, and the next call works;
 *   - a threads callback runs the jobs (on its own threads, or inline), and
 *     the results are the same, also when a callback fails, with 1, 2, 4
 *     and 8 threads (no deadlock, the next call works); failing I/O under
 *     a threads callback is in callbacks_io.c.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <blosc2.h>

#include "check.h"

#define TS 4
#define NITEMS 20000
#define NBYTES (NITEMS * TS)
#define BLOCKSIZE (4096 * TS)
#define NCHUNKS 3
#define FILTER_ID 200
#define CODEC_ID 201

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int cb_errors;
static int nthreads_now;
static blosc2_schunk *schunk_now;
static int64_t expect_nchunk;
static const uint8_t *src_now;
static int calls_pre, calls_post, calls_fwd, calls_bwd, calls_enc, calls_dec;

/* What a callback should fail with (0: succeed). */
static int fail_pre, fail_post, fail_fwd, fail_bwd, fail_enc, fail_dec;

static int tag_pre, tag_post;

#define CB_CHECK(cond)                                                         \
  do {                                                                         \
    if (!(cond)) {                                                             \
      pthread_mutex_lock(&lock);                                               \
      if (cb_errors++ < 20)                                                    \
        fprintf(stderr, "%s:%d: callback check failed: %s\n", __FILE__,        \
                __LINE__, #cond);                                              \
      pthread_mutex_unlock(&lock);                                             \
    }                                                                          \
  } while (0)

static void count(int *c) {
  pthread_mutex_lock(&lock);
  (*c)++;
  pthread_mutex_unlock(&lock);
}

static int32_t bsize_at(int32_t offset) {
  return NBYTES - offset < BLOCKSIZE ? NBYTES - offset : BLOCKSIZE;
}

static int prefilter(blosc2_prefilter_params *p) {
  count(&calls_pre);
  CB_CHECK(p->user_data == &tag_pre);
  CB_CHECK(p->nchunk == expect_nchunk);
  CB_CHECK(p->output_offset % BLOCKSIZE == 0);
  CB_CHECK(p->nblock == p->output_offset / BLOCKSIZE);
  CB_CHECK(p->output_size == bsize_at(p->output_offset));
  CB_CHECK(p->output_typesize == TS);
  CB_CHECK(src_now == NULL || p->input == src_now + p->output_offset);
  CB_CHECK(p->ttmp != NULL);
  CB_CHECK(p->ttmp_nbytes == (size_t)4 * (BLOCKSIZE + 4 * TS));
  CB_CHECK(p->tid >= 0 && p->tid < nthreads_now);
  CB_CHECK(p->ctx != NULL);
  if (p->ttmp != NULL && p->ttmp_nbytes == (size_t)4 * (BLOCKSIZE + 4 * TS)) {
    memset(p->ttmp, 0xee, p->ttmp_nbytes);  /* all of it is ours */
  }
  if (p->ctx != NULL) {
    blosc2_cparams cp;
    CB_CHECK(blosc2_ctx_get_cparams(p->ctx, &cp) == 0);
    CB_CHECK(cp.schunk == (void *)schunk_now);
    CB_CHECK(cp.typesize == TS);
  }
  if (fail_pre) {
    return fail_pre;
  }
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  for (int i = 0; i < p->output_size / TS; i++) {
    out[i] = in[i] + 1;
  }
  return 0;
}

static int postfilter(blosc2_postfilter_params *p) {
  count(&calls_post);
  CB_CHECK(p->user_data == &tag_post);
  CB_CHECK(p->nchunk == expect_nchunk);
  CB_CHECK(p->offset == p->nblock * BLOCKSIZE);
  CB_CHECK(p->size == bsize_at(p->offset));
  CB_CHECK(p->typesize == TS);
  CB_CHECK(p->ttmp != NULL);
  CB_CHECK(p->ttmp_nbytes == (size_t)4 * (BLOCKSIZE + 4 * TS));
  CB_CHECK(p->tid >= 0 && p->tid < nthreads_now);
  CB_CHECK(p->ctx != NULL);
  if (p->ctx != NULL) {
    blosc2_dparams dp;
    CB_CHECK(blosc2_ctx_get_dparams(p->ctx, &dp) == 0);
    CB_CHECK(dp.schunk == (void *)schunk_now);
  }
  if (fail_post) {
    return fail_post;
  }
  const int32_t *in = (const int32_t *)p->input;
  int32_t *out = (int32_t *)p->output;
  for (int i = 0; i < p->size / TS; i++) {
    out[i] = in[i] * 2;
  }
  return 0;
}

static int filter_forward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                          blosc2_cparams *cparams, uint8_t id) {
  count(&calls_fwd);
  CB_CHECK(id == FILTER_ID && meta == 7);
  CB_CHECK(cparams->schunk == (void *)schunk_now);
  CB_CHECK(cparams->typesize == TS);
  CB_CHECK(cparams->blocksize == BLOCKSIZE);
  CB_CHECK(cparams->nthreads == nthreads_now);
  CB_CHECK(cparams->schunk == NULL || ((blosc2_schunk *)cparams->schunk)->typesize == TS);
  if (fail_fwd) {
    return fail_fwd;
  }
  for (int i = 0; i < size; i++) {
    dest[i] = src[i] ^ 0x5a;
  }
  return 0;
}

static int filter_backward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                           blosc2_dparams *dparams, uint8_t id) {
  count(&calls_bwd);
  CB_CHECK(id == FILTER_ID && meta == 7);
  CB_CHECK(dparams->schunk == (void *)schunk_now);
  CB_CHECK(dparams->typesize == TS);
  CB_CHECK(dparams->nthreads == nthreads_now);
  if (fail_bwd) {
    return fail_bwd;
  }
  for (int i = 0; i < size; i++) {
    dest[i] = src[i] ^ 0x5a;
  }
  return 0;
}

/* A byte-run codec: (count, value) pairs. */
static int encoder(const uint8_t *input, int32_t input_len, uint8_t *output, int32_t output_len,
                   uint8_t meta, blosc2_cparams *cparams, const void *chunk) {
  (void)chunk;
  count(&calls_enc);
  CB_CHECK(meta == 3);
  CB_CHECK(cparams->schunk == (void *)schunk_now);
  CB_CHECK(cparams->typesize == TS);
  CB_CHECK(cparams->blocksize == BLOCKSIZE);
  if (fail_enc) {
    return fail_enc;
  }
  int32_t o = 0;
  for (int32_t i = 0; i < input_len;) {
    int32_t n = 1;
    while (i + n < input_len && n < 255 && input[i + n] == input[i]) n++;
    if (o + 2 > output_len) return 0;
    output[o++] = (uint8_t)n;
    output[o++] = input[i];
    i += n;
  }
  return o;
}

static int decoder(const uint8_t *input, int32_t input_len, uint8_t *output, int32_t output_len,
                   uint8_t meta, blosc2_dparams *dparams, const void *chunk) {
  (void)chunk;
  count(&calls_dec);
  CB_CHECK(meta == 3);
  CB_CHECK(dparams->schunk == (void *)schunk_now);
  CB_CHECK(dparams->typesize == TS);
  if (fail_dec) {
    return fail_dec;
  }
  int32_t o = 0;
  for (int32_t i = 0; i + 1 < input_len; i += 2) {
    if (o + input[i] > output_len) return -1;
    memset(output + o, input[i + 1], input[i]);
    o += input[i];
  }
  return o;
}

/* Threads callbacks: each job on a thread of our own, or all inline. */
static int tcb_calls;
typedef struct {
  void (*dojob)(void *);
  void *data;
} job_t;

static void *job_main(void *a) {
  job_t *j = (job_t *)a;
  j->dojob(j->data);
  return NULL;
}

static void threads_cb(void *data, void (*dojob)(void *), int numjobs, size_t elsize,
                       void *jobdata) {
  CB_CHECK(data == &tcb_calls);
  count(&tcb_calls);
  pthread_t th[64];
  job_t jobs[64];
  int n = numjobs < 64 ? numjobs : 64;
  for (int i = 0; i < n; i++) {
    jobs[i].dojob = dojob;
    jobs[i].data = (uint8_t *)jobdata + (size_t)i * elsize;
    if (pthread_create(&th[i], NULL, job_main, &jobs[i]) != 0) {
      job_main(&jobs[i]);
      th[i] = 0;
    }
  }
  for (int i = 0; i < n; i++) {
    if (th[i]) pthread_join(th[i], NULL);
  }
}

static void threads_cb_inline(void *data, void (*dojob)(void *), int numjobs, size_t elsize,
                              void *jobdata) {
  CB_CHECK(data == &tcb_calls);
  count(&tcb_calls);
  for (int i = numjobs - 1; i >= 0; i--) {
    dojob((uint8_t *)jobdata + (size_t)i * elsize);
  }
}

static int32_t data[NITEMS], back[NITEMS];

static void fill(int nchunk) {
  for (int i = 0; i < NITEMS; i++) data[i] = i * 3 + nchunk * 1000 + (i % 7 == 0);
}

static blosc2_schunk *make(int nthreads, bool pre, bool post, bool filter, bool codec) {
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = TS;
  cparams.blocksize = BLOCKSIZE;
  cparams.nthreads = (int16_t)nthreads;
  cparams.splitmode = BLOSC_ALWAYS_SPLIT;
  static blosc2_prefilter_params preparams;
  memset(&preparams, 0, sizeof preparams);
  preparams.user_data = &tag_pre;
  if (pre) {
    cparams.prefilter = prefilter;
    cparams.preparams = &preparams;
  }
  if (filter) {
    cparams.filters[4] = FILTER_ID;
    cparams.filters_meta[4] = 7;
  }
  if (codec) {
    cparams.compcode = CODEC_ID;
    cparams.compcode_meta = 3;
  }
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  dparams.nthreads = (int16_t)nthreads;
  static blosc2_postfilter_params postparams;
  memset(&postparams, 0, sizeof postparams);
  postparams.user_data = &tag_post;
  if (post) {
    dparams.postfilter = postfilter;
    dparams.postparams = &postparams;
  }
  blosc2_storage storage = {.cparams = &cparams, .dparams = &dparams};
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  REQUIRE(sc != NULL);
  schunk_now = sc;
  nthreads_now = nthreads;
  return sc;
}

static int32_t transform(int32_t v, bool pre, bool post) {
  return (v + (pre ? 1 : 0)) * (post ? 2 : 1);
}

/* Append NCHUNKS chunks and read them back in reverse. */
static void roundtrip(blosc2_schunk *sc, bool pre, bool post) {
  for (int n = 0; n < NCHUNKS; n++) {
    fill(n);
    expect_nchunk = n;
    src_now = (const uint8_t *)data;
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, NBYTES), n + 1);
  }
  for (int n = NCHUNKS - 1; n >= 0; n--) {
    fill(n);
    expect_nchunk = n;
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, n, back, NBYTES), NBYTES);
    int bad = 0;
    for (int i = 0; i < NITEMS && !bad; i++) bad = back[i] != transform(data[i], pre, post);
    CHECK(!bad);
  }
  /* a slice spanning two chunks: the postfilter also sees their numbers */
  if (!post) {
    int32_t part[200];
    expect_nchunk = 1;
    CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, NITEMS + 10, NITEMS + 210, part), 0);
    fill(1);
    CHECK_EQ_INT(part[0], transform(data[10], pre, false));
  }
}

static void params_contract(int nthreads) {
  /* prefilter and postfilter on one super-chunk */
  blosc2_schunk *sc = make(nthreads, true, true, false, false);
  calls_pre = calls_post = 0;
  roundtrip(sc, true, true);
  CHECK(calls_pre >= NCHUNKS * (NBYTES / BLOCKSIZE + 1));
  CHECK(calls_post >= NCHUNKS * (NBYTES / BLOCKSIZE + 1));

  /* python-blosc2's way: set current_nchunk, compress with schunk->cctx */
  fill(0);
  sc->current_nchunk = 7;
  expect_nchunk = 7;
  src_now = (const uint8_t *)data;
  static uint8_t chunk[NBYTES + BLOSC2_MAX_OVERHEAD];
  int cbytes = blosc2_compress_ctx(sc->cctx, data, NBYTES, chunk, sizeof chunk);
  CHECK(cbytes > 0);
  /* and a context made from the storage's parameters, as it replaces cctx */
  blosc2_context *cctx = blosc2_create_cctx(*sc->storage->cparams);
  REQUIRE(cctx != NULL);
  blosc2_free_ctx(sc->cctx);
  sc->cctx = cctx;
  sc->current_nchunk = 9;
  expect_nchunk = 9;
  CHECK(blosc2_compress_ctx(sc->cctx, data, NBYTES, chunk, sizeof chunk) > 0);
  expect_nchunk = 9;  /* current_nchunk as the caller left it */
  int64_t saved = NCHUNKS;
  CHECK_EQ_INT(blosc2_schunk_update_chunk(sc, 1, chunk, true), saved);
  expect_nchunk = 1;
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 1, back, NBYTES), NBYTES);
  CHECK_EQ_INT(back[5], transform(data[5], true, true));
  blosc2_schunk_free(sc);

  /* a user filter and a user codec */
  sc = make(nthreads, false, false, true, true);
  calls_fwd = calls_bwd = calls_enc = calls_dec = 0;
  src_now = NULL;
  roundtrip(sc, false, false);
  CHECK(calls_fwd > 0 && calls_bwd > 0 && calls_enc > 0 && calls_dec > 0);
  blosc2_schunk_free(sc);
}

/* Every failure gives `want`, and the same call works once the callback
 * does again. */
static void failing(int nthreads) {
  struct {
    int *flag, code, want;
    bool pre, post, filter, codec, on_decompress;
  } cases[] = {
      {&fail_pre, -1, BLOSC2_ERROR_FILTER_PIPELINE, true, false, false, false, false},
      {&fail_pre, 5, BLOSC2_ERROR_FILTER_PIPELINE, true, false, false, false, false},
      {&fail_post, -1, BLOSC2_ERROR_POSTFILTER, false, true, false, false, true},
      {&fail_fwd, BLOSC2_ERROR_FAILURE, BLOSC2_ERROR_FILTER_PIPELINE, false, false, true, false, false},
      {&fail_bwd, BLOSC2_ERROR_CODEC_DICT, BLOSC2_ERROR_CODEC_DICT, false, false, true, false, true},
      {&fail_enc, -5, BLOSC2_ERROR_DATA, false, false, false, true, false},
      {&fail_dec, -5, BLOSC2_ERROR_DATA, false, false, false, true, true},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    blosc2_schunk *sc = make(nthreads, cases[k].pre, cases[k].post, cases[k].filter, cases[k].codec);
    fill(0);
    expect_nchunk = 0;
    src_now = (const uint8_t *)data;
    if (!cases[k].on_decompress) {
      *cases[k].flag = cases[k].code;
      for (int again = 0; again < 2; again++) {
        CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, NBYTES), cases[k].want);
      }
      CHECK_EQ_INT(sc->nchunks, 0);
      *cases[k].flag = 0;
    }
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, NBYTES), 1);
    if (cases[k].on_decompress) {
      *cases[k].flag = cases[k].code;
      for (int again = 0; again < 2; again++) {
        CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, back, NBYTES), cases[k].want);
      }
      *cases[k].flag = 0;
    }
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 0, back, NBYTES), NBYTES);
    CHECK_EQ_INT(back[NITEMS - 1], transform(data[NITEMS - 1], cases[k].pre, cases[k].post));
    blosc2_schunk_free(sc);
  }
}

int main(void) {
  blosc2_init();
  blosc2_filter f = {.id = FILTER_ID, .name = "ctest_xor", .version = 1,
                     .forward = filter_forward, .backward = filter_backward};
  REQUIRE(blosc2_register_filter(&f) == 0);
  blosc2_codec c = {.compcode = CODEC_ID, .compname = "ctest_rle", .complib = CODEC_ID,
                    .version = 1, .encoder = encoder, .decoder = decoder};
  REQUIRE(blosc2_register_codec(&c) == 0);

  int threads[] = {1, 2, 8};
  for (int t = 0; t < 3; t++) {
    params_contract(threads[t]);
    failing(threads[t]);
  }

  /* The threads callback runs the jobs; a failing prefilter under it
   * still gives its error and leaves nothing stuck. */
  void (*cbs[])(void *, void (*)(void *), int, size_t, void *) = {threads_cb, threads_cb_inline};
  for (int k = 0; k < 2; k++) {
    blosc2_set_threads_callback(cbs[k], &tcb_calls);
    tcb_calls = 0;
    int under_cb[] = {1, 2, 4, 8};
    for (int t = 0; t < 4; t++) {
      params_contract(under_cb[t]);
      failing(under_cb[t]);
    }
    CHECK(tcb_calls > 0);
    blosc2_set_threads_callback(NULL, NULL);
  }
  params_contract(2);

  CHECK_EQ_INT(cb_errors, 0);
  blosc2_destroy();
  return check_result("callbacks");
}
