/*
 * VL-block chunks through the installed <blosc2.h>: compress buffers of
 * different sizes as one block each, read them back all at once, one at a
 * time, and as one flat buffer; the documented error codes; and VL chunks in
 * a super-chunk (in memory, serialized, and on disk) read block by block.
 * Every block the library hands out is released with free(), as documented.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <blosc2.h>

#include "check.h"

#define NB 6

static const int32_t sizes[NB] = {50, 1000, 7, 4096, 333, 1};

static uint8_t *make_block(int i, int32_t n) {
  uint8_t *p = malloc((size_t)n);
  static const char words[] = "variable length blocks of text in one chunk ";
  for (int32_t k = 0; k < n; k++) p[k] = (uint8_t)(words[(k * (i + 1)) % (sizeof words - 1)] + (k % 97 == 0 ? i : 0));
  return p;
}

/* Compress blocks[first..NB) with `cp`; returns the chunk (malloc()ed) and its size. */
static uint8_t *vl_chunk(blosc2_cparams cp, uint8_t **blocks, int first, int32_t *csize) {
  int32_t total = 0;
  for (int i = first; i < NB; i++) total += sizes[i];
  int32_t destsize = total + BLOSC2_MAX_OVERHEAD + 8 * NB;
  uint8_t *dest = malloc((size_t)destsize);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  REQUIRE(cctx != NULL);
  *csize = blosc2_vlcompress_ctx(cctx, (const void *const *)(blocks + first), sizes + first, NB - first,
                                 dest, destsize);
  blosc2_free_ctx(cctx);
  return dest;
}

static void check_chunk(const uint8_t *chunk, int32_t csize, uint8_t **blocks) {
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  int32_t nblocks = -1;
  CHECK_EQ_INT(blosc2_vlchunk_get_nblocks(chunk, csize, &nblocks), 0);
  CHECK_EQ_INT(nblocks, NB);

  void *dests[NB + 2];
  int32_t dsizes[NB + 2];
  CHECK_EQ_INT(blosc2_vldecompress_ctx(dctx, chunk, csize, dests, dsizes, NB + 2), NB);
  for (int i = 0; i < NB; i++) {
    CHECK_EQ_INT(dsizes[i], sizes[i]);
    CHECK(memcmp(dests[i], blocks[i], (size_t)sizes[i]) == 0);
    free(dests[i]);
  }
  for (int i = 0; i < NB; i++) {
    uint8_t *one = NULL;
    int32_t osize = 0;
    CHECK_EQ_INT(blosc2_vldecompress_block_ctx(dctx, chunk, csize, i, &one, &osize), sizes[i]);
    CHECK_EQ_INT(osize, sizes[i]);
    CHECK(one != NULL && memcmp(one, blocks[i], (size_t)sizes[i]) == 0);
    free(one);
  }
  /* the whole chunk decompresses to the blocks back to back */
  int32_t nbytes, cbytes, bsize;
  CHECK_EQ_INT(blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, &bsize), 0);
  CHECK_EQ_INT(cbytes, csize);
  CHECK_EQ_INT(bsize, NB); /* the blocksize field counts the blocks */
  uint8_t *flat = malloc((size_t)nbytes);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, chunk, csize, flat, nbytes), nbytes);
  int32_t at = 0;
  for (int i = 0; i < NB; i++) {
    CHECK(memcmp(flat + at, blocks[i], (size_t)sizes[i]) == 0);
    at += sizes[i];
  }
  CHECK_EQ_INT(blosc2_decompress(chunk, csize, flat, nbytes), nbytes);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, chunk, csize, flat, nbytes - 1), BLOSC2_ERROR_WRITE_BUFFER);
  /* item access is not offered on VL chunks */
  CHECK_EQ_INT(blosc2_getitem_ctx(dctx, chunk, csize, 0, 1, flat, nbytes), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ_INT(blosc1_getitem(chunk, 0, 1, flat), BLOSC2_ERROR_INVALID_PARAM);
  free(flat);
  blosc2_free_ctx(dctx);
}

static void errors(const uint8_t *chunk, int32_t csize, uint8_t **blocks) {
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  uint8_t out[20000];
  void *dests[NB];
  int32_t dsizes[NB], n;
  uint8_t *one = (uint8_t *)out;

  /* compression refuses what the reference refuses */
  CHECK_EQ_INT(blosc2_vlcompress_ctx(dctx, (const void *const *)blocks, sizes, NB, out, sizeof out),
               BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ_INT(blosc2_vlcompress_ctx(cctx, (const void *const *)blocks, sizes, 0, out, sizeof out),
               BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ_INT(blosc2_vlcompress_ctx(cctx, NULL, sizes, NB, out, sizeof out), BLOSC2_ERROR_INVALID_PARAM);
  int32_t bad[NB];
  memcpy(bad, sizes, sizeof bad);
  bad[2] = 0;
  CHECK_EQ_INT(blosc2_vlcompress_ctx(cctx, (const void *const *)blocks, bad, NB, out, sizeof out),
               BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ_INT(blosc2_vlcompress_ctx(cctx, (const void *const *)blocks, sizes, NB, out, 31),
               BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  /* too small a destination is "does not fit" */
  CHECK_EQ_INT(blosc2_vlcompress_ctx(cctx, (const void *const *)blocks, sizes, NB, out, 60), 0);

  /* decompression */
  CHECK_EQ_INT(blosc2_vldecompress_ctx(dctx, chunk, csize, dests, dsizes, NB - 1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ_INT(blosc2_vldecompress_ctx(dctx, chunk, csize, NULL, dsizes, NB), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ_INT(blosc2_vldecompress_ctx(cctx, chunk, csize, dests, dsizes, NB), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ_INT(blosc2_vldecompress_ctx(dctx, chunk, csize - 1, dests, dsizes, NB), BLOSC2_ERROR_INVALID_HEADER);
  CHECK_EQ_INT(blosc2_vldecompress_block_ctx(dctx, chunk, csize, NB, &one, &n), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ_INT(blosc2_vldecompress_block_ctx(dctx, chunk, csize, -1, &one, &n), BLOSC2_ERROR_INVALID_PARAM);
  CHECK(one == (uint8_t *)out); /* untouched on failure */
  CHECK_EQ_INT(blosc2_vldecompress_block_ctx(dctx, chunk, csize, 0, NULL, &n), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ_INT(blosc2_vlchunk_get_nblocks(NULL, csize, &n), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ_INT(blosc2_vlchunk_get_nblocks(chunk, 20, &n), BLOSC2_ERROR_READ_BUFFER);

  /* a regular chunk is not a VL chunk */
  int32_t rsize = blosc2_compress_ctx(cctx, chunk, csize, out, sizeof out);
  REQUIRE(rsize > 0);
  CHECK_EQ_INT(blosc2_vlchunk_get_nblocks(out, rsize, &n), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ_INT(blosc2_vldecompress_ctx(dctx, out, rsize, dests, dsizes, NB), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ_INT(blosc2_vldecompress_block_ctx(dctx, out, rsize, 0, &one, &n), BLOSC2_ERROR_INVALID_PARAM);

  /* corrupt block starts and sizes are header errors, never a crash */
  uint8_t *c = malloc((size_t)csize);
  memcpy(c, chunk, (size_t)csize);
  check_put_le32(c + BLOSC_EXTENDED_HEADER_LENGTH + 4, csize + 10);
  CHECK_EQ_INT(blosc2_vldecompress_ctx(dctx, c, csize, dests, dsizes, NB), BLOSC2_ERROR_INVALID_HEADER);
  memcpy(c, chunk, (size_t)csize);
  check_put_le32(c + BLOSC2_CHUNK_BLOCKSIZE, 1000000);
  CHECK_EQ_INT(blosc2_vldecompress_ctx(dctx, c, csize, dests, dsizes, NB), BLOSC2_ERROR_READ_BUFFER);
  free(c);

  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
}

/* VL chunks appended to a super-chunk, read back block by block. */
static void in_schunk(const char *path, uint8_t **blocks) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  cp.compcode = BLOSC_LZ4;
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp};
  if (path) blosc2_remove_urlpath(path);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  uint8_t *chunks[3];
  int32_t csizes[3];
  for (int k = 0; k < 3; k++) {
    cp.clevel = (uint8_t)(3 + 3 * k);
    /* different blocks per chunk, so the chunks differ in size */
    chunks[k] = vl_chunk(cp, blocks, k, &csizes[k]);
    REQUIRE(csizes[k] > 0);
    int64_t nchunks = blosc2_schunk_append_chunk(sc, chunks[k], true);
    if (nchunks < 0) {
      fprintf(stderr, "appending a VL chunk: %lld\n", (long long)nchunks);
      check_failures++;
      goto out;
    }
    CHECK_EQ_INT(nchunks, k + 1);
  }
  CHECK(sc->flags2 & BLOSC2_VL_BLOCKS);

  blosc2_schunk *views[2] = {sc, NULL};
  uint8_t *frame = NULL;
  bool needs_free = false;
  int64_t flen = blosc2_schunk_to_buffer(sc, &frame, &needs_free);
  CHECK(flen > 0);
  if (flen > 0) views[1] = blosc2_schunk_from_buffer(frame, flen, true);
  CHECK(views[1] != NULL);
  for (int w = 0; w < 2; w++) {
    blosc2_schunk *s = views[w];
    if (s == NULL) continue;
    CHECK_EQ_INT(s->nchunks, 3);
    for (int k = 0; k < 3; k++) {
      for (int i = 0; i < NB - k; i++) {
        uint8_t *one = NULL;
        int32_t n = 0;
        int rc = blosc2_schunk_get_vlblock(s, k, i, &one, &n);
        CHECK_EQ_INT(rc, sizes[i + k]);
        CHECK_EQ_INT(n, sizes[i + k]);
        CHECK(one != NULL && memcmp(one, blocks[i + k], (size_t)n) == 0);
        free(one);
      }
      uint8_t *one = NULL;
      int32_t n = 0;
      CHECK_EQ_INT(blosc2_schunk_get_vlblock(s, k, NB - k, &one, &n), BLOSC2_ERROR_INVALID_PARAM);
      CHECK(one == NULL);
    }
    uint8_t *one = NULL;
    int32_t n = 0;
    CHECK(blosc2_schunk_get_vlblock(s, 3, 0, &one, &n) < 0);
    CHECK_EQ_INT(blosc2_schunk_get_vlblock(NULL, 0, 0, &one, &n), BLOSC2_ERROR_INVALID_PARAM);
    /* whole chunks decompress to their blocks back to back */
    uint8_t flat[8000];
    int32_t want = 0;
    for (int i = 1; i < NB; i++) want += sizes[i];
    CHECK_EQ_INT(blosc2_schunk_decompress_chunk(s, 1, flat, sizeof flat), want);
    CHECK(memcmp(flat, blocks[1], (size_t)sizes[1]) == 0);
  }
  if (views[1]) blosc2_schunk_free(views[1]);
  if (needs_free) free(frame);
  if (path) {
    blosc2_schunk_free(sc);
    sc = blosc2_schunk_open(path);
    CHECK(sc != NULL);
    if (sc) {
      uint8_t *one = NULL;
      int32_t n = 0;
      CHECK_EQ_INT(blosc2_schunk_get_vlblock(sc, 2, 1, &one, &n), sizes[3]);
      CHECK(one != NULL && memcmp(one, blocks[3], (size_t)n) == 0);
      free(one);
    }
  }
out:
  for (int k = 0; k < 3; k++) free(chunks[k]);
  if (sc) blosc2_schunk_free(sc);
  if (path) blosc2_remove_urlpath(path);
}

int main(void) {
  blosc2_init();
  uint8_t *blocks[NB];
  for (int i = 0; i < NB; i++) blocks[i] = make_block(i, sizes[i]);

  const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  for (int ci = 0; ci < 5; ci++) {
    for (int f = 0; f < 3; f++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.compcode = (uint8_t)codecs[ci];
      cp.typesize = f == 0 ? 1 : 4;
      cp.filters[BLOSC2_MAX_FILTERS - 1] = f == 0 ? BLOSC_NOFILTER : f == 1 ? BLOSC_SHUFFLE : BLOSC_BITSHUFFLE;
      cp.nthreads = (int16_t)(1 + f % 2);
      int32_t csize;
      uint8_t *chunk = vl_chunk(cp, blocks, 0, &csize);
      REQUIRE(csize > BLOSC_EXTENDED_HEADER_LENGTH);
      CHECK_EQ_INT(chunk[BLOSC2_CHUNK_VERSION], BLOSC2_VERSION_FORMAT_VL_BLOCKS);
      CHECK(chunk[BLOSC2_CHUNK_BLOSC2_FLAGS2] & BLOSC2_VL_BLOCKS);
      check_chunk(chunk, csize, blocks);
      if (ci == 0 && f == 1) errors(chunk, csize, blocks);
      free(chunk);
    }
  }

  char path[64];
  snprintf(path, sizeof path, "vlblocks-%d.b2frame", (int)getpid());
  in_schunk(NULL, blocks);
  in_schunk(path, blocks);

  for (int i = 0; i < NB; i++) free(blocks[i]);
  blosc2_destroy();
  return check_result("vlblocks");
}
