/*
 * Behaviours upstream's own tests and examples rely on (issue 11), checked
 * the way a C user sees them.  Passes against reference 3.3.5 too.
 *
 *  - BLOSC_* variables are read on every call, so setting or unsetting one
 *    between calls takes effect (test_compressor, test_nthreads);
 *  - an empty chunk decompresses into a NULL destination (test_empty_buffer);
 *  - "file:///NAME" names NAME in the working directory (frame_simple.c,
 *    frame_offset.c, test_b2nd_open_offset);
 *  - schunk->data holds one chunk pointer per chunk of a super-chunk without
 *    a frame, special-value chunks included, and follows inserts, updates
 *    and deletes (test_schunk);
 *  - a user I/O backend sees a sparse frame's index rewritten in place and
 *    truncated (test_udio);
 *  - a super-chunk serialized from memory and serialized again after a trip
 *    through a file gives the same frame (frame_offset.c);
 *  - blosc2_schunk_copy with other cparams compresses the chunks again with
 *    them and reports them (python-blosc2's copy(cparams=...));
 *  - a chunksize written into schunk->chunksize before the first chunk is
 *    kept, even when that chunk is shorter (python-blosc2 writes it and grows
 *    the short last chunk later).
 */
#include <blosc2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define N 20000

static void env_is_read_per_call(void) {
  static int32_t src[N];
  static uint8_t dest[N * 4 + BLOSC2_MAX_OVERHEAD];
  static int32_t back[N];
  for (int i = 0; i < N; i++) src[i] = (i * 7919) % 1000;
  int c1 = blosc1_compress(1, BLOSC_SHUFFLE, 4, sizeof(src), src, dest, sizeof(dest));
  REQUIRE(c1 > 0);
  setenv("BLOSC_CLEVEL", "9", 1);
  int c9 = blosc1_compress(1, BLOSC_SHUFFLE, 4, sizeof(src), src, dest, sizeof(dest));
  unsetenv("BLOSC_CLEVEL");
  CHECK(c9 > 0 && c9 != c1);
  int again = blosc1_compress(1, BLOSC_SHUFFLE, 4, sizeof(src), src, dest, sizeof(dest));
  CHECK_EQ_INT(again, c1);

  /* an out-of-range thread count in the environment fails the call, and
     the next call without it works */
  setenv("BLOSC_NTHREADS", "32768", 1);
  CHECK(blosc1_decompress(dest, back, sizeof(back)) < 0);
  unsetenv("BLOSC_NTHREADS");
  CHECK_EQ_INT(blosc1_decompress(dest, back, sizeof(back)), (int)sizeof(back));
  CHECK(memcmp(src, back, sizeof(src)) == 0);
  blosc2_set_nthreads(1);
}

static void empty_into_null(void) {
  uint8_t chunk[BLOSC2_MAX_OVERHEAD];
  int cs = blosc2_compress(3, BLOSC_NOSHUFFLE, 1, NULL, 0, chunk, sizeof(chunk));
  REQUIRE(cs > 0);
  CHECK_EQ_INT(blosc1_decompress(chunk, NULL, 0), 0);
}

static void file_url_prefix(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.cparams = &cp, .contiguous = true, .urlpath = "dropin_url.b2frame"};
  blosc2_remove_urlpath("dropin_url.b2frame");
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  int32_t v[100];
  for (int i = 0; i < 100; i++) v[i] = i;
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, v, sizeof(v)), 1);
  blosc2_schunk_free(sc);
  blosc2_schunk *o = blosc2_schunk_open("file:///dropin_url.b2frame");
  CHECK(o != NULL);
  if (o != NULL) {
    CHECK_EQ_INT(o->nchunks, 1);
    blosc2_schunk_free(o);
  }
  o = blosc2_schunk_open_offset("file:///dropin_url.b2frame", 0);
  CHECK(o != NULL);
  if (o != NULL) blosc2_schunk_free(o);
  blosc2_remove_urlpath("dropin_url.b2frame");
}

/* Every pointer in schunk->data decompresses to chunk i's content. */
static void check_data(blosc2_schunk *sc, const int32_t *expect_first) {
  REQUIRE(sc->data != NULL);
  CHECK(sc->data_len >= (size_t)sc->nchunks * sizeof(uint8_t *));
  int32_t out[1000];
  for (int64_t i = 0; i < sc->nchunks; i++) {
    int n = blosc2_decompress(sc->data[i], INT32_MAX, out, sizeof(out));
    CHECK_EQ_INT(n, (int)sizeof(out));
    CHECK_EQ_INT(out[0], expect_first[i]);
    CHECK_EQ_INT(out[999], expect_first[i] == 0 ? 0 : expect_first[i] + 999);
  }
}

static void data_pointers(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  int32_t v[1000];
  int32_t first[8];
  for (int c = 0; c < 4; c++) {
    for (int i = 0; i < 1000; i++) v[i] = c * 10000 + 1 + i;
    first[c] = c * 10000 + 1;
    REQUIRE(blosc2_schunk_append_buffer(sc, v, sizeof(v)) == c + 1);
  }
  check_data(sc, first);

  /* a zeros chunk kept as a special value still has a chunk to point at */
  uint8_t zeros[BLOSC_EXTENDED_HEADER_LENGTH];
  REQUIRE(blosc2_chunk_zeros(cp, sizeof(v), zeros, sizeof(zeros)) > 0);
  REQUIRE(blosc2_schunk_append_chunk(sc, zeros, true) == 5);
  first[4] = 0;
  check_data(sc, first);

  /* insert, update and delete move the pointers along */
  uint8_t chunk[sizeof(v) + BLOSC2_MAX_OVERHEAD];
  for (int i = 0; i < 1000; i++) v[i] = 777 + i;
  int cs = blosc2_compress(5, BLOSC_SHUFFLE, 4, v, sizeof(v), chunk, sizeof(chunk));
  REQUIRE(cs > 0);
  REQUIRE(blosc2_schunk_insert_chunk(sc, 1, chunk, true) == 6);
  int32_t after_insert[6] = {first[0], 777, first[1], first[2], first[3], 0};
  check_data(sc, after_insert);
  for (int i = 0; i < 1000; i++) v[i] = 555 + i;
  cs = blosc2_compress(5, BLOSC_SHUFFLE, 4, v, sizeof(v), chunk, sizeof(chunk));
  REQUIRE(blosc2_schunk_update_chunk(sc, 3, chunk, true) >= 0);
  REQUIRE(blosc2_schunk_delete_chunk(sc, 0) == 5);
  int32_t after_delete[5] = {777, first[1], 555, first[3], 0};
  check_data(sc, after_delete);
  blosc2_schunk_free(sc);

  /* a super-chunk backed by a frame keeps no such array, as upstream */
  blosc2_storage fst = {.cparams = &cp, .contiguous = true};
  sc = blosc2_schunk_new(&fst);
  REQUIRE(blosc2_schunk_append_buffer(sc, v, sizeof(v)) == 1);
  CHECK(sc->data == NULL);
  blosc2_schunk_free(sc);
}

typedef struct {
  int open, write, truncate;
} io_counts;
typedef struct {
  blosc2_stdio_file *f;
  io_counts *c;
} io_file;

static void *cnt_open(const char *urlpath, const char *mode, void *params) {
  io_file *my = malloc(sizeof(io_file));
  my->c = params;
  my->c->open++;
  /* like upstream's test backend: a handle even when the file is missing */
  my->f = blosc2_stdio_open(urlpath, mode, NULL);
  return my;
}
static int cnt_close(void *s) {
  io_file *my = s;
  int rc = blosc2_stdio_close(my->f);
  free(my);
  return rc;
}
static int64_t cnt_size(void *s) { return blosc2_stdio_size(((io_file *)s)->f); }
static int64_t cnt_write(const void *p, int64_t size, int64_t n, int64_t pos, void *s) {
  io_file *my = s;
  my->c->write++;
  return blosc2_stdio_write(p, size, n, pos, my->f);
}
static int64_t cnt_read(void **p, int64_t size, int64_t n, int64_t pos, void *s) {
  return blosc2_stdio_read(p, size, n, pos, ((io_file *)s)->f);
}
static int cnt_truncate(void *s, int64_t size) {
  io_file *my = s;
  my->c->truncate++;
  return blosc2_stdio_truncate(my->f, size);
}
static int cnt_destroy(void *params) {
  (void)params;
  return 0;
}

static void udio_sparse(void) {
  blosc2_io_cb cb = {0};
  cb.id = 245;
  cb.name = "dropin-counting";
  cb.is_allocation_necessary = true;
  cb.open = (blosc2_open_cb)cnt_open;
  cb.close = (blosc2_close_cb)cnt_close;
  cb.size = (blosc2_size_cb)cnt_size;
  cb.write = (blosc2_write_cb)cnt_write;
  cb.read = (blosc2_read_cb)cnt_read;
  cb.truncate = (blosc2_truncate_cb)cnt_truncate;
  cb.destroy = (blosc2_destroy_cb)cnt_destroy;
  REQUIRE(blosc2_register_io_cb(&cb) == 0);

  io_counts counts = {0};
  blosc2_io io = {.id = 245, .params = &counts};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_remove_urlpath("dropin_udio_s.b2frame");
  blosc2_storage st = {.cparams = &cp, .contiguous = false, .urlpath = "dropin_udio_s.b2frame",
                       .io = &io};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  int32_t v[1000];
  for (int i = 0; i < 1000; i++) v[i] = i;
  for (int c = 0; c < 3; c++) CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, v, sizeof(v)), c + 1);
  CHECK(counts.write > 0);
  CHECK(counts.truncate > 0);
  blosc2_schunk *o = blosc2_schunk_open_udio("dropin_udio_s.b2frame", &io);
  REQUIRE(o != NULL);
  CHECK_EQ_INT(o->nchunks, 3);
  int32_t back[1000];
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(o, 2, back, sizeof(back)), (int)sizeof(back));
  CHECK(memcmp(v, back, sizeof(v)) == 0);
  blosc2_schunk_free(o);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath("dropin_udio_s.b2frame");
}

static void serialize_after_file_trip(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_LZ4;
  cp.nthreads = 4;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 4;
  blosc2_storage st = {.cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  static int32_t v[20000];
  /* enough chunks for the index to be compressed in earnest */
  for (int c = 0; c < 150; c++) {
    for (int i = 0; i < 20000; i++) v[i] = i * c;
    REQUIRE(blosc2_schunk_append_buffer(sc, v, sizeof(v)) == c + 1);
  }
  uint8_t *f1;
  bool free1;
  int64_t n1 = blosc2_schunk_to_buffer(sc, &f1, &free1);
  REQUIRE(n1 > 0);
  blosc2_remove_urlpath("dropin_trip.b2frame");
  CHECK_EQ_INT(blosc2_schunk_to_file(sc, "dropin_trip.b2frame"), n1);
  blosc2_schunk *o = blosc2_schunk_open("dropin_trip.b2frame");
  REQUIRE(o != NULL);
  uint8_t *f2;
  bool free2;
  int64_t n2 = blosc2_schunk_to_buffer(o, &f2, &free2);
  CHECK_EQ_INT(n2, n1);
  CHECK(n2 == n1 && memcmp(f1, f2, (size_t)n1) == 0);
  if (free1) free(f1);
  if (free2) free(f2);
  blosc2_schunk_free(o);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath("dropin_trip.b2frame");
}

static void copy_with_cparams(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.clevel = 5;
  blosc2_storage st = {.cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  int32_t v[1000];
  for (int c = 0; c < 3; c++) {
    for (int i = 0; i < 1000; i++) v[i] = c * 1000 + i;
    REQUIRE(blosc2_schunk_append_buffer(sc, v, sizeof(v)) == c + 1);
  }
  /* the same parameters: the chunks are taken as they are */
  blosc2_storage same = {.contiguous = true};
  blosc2_schunk *a = blosc2_schunk_copy(sc, &same);
  REQUIRE(a != NULL);
  CHECK_EQ_INT(a->nchunks, 3);
  CHECK_EQ_INT(a->compcode, BLOSC_BLOSCLZ);
  CHECK_EQ_INT(a->storage->cparams->clevel, 5);
  blosc2_schunk_free(a);

  blosc2_cparams cp2 = BLOSC2_CPARAMS_DEFAULTS;
  cp2.typesize = 4;
  cp2.clevel = 9;
  cp2.compcode = BLOSC_ZSTD;
  blosc2_storage other = {.cparams = &cp2, .contiguous = true};
  blosc2_schunk *b = blosc2_schunk_copy(sc, &other);
  REQUIRE(b != NULL);
  CHECK_EQ_INT(b->nchunks, 3);
  CHECK_EQ_INT(b->compcode, BLOSC_ZSTD);
  CHECK_EQ_INT(b->clevel, 9);
  CHECK_EQ_INT(b->storage->cparams->clevel, 9);
  CHECK_EQ_INT(b->storage->cparams->compcode, BLOSC_ZSTD);
  int32_t back[1000];
  for (int c = 0; c < 3; c++) {
    uint8_t *chunk;
    bool needs_free;
    int cb = blosc2_schunk_get_chunk(b, c, &chunk, &needs_free);
    REQUIRE(cb > 0);
    /* byte 2 of the header holds the codec's format in its top bits */
    CHECK_EQ_INT((chunk[2] >> 5) & 7, BLOSC_ZSTD_FORMAT);
    if (needs_free) free(chunk);
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(b, c, back, sizeof(back)), (int)sizeof(back));
    CHECK_EQ_INT(back[0], c * 1000);
    CHECK_EQ_INT(back[999], c * 1000 + 999);
  }
  blosc2_schunk_free(b);
  blosc2_schunk_free(sc);
}

static void preset_chunksize(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  blosc2_storage st = {.cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  sc->chunksize = 8192;
  static uint8_t buf[8192];
  memset(buf, 'x', sizeof(buf));
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, 100), 1);
  CHECK_EQ_INT(sc->chunksize, 8192);
  /* the short last chunk grows to the full size: still fixed */
  uint8_t chunk[8192 + BLOSC2_MAX_OVERHEAD];
  int cs = blosc2_compress_ctx(sc->cctx, buf, sizeof(buf), chunk, sizeof(chunk));
  REQUIRE(cs > 0);
  CHECK(blosc2_schunk_update_chunk(sc, 0, chunk, true) >= 0);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, buf, sizeof(buf)), 2);
  CHECK_EQ_INT(sc->chunksize, 8192);
  CHECK_EQ_INT(sc->nbytes, 2 * 8192);
  blosc2_schunk_free(sc);
}

/* An opened frame works with the library's thread count, not the one its
 * writer recorded (upstream makes its contexts with blosc2_get_nthreads). */
static void opened_frames_take_global_threads(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_storage st = {.cparams = &cp, .contiguous = true, .urlpath = "dropin_threads.b2frame"};
  blosc2_remove_urlpath(st.urlpath);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  int32_t v[1000];
  for (int i = 0; i < 1000; i++) v[i] = i;
  REQUIRE(blosc2_schunk_append_buffer(sc, v, sizeof(v)) == 1);
  uint8_t *buf;
  bool needs_free;
  int64_t len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  REQUIRE(len > 0);
  blosc2_schunk_free(sc);
  int16_t prev = blosc2_set_nthreads(3);
  blosc2_schunk *o = blosc2_schunk_open(st.urlpath);
  REQUIRE(o != NULL);
  CHECK_EQ_INT(o->storage->cparams->nthreads, 3);
  CHECK_EQ_INT(o->storage->dparams->nthreads, 3);
  blosc2_schunk_free(o);
  blosc2_schunk *m = blosc2_schunk_from_buffer(buf, len, true);
  REQUIRE(m != NULL);
  CHECK_EQ_INT(m->storage->cparams->nthreads, 3);
  CHECK_EQ_INT(m->storage->dparams->nthreads, 3);
  blosc2_schunk_free(m);
  blosc2_set_nthreads(prev);
  if (needs_free) free(buf);
  blosc2_remove_urlpath(st.urlpath);
}

static int64_t file_size(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return -1;
  fseek(f, 0, SEEK_END);
  int64_t n = ftell(f);
  fclose(f);
  return n;
}

/* A frame file holds its chunks packed after updates and vlmetalayer
 * changes, as upstream keeps it: the file ends with the frame, and a
 * reopened super-chunk's cbytes is what its chunks take. (Ours also packs
 * after deletions, where upstream leaves the bytes: src/schunk/layout.rs
 * tests that.) */
static void files_stay_packed(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.cparams = &cp, .contiguous = true, .urlpath = "dropin_packed.b2frame"};
  blosc2_remove_urlpath(st.urlpath);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  static int32_t v[10000];
  uint32_t x = 7;
  for (int c = 0; c < 8; c++) {
    /* noisy low bits: chunk sizes differ from one version to the next */
    for (int i = 0; i < 10000; i++) {
      x = x * 1103515245u + 12345u;
      v[i] = i + (int32_t)(x >> (24 + c % 4));
    }
    REQUIRE(blosc2_schunk_append_buffer(sc, v, sizeof(v)) == c + 1);
  }
  uint8_t content[300];
  memset(content, 5, sizeof(content));
  REQUIRE(blosc2_vlmeta_add(sc, "attrs", content, sizeof(content), NULL) >= 0);
  static uint8_t chunk[sizeof(v) + BLOSC2_MAX_OVERHEAD];
  for (int c = 0; c < 8; c += 3) {
    for (int i = 0; i < 10000; i++) v[i] = c + i % 7;
    int cs = blosc2_compress_ctx(sc->cctx, v, sizeof(v), chunk, sizeof(chunk));
    REQUIRE(cs > 0);
    REQUIRE(blosc2_schunk_update_chunk(sc, c, chunk, true) >= 0);
  }
  int zs = blosc2_chunk_zeros(cp, sizeof(v), chunk, sizeof(chunk));
  REQUIRE(zs > 0);
  REQUIRE(blosc2_schunk_update_chunk(sc, 1, chunk, true) >= 0);
  REQUIRE(blosc2_vlmeta_update(sc, "attrs", content, 10, NULL) >= 0);
  int64_t cbytes = sc->cbytes;
  blosc2_schunk_free(sc);
  blosc2_schunk *o = blosc2_schunk_open(st.urlpath);
  REQUIRE(o != NULL);
  CHECK_EQ_INT(o->cbytes, cbytes);
  int64_t stored = 0;
  for (int c = 0; c < o->nchunks; c++) {
    uint8_t *ch;
    bool needs_free;
    int n = blosc2_schunk_get_chunk(o, c, &ch, &needs_free);
    REQUIRE(n > 0);
    /* a special chunk takes no room in the frame */
    if (c != 1) stored += n;
    if (needs_free) free(ch);
  }
  CHECK_EQ_INT(o->cbytes, stored);
  CHECK_EQ_INT(file_size(st.urlpath), blosc2_schunk_frame_len(o));
  blosc2_schunk_free(o);
  blosc2_remove_urlpath(st.urlpath);
}

static int noop_prefilter(blosc2_prefilter_params *p) {
  memcpy(p->output, p->input, (size_t)p->output_size);
  return 0;
}

static int noop_postfilter(blosc2_postfilter_params *p) {
  memcpy(p->output, p->input, (size_t)p->size);
  return 0;
}

/* A context keeps its own copy of the filter parameters (the caller's may
 * be gone) and reports that copy; without a filter it reports none. */
static void contexts_own_filter_params(void) {
  int tag = 42;
  blosc2_prefilter_params *pre = calloc(1, sizeof(*pre));
  pre->user_data = &tag;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.prefilter = noop_prefilter;
  cp.preparams = pre;
  blosc2_context *c = blosc2_create_cctx(cp);
  REQUIRE(c != NULL);
  free(pre);
  blosc2_cparams got;
  REQUIRE(blosc2_ctx_get_cparams(c, &got) == 0);
  REQUIRE(got.preparams != NULL);
  CHECK(got.preparams->user_data == &tag);
  CHECK(got.prefilter == noop_prefilter);
  blosc2_free_ctx(c);

  blosc2_prefilter_params unused = {0};
  blosc2_cparams plain = BLOSC2_CPARAMS_DEFAULTS;
  plain.preparams = &unused;
  c = blosc2_create_cctx(plain);
  REQUIRE(c != NULL);
  REQUIRE(blosc2_ctx_get_cparams(c, &got) == 0);
  CHECK(got.preparams == NULL);
  CHECK(got.prefilter == NULL);
  blosc2_free_ctx(c);

  blosc2_postfilter_params *post = calloc(1, sizeof(*post));
  post->user_data = &tag;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.postfilter = noop_postfilter;
  dp.postparams = post;
  c = blosc2_create_dctx(dp);
  REQUIRE(c != NULL);
  free(post);
  blosc2_dparams dgot;
  REQUIRE(blosc2_ctx_get_dparams(c, &dgot) == 0);
  REQUIRE(dgot.postparams != NULL);
  CHECK(dgot.postparams->user_data == &tag);
  blosc2_free_ctx(c);
}

int main(void) {
  blosc2_init();
  env_is_read_per_call();
  empty_into_null();
  file_url_prefix();
  data_pointers();
  udio_sparse();
  serialize_after_file_trip();
  copy_with_cparams();
  preset_chunksize();
  opened_frames_take_global_threads();
  files_stay_packed();
  contexts_own_filter_params();
  blosc2_destroy();
  return check_failures ? 1 : 0;
}
