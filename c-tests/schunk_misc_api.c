/* The super-chunk calls no other c-test exercises: the *_defaults getters,
 * get_cparams/get_dparams, open_offset_udio, rename_urlpath, remove_dir,
 * get_sparse_buffer, get_slice_nchunks and the index conversions; checked
 * against what reference 3.3.5 returns for the same calls. */
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <blosc2.h>

#include "check.h"

#define N 1000
#define NCH 5

static int exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0;
}

int main(void) {
  blosc2_init();

  /* defaults, as the header's static initializers say */
  blosc2_storage sd = blosc2_get_blosc2_storage_defaults();
  CHECK(sd.contiguous == BLOSC2_STORAGE_DEFAULTS.contiguous && sd.urlpath == NULL &&
        sd.cparams == NULL && sd.dparams == NULL && sd.io == NULL);
  blosc2_io iod = blosc2_get_blosc2_io_defaults();
  CHECK_EQ_INT(iod.id, BLOSC2_IO_DEFAULTS.id);
  CHECK(iod.name != NULL && strcmp(iod.name, BLOSC2_IO_DEFAULTS.name) == 0);
  CHECK(iod.params == NULL);
  blosc2_stdio_mmap md = blosc2_get_blosc2_stdio_mmap_defaults();
  blosc2_stdio_mmap mdef = BLOSC2_STDIO_MMAP_DEFAULTS;
  CHECK(md.mode != NULL && strcmp(md.mode, mdef.mode) == 0);
  CHECK_EQ_INT(md.initial_mapping_size, mdef.initial_mapping_size);
  CHECK(md.needs_free == mdef.needs_free);

  /* a frame to work on */
  char path[256], moved[256], dir[256], dmoved[256], off[256];
  int pid = (int)getpid();
  snprintf(path, sizeof path, "/tmp/b2-misc-%d.b2frame", pid);
  snprintf(moved, sizeof moved, "/tmp/b2-misc-%d-moved.b2frame", pid);
  snprintf(dir, sizeof dir, "/tmp/b2-misc-%d-dir.b2frame", pid);
  snprintf(dmoved, sizeof dmoved, "/tmp/b2-misc-%d-dir-moved.b2frame", pid);
  snprintf(off, sizeof off, "/tmp/b2-misc-%d-off.bin", pid);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_ZSTD;
  cp.clevel = 7;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_BITSHUFFLE;
  cp.blocksize = 1024; /* 3.3.5's get_sparse_buffer needs a fixed block size */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 2;
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp, .dparams = &dp};
  blosc2_remove_urlpath(path);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  static int32_t d[NCH][N];
  for (int c = 0; c < NCH; c++) {
    for (int i = 0; i < N; i++) d[c][i] = c * 100000 + i;
    REQUIRE(blosc2_schunk_append_buffer(sc, d[c], sizeof d[c]) == c + 1);
  }

  /* the storage's parameters point at their super-chunk, as upstream's:
   * a context made from them decodes lazy chunks */
  CHECK(sc->storage->cparams->schunk == sc);
  CHECK(sc->storage->dparams->schunk == sc);
  {
    blosc2_context *dctx = blosc2_create_dctx(*sc->storage->dparams);
    uint8_t *lz;
    bool lnf;
    int lcs = blosc2_schunk_get_lazychunk(sc, 3, &lz, &lnf);
    CHECK(lcs > 0);
    int32_t three[3];
    if (lcs > 0) {
      CHECK_EQ_INT(blosc2_getitem_ctx(dctx, lz, lcs, 500, 3, three, sizeof three), 12);
      CHECK(memcmp(three, &d[3][500], 12) == 0);
      if (lnf) free(lz);
    }
    blosc2_free_ctx(dctx);
  }

  blosc2_cparams *gc = NULL;
  CHECK_EQ_INT(blosc2_schunk_get_cparams(sc, &gc), 0);
  REQUIRE(gc != NULL);
  CHECK_EQ_INT(gc->typesize, 4);
  CHECK_EQ_INT(gc->compcode, BLOSC_ZSTD);
  CHECK_EQ_INT(gc->clevel, 7);
  CHECK_EQ_INT(gc->filters[BLOSC2_MAX_FILTERS - 1], BLOSC_BITSHUFFLE);
  free(gc);
  blosc2_dparams *gd = NULL;
  CHECK_EQ_INT(blosc2_schunk_get_dparams(sc, &gd), 0);
  REQUIRE(gd != NULL);
  CHECK_EQ_INT(gd->nthreads, 2);
  free(gd);

  /* sparse reads and the chunks a slice touches */
  int64_t coords[] = {0, N - 1, N, 3 * N + 7, NCH * N - 1};
  int32_t got[5];
  CHECK_EQ_INT(blosc2_schunk_get_sparse_buffer(sc, 5, coords, got), 0);
  for (int k = 0; k < 5; k++) CHECK_EQ_INT(got[k], d[coords[k] / N][coords[k] % N]);
  int64_t start = N - 1, stop = 3 * N + 1, *idx = NULL;
  int64_t nidx = blosc2_get_slice_nchunks(sc, &start, &stop, &idx);
  CHECK_EQ_INT(nidx, 4);
  for (int k = 0; k < nidx && idx != NULL; k++) CHECK_EQ_INT(idx[k], k);
  free(idx);
  start = 2 * N;
  stop = 2 * N + 1;
  idx = NULL;
  CHECK_EQ_INT(blosc2_get_slice_nchunks(sc, &start, &stop, &idx), 1);
  if (idx) CHECK_EQ_INT(idx[0], 2);
  free(idx);

  /* the frame behind other bytes, through a user-chosen backend */
  FILE *f = fopen(off, "wb");
  REQUIRE(f != NULL);
  fputs("0123456789", f);
  fclose(f);
  CHECK_EQ_INT(blosc2_schunk_append_file(sc, off), 10);
  blosc2_schunk_free(sc);
  blosc2_io io = blosc2_get_blosc2_io_defaults();
  sc = blosc2_schunk_open_offset_udio(off, 10, &io);
  REQUIRE(sc != NULL);
  int32_t back[N];
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 4, back, sizeof back), sizeof back);
  CHECK(memcmp(back, d[4], sizeof back) == 0);
  blosc2_schunk_free(sc);
  CHECK(blosc2_schunk_open_offset_udio(off, 11, &io) == NULL);

  /* rename a frame file, then a sparse directory */
  CHECK_EQ_INT(blosc2_rename_urlpath(path, moved), 0);
  CHECK(!exists(path) && exists(moved));
  sc = blosc2_schunk_open(moved);
  REQUIRE(sc != NULL);
  blosc2_storage ss = {.contiguous = false, .urlpath = dir, .cparams = &cp};
  blosc2_remove_urlpath(dir);
  blosc2_schunk *sp = blosc2_schunk_copy(sc, &ss);
  REQUIRE(sp != NULL);
  blosc2_schunk_free(sp);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(dmoved);
  CHECK_EQ_INT(blosc2_rename_urlpath(dir, dmoved), 0);
  sp = blosc2_schunk_open(dmoved);
  REQUIRE(sp != NULL);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sp, 2, back, sizeof back), sizeof back);
  CHECK(memcmp(back, d[2], sizeof back) == 0);
  blosc2_schunk_free(sp);
  CHECK(blosc2_rename_urlpath(path, moved) < 0); /* the source is gone */

  /* remove_dir: a sparse frame directory and everything in it */
  CHECK_EQ_INT(blosc2_remove_dir(dmoved), 0);
  CHECK(!exists(dmoved));
  CHECK(blosc2_remove_dir(dmoved) < 0);

  /* index conversions */
  int64_t shape[3] = {4, 5, 6}, strides[3] = {30, 6, 1}, index[3], back_i;
  for (int64_t i = 0; i < 120; i += 7) {
    blosc2_unidim_to_multidim(3, shape, i, index);
    CHECK(index[0] == i / 30 && index[1] == (i / 6) % 5 && index[2] == i % 6);
    blosc2_multidim_to_unidim(index, 3, strides, &back_i);
    CHECK_EQ_INT(back_i, i);
  }

  CHECK_EQ_INT(blosc2_remove_urlpath(moved), 0);
  CHECK_EQ_INT(blosc2_remove_urlpath(off), 0);
  blosc2_destroy();
  return check_result("schunk_misc_api");
}
