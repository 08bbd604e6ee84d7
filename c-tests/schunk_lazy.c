/* Lazy chunks of frames on disk: blosc2_schunk_get_lazychunk gives header,
 * block starts and a trailer only; a context whose schunk is that
 * super-chunk decodes it, reading through the blosc2_io backend only the
 * blocks it needs.  A counting user backend measures the bytes read. */
#include <stdint.h>
#include <string.h>

#include <blosc2.h>

#include "check.h"

#define N (512 * 1024) /* int64 items per chunk: 4 MiB */

static int64_t bytes_read = 0;

static int64_t counting_read(void **ptr, int64_t size, int64_t nitems, int64_t position,
                             void *stream) {
  int64_t n = blosc2_stdio_read(ptr, size, nitems, position, stream);
  if (n > 0) bytes_read += n * size;
  return n;
}

static void run(const char *path, bool contiguous) {
  static int64_t data[N], back[N];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.blocksize = 64 * 1024;
  cp.clevel = 5;
  blosc2_io io = {.id = 201, .name = "counting-lazy"};
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp,
                       .io = &io};
  blosc2_remove_urlpath(path);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  for (int c = 0; c < 2; c++) {
    for (int i = 0; i < N; i++) data[i] = (int64_t)i * 3 + c + ((i * 2654435761u) >> 28);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, data, sizeof data), c + 1);
  }
  blosc2_schunk_free(sc);

  sc = blosc2_schunk_open_udio(path, &io);
  REQUIRE(sc != NULL);
  uint8_t *full;
  bool full_free;
  int full_len = blosc2_schunk_get_chunk(sc, 1, &full, &full_free);
  REQUIRE(full_len > 0);

  bytes_read = 0;
  uint8_t *lazy;
  bool needs_free;
  int lazy_len = blosc2_schunk_get_lazychunk(sc, 1, &lazy, &needs_free);
  REQUIRE(lazy_len > 0);
  int64_t meta_read = bytes_read;
  int32_t nbytes, cbytes, blocksize;
  CHECK_EQ_INT(blosc2_cbuffer_sizes(lazy, &nbytes, &cbytes, &blocksize), 0);
  CHECK_EQ_INT(nbytes, (int)sizeof data);
  CHECK_EQ_INT(cbytes, full_len);
  int nblocks = nbytes / blocksize + (nbytes % blocksize != 0);
  /* the lazy bit, and header + starts + trailer (nchunk, offset, csizes) */
  CHECK(lazy[31] & 0x08);
  CHECK_EQ_INT(lazy_len, 32 + 4 * nblocks + 12 + 4 * nblocks);
  CHECK(meta_read < full_len / 4);

  /* a few items: only their block is read */
  bytes_read = 0;
  int64_t items[100];
  CHECK_EQ_INT(blosc2_getitem_ctx(sc->dctx, lazy, lazy_len, 300000, 100, items, sizeof items),
               (int)sizeof items);
  CHECK(memcmp(items, data + 300000, sizeof items) == 0);
  CHECK(bytes_read > 0 && bytes_read < full_len / 8);

  /* the whole chunk through the super-chunk's own context, and through a
     new context knowing the super-chunk */
  memset(back, 0, sizeof back);
  CHECK_EQ_INT(blosc2_decompress_ctx(sc->dctx, lazy, lazy_len, back, sizeof back),
               (int)sizeof back);
  CHECK(memcmp(back, data, sizeof data) == 0);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.schunk = sc;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  memset(back, 0, sizeof back);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, lazy, lazy_len, back, sizeof back),
               (int)sizeof back);
  CHECK(memcmp(back, data, sizeof data) == 0);
  blosc2_free_ctx(dctx);
  /* without a super-chunk there is nowhere to read the blocks from */
  blosc2_dparams dp0 = BLOSC2_DPARAMS_DEFAULTS;
  dctx = blosc2_create_dctx(dp0);
  CHECK(blosc2_decompress_ctx(dctx, lazy, lazy_len, back, sizeof back) < 0);
  blosc2_free_ctx(dctx);

  /* small slices read little too */
  bytes_read = 0;
  CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, N + 1000, N + 1010, items), 0);
  CHECK(memcmp(items, data + 1000, 10 * sizeof(int64_t)) == 0);
  CHECK(bytes_read > 0 && bytes_read < full_len / 8);

  if (needs_free) free(lazy);
  if (full_free) free(full);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
}

int main(void) {
  blosc2_init();
  blosc2_io_cb cb = *blosc2_get_io_cb(BLOSC2_IO_FILESYSTEM);
  cb.id = 201;
  cb.name = "counting-lazy";
  cb.read = counting_read;
  REQUIRE(blosc2_register_io_cb(&cb) == 0);
  run("c_tests_lazy.b2frame", true);
  run("c_tests_lazy_s.b2frame", false);
  blosc2_destroy();
  return check_result("schunk_lazy");
}
