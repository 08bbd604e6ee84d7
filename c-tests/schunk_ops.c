/* Super-chunk operations on every storage (in memory, contiguous frame in
 * memory, contiguous file, sparse directory): append, insert, update,
 * delete, reorder, metalayers, vlmetalayers (add/update/delete), slices,
 * special fills, copies between storages, frames at an offset, and a
 * user-registered I/O backend.  After each step the content is compared with
 * a model, and disk frames are reopened and compared again.
 *
 *   schunk_ops               run everything (c-tests)
 *   schunk_ops write DIR     only write the frames into DIR
 *   schunk_ops read DIR      only check frames another library wrote in DIR
 * (write with one library and read with another to cross-check them). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <blosc2.h>

#include "check.h"

#define N 2000 /* int32 items per chunk */
#define NCH 6

static int32_t model[NCH + 4][N];
static int nmodel;

static void fill(int32_t *d, int seed) {
  for (int i = 0; i < N; i++) d[i] = seed * 1000003 + i * (seed % 7 + 1);
}

static uint8_t *compress_chunk(const int32_t *d, int *csize) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_context *c = blosc2_create_cctx(cp);
  uint8_t *out = malloc(N * 4 + BLOSC2_MAX_OVERHEAD);
  *csize = blosc2_compress_ctx(c, d, N * 4, out, N * 4 + BLOSC2_MAX_OVERHEAD);
  blosc2_free_ctx(c);
  return out;
}

static void check_content(blosc2_schunk *sc, const char *what) {
  CHECK_EQ_INT(sc->nchunks, nmodel);
  CHECK_EQ_INT(sc->nbytes, (int64_t)nmodel * N * 4);
  static int32_t buf[N];
  for (int i = 0; i < nmodel && i < sc->nchunks; i++) {
    int rc = blosc2_schunk_decompress_chunk(sc, i, buf, sizeof buf);
    if (rc != N * 4 || memcmp(buf, model[i], sizeof buf) != 0) {
      fprintf(stderr, "%s: chunk %d differs (rc %d)\n", what, i, rc);
      check_failures++;
    }
    uint8_t *ch;
    bool nf;
    int cs = blosc2_schunk_get_chunk(sc, i, &ch, &nf);
    CHECK(cs > 0);
    if (cs > 0) {
      CHECK_EQ_INT(blosc2_decompress_ctx(sc->dctx, ch, cs, buf, sizeof buf), N * 4);
      CHECK(memcmp(buf, model[i], sizeof buf) == 0);
      if (nf) free(ch);
    }
  }
  if (nmodel >= 2) {
    /* a slice across a chunk boundary */
    int32_t sl[100];
    CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, N - 50, N + 50, sl), 0);
    CHECK(memcmp(sl, &model[0][N - 50], 200) == 0);
    CHECK(memcmp(sl + 50, &model[1][0], 200) == 0);
  }
  uint8_t *m;
  int32_t ml;
  CHECK(blosc2_meta_get(sc, "meta", &m, &ml) >= 0);
  CHECK(ml == 4 && memcmp(m, "ABCD", 4) == 0);
  free(m);
  CHECK_EQ_INT(sc->nvlmetalayers, 2);
  CHECK(blosc2_vlmeta_exists(sc, "gone") < 0);
  CHECK(blosc2_vlmeta_get(sc, "vl2", &m, &ml) >= 0);
  CHECK(ml == 11 && memcmp(m, "second-meta", 11) == 0);
  free(m);
  CHECK(blosc2_vlmeta_get(sc, "vl1", &m, &ml) >= 0);
  CHECK(ml == 7 && memcmp(m, "updated", 7) == 0);
  free(m);
}

/* Build the same history on `storage`; returns the schunk. */
static blosc2_schunk *build(blosc2_storage *storage) {
  blosc2_schunk *sc = blosc2_schunk_new(storage);
  REQUIRE(sc != NULL);
  CHECK(blosc2_meta_add(sc, "meta", (uint8_t *)"abcd", 4) >= 0);
  static int32_t d[N];
  for (int i = 0; i < NCH; i++) {
    fill(d, i + 1);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, d, sizeof d), i + 1);
  }
  CHECK(blosc2_vlmeta_add(sc, "vl1", (uint8_t *)"first", 5, NULL) >= 0);
  CHECK(blosc2_vlmeta_add(sc, "gone", (uint8_t *)"x", 1, NULL) >= 0);
  int cs;
  fill(d, 77);
  uint8_t *c = compress_chunk(d, &cs);
  CHECK_EQ_INT(blosc2_schunk_insert_chunk(sc, 2, c, true), NCH + 1);
  free(c);
  fill(d, 88);
  c = compress_chunk(d, &cs);
  CHECK_EQ_INT(blosc2_schunk_update_chunk(sc, 0, c, false), NCH + 1); /* takes c */
  CHECK_EQ_INT(blosc2_schunk_delete_chunk(sc, 4), NCH);
  int64_t order[NCH];
  for (int i = 0; i < NCH; i++) order[i] = NCH - 1 - i;
  CHECK_EQ_INT(blosc2_schunk_reorder_offsets(sc, order), 0);
  CHECK(blosc2_meta_update(sc, "meta", (uint8_t *)"ABCD", 4) >= 0);
  CHECK(blosc2_vlmeta_update(sc, "vl1", (uint8_t *)"updated", 7, NULL) >= 0);
  CHECK(blosc2_vlmeta_add(sc, "vl2", (uint8_t *)"second-meta", 11, NULL) >= 0);
  CHECK(blosc2_vlmeta_delete(sc, "gone") >= 0);
  /* overwrite 10 items at the start of chunk 1 */
  int32_t ten[10];
  for (int i = 0; i < 10; i++) ten[i] = -i;
  CHECK_EQ_INT(blosc2_schunk_set_slice_buffer(sc, N, N + 10, ten), 0);
  return sc;
}

static void make_model(void) {
  int32_t tmp[NCH + 1][N];
  for (int i = 0; i < NCH; i++) fill(tmp[i], i + 1);
  /* insert at 2 */
  memmove(tmp[3], tmp[2], sizeof(tmp[0]) * (NCH - 2));
  fill(tmp[2], 77);
  fill(tmp[0], 88);
  /* delete 4 */
  memmove(tmp[4], tmp[5], sizeof(tmp[0]) * (NCH - 4));
  for (int i = 0; i < NCH; i++) memcpy(model[i], tmp[NCH - 1 - i], sizeof(tmp[0]));
  for (int i = 0; i < 10; i++) model[1][i] = -i;
  nmodel = NCH;
}

static char dir[512];
static char path_c[600], path_s[600], path_o[600], path_u[600];

/* A user I/O backend that counts calls and forwards to the stdio one. */
static int user_opens = 0;
static void *u_open(const char *p, const char *m, void *params) {
  (void)params;
  user_opens++;
  return blosc2_stdio_open(p, m, NULL);
}

static void write_all(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = true, .urlpath = path_c, .cparams = &cp};
  blosc2_remove_urlpath(path_c);
  blosc2_schunk *sc = build(&st);
  check_content(sc, "contiguous file");
  blosc2_schunk_free(sc);

  blosc2_storage ss = {.contiguous = false, .urlpath = path_s, .cparams = &cp};
  blosc2_remove_urlpath(path_s);
  sc = build(&ss);
  check_content(sc, "sparse dir");

  /* the same, as a frame appended behind other bytes, twice */
  FILE *f = fopen(path_o, "wb");
  REQUIRE(f != NULL);
  fwrite("prefix-bytes", 1, 12, f);
  fclose(f);
  CHECK_EQ_INT(blosc2_schunk_append_file(sc, path_o), 12);
  int64_t second = blosc2_schunk_append_file(sc, path_o);
  CHECK(second > 12);
  blosc2_schunk_free(sc);
}

static void read_all(void) {
  blosc2_schunk *sc = blosc2_schunk_open(path_c);
  REQUIRE(sc != NULL);
  check_content(sc, "reopened contiguous file");
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(path_s);
  REQUIRE(sc != NULL);
  check_content(sc, "reopened sparse dir");
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open_offset(path_o, 12);
  REQUIRE(sc != NULL);
  check_content(sc, "frame at offset");
  blosc2_schunk_free(sc);
}

int main(int argc, char **argv) {
  blosc2_init();
  make_model();
  if (argc == 3) {
    snprintf(dir, sizeof dir, "%s", argv[2]);
  } else {
    snprintf(dir, sizeof dir, "/tmp/b2-schunk-ops-%d", (int)getpid());
  }
  mkdir(dir, 0777);
  snprintf(path_c, sizeof path_c, "%s/c.b2frame", dir);
  snprintf(path_s, sizeof path_s, "%s/s.b2frame", dir);
  snprintf(path_o, sizeof path_o, "%s/o.bin", dir);
  snprintf(path_u, sizeof path_u, "%s/u.b2frame", dir);
  if (argc == 3 && strcmp(argv[1], "write") == 0) {
    write_all();
    return check_failures ? 1 : 0;
  }
  if (argc == 3 && strcmp(argv[1], "read") == 0) {
    read_all();
    return check_failures ? 1 : 0;
  }
  write_all();
  read_all();

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  /* in memory: plain and contiguous, then a buffer round trip */
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    blosc2_storage st = {.contiguous = contiguous, .cparams = &cp};
    blosc2_schunk *sc = build(&st);
    check_content(sc, contiguous ? "memory frame" : "memory");
    uint8_t *buf;
    bool nf;
    int64_t len = blosc2_schunk_to_buffer(sc, &buf, &nf);
    CHECK(len > 0);
    blosc2_schunk *back = blosc2_schunk_from_buffer(buf, len, true);
    REQUIRE(back != NULL);
    check_content(back, "from_buffer(copy)");
    /* copies into every storage */
    blosc2_storage sf = {.contiguous = true, .urlpath = path_u, .cparams = &cp};
    blosc2_remove_urlpath(path_u);
    blosc2_schunk *cpy = blosc2_schunk_copy(back, &sf);
    REQUIRE(cpy != NULL);
    check_content(cpy, "copy to file");
    blosc2_schunk_free(cpy);
    blosc2_schunk_free(back);
    if (nf) free(buf);
    blosc2_schunk_free(sc);
  }

  /* special fill, then an update on disk */
  {
    blosc2_storage st = {.contiguous = true, .urlpath = path_u, .cparams = &cp};
    blosc2_remove_urlpath(path_u);
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    REQUIRE(sc != NULL);
    CHECK_EQ_INT(blosc2_schunk_fill_special(sc, 5 * N + 10, BLOSC2_SPECIAL_ZERO, N * 4), 6);
    CHECK_EQ_INT(sc->nbytes, (5 * N + 10) * 4);
    int32_t back[N];
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 3, back, sizeof back), N * 4);
    CHECK(back[0] == 0 && back[N - 1] == 0);
    int32_t d[N];
    fill(d, 5);
    int cs;
    uint8_t *c = compress_chunk(d, &cs);
    CHECK_EQ_INT(blosc2_schunk_update_chunk(sc, 2, c, true), 6);
    free(c);
    int64_t *offs = blosc2_frame_get_offsets(sc);
    CHECK(offs != NULL && offs[0] < 0 && offs[2] >= 0);
    free(offs);
    blosc2_schunk_free(sc);
    sc = blosc2_schunk_open(path_u);
    REQUIRE(sc != NULL);
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 2, back, sizeof back), N * 4);
    CHECK(memcmp(back, d, sizeof d) == 0);
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 5, back, sizeof back), 40);
    blosc2_schunk_free(sc);
  }

  /* a user I/O backend */
  {
    blosc2_io_cb cb = *blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM);
    cb.id = 200;
    cb.name = "counting";
    cb.open = u_open;
    CHECK_EQ_INT(blosc2_register_io_cb(&cb), 0);
    CHECK(blosc2_register_io_cb(&cb) == 0);
    cb.name = "other";
    CHECK(blosc2_register_io_cb(&cb) < 0);
    cb.id = 7;
    CHECK(blosc2_register_io_cb(&cb) < 0);
    blosc2_io io = {.id = 200, .name = "counting"};
    blosc2_storage st = {.contiguous = true, .urlpath = path_u, .cparams = &cp, .io = &io};
    blosc2_remove_urlpath(path_u);
    blosc2_schunk *sc = build(&st);
    check_content(sc, "user io");
    blosc2_schunk_free(sc);
    CHECK(user_opens > 0);
    sc = blosc2_schunk_open_udio(path_u, &io);
    REQUIRE(sc != NULL);
    check_content(sc, "user io reopened");
    blosc2_schunk_free(sc);
  }

  /* the memory-mapped backend: write with "w+", read back with "r" */
  {
    blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
    mm.mode = "w+";
    blosc2_io io = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mm};
    blosc2_storage st = {.contiguous = true, .urlpath = path_u, .cparams = &cp, .io = &io};
    blosc2_remove_urlpath(path_u);
    blosc2_schunk *sc = build(&st);
    check_content(sc, "mmap w+");
    blosc2_schunk_free(sc);
    blosc2_stdio_mmap mr = BLOSC2_STDIO_MMAP_DEFAULTS;
    mr.mode = "r";
    blosc2_io ior = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mr};
    sc = blosc2_schunk_open_udio(path_u, &ior);
    REQUIRE(sc != NULL);
    check_content(sc, "mmap r");
    blosc2_schunk_free(sc);
    sc = blosc2_schunk_open(path_u);
    REQUIRE(sc != NULL);
    check_content(sc, "mmap-written frame through stdio");
    blosc2_schunk_free(sc);
  }

  CHECK_EQ_INT(blosc2_remove_urlpath(path_c), 0);
  CHECK_EQ_INT(blosc2_remove_urlpath(path_s), 0);
  CHECK_EQ_INT(blosc2_remove_urlpath(path_o), 0);
  CHECK_EQ_INT(blosc2_remove_urlpath(path_u), 0);
  CHECK_EQ_INT(blosc2_remove_urlpath(path_u), 0); /* missing is fine */
  rmdir(dir);
  blosc2_destroy();
  return check_failures ? 1 : 0;
}
