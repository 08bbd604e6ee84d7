/* Frames of more chunks than the library decodes its index for at open
 * (16,384): a special fill of 40,000 chunks, appends to it through several
 * handles, changes in place and moves, and a frame grown by 20,000 appends,
 * all read back through new handles and compared with a model.
 *
 *   schunk_many_chunks               write and read (c-tests)
 *   schunk_many_chunks write DIR     only write the frames into DIR
 *   schunk_many_chunks read DIR      only check frames written in DIR
 * (write with one library and read with another to cross-check them). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blosc2.h>

#include "check.h"

#define ITEMS 512 /* int64 items per chunk of the filled frame */
#define FILLED 40000
#define APPENDED 3000
#define SMALL 32 /* int64 items per chunk of the grown frame */
#define GROWN 20000

/* Chunk k of the model: zeros for the filled ones, else data of seed k. */
static void fill(int64_t *d, int n, int64_t seed) {
  for (int i = 0; i < n; i++) d[i] = seed < 0 ? 0 : seed * 7919 + i * (seed % 5 + 1);
}

static int64_t seeds[FILLED + APPENDED + 10];
static int nseeds;

static void check_model(const char *path, const char *what) {
  blosc2_schunk *sc = blosc2_schunk_open(path);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(sc->nchunks, nseeds);
  static int64_t got[ITEMS], want[ITEMS];
  int bad = 0;
  /* every appended or changed chunk, and a spread of the others */
  for (int k = 0; k < nseeds; k++) {
    if (seeds[k] < 0 && k % 997 != 0 && k != nseeds - 1) continue;
    fill(want, ITEMS, seeds[k]);
    int rc = blosc2_schunk_decompress_chunk(sc, k, got, sizeof got);
    if (rc != (int)sizeof got || memcmp(got, want, sizeof got) != 0) {
      if (bad++ < 5) fprintf(stderr, "%s: chunk %d differs (rc %d)\n", what, k, rc);
      check_failures++;
    }
  }
  /* a slice across the last filled and the first appended chunks */
  if (nseeds > FILLED) {
    static int64_t s[2 * ITEMS];
    int64_t at = (int64_t)(FILLED - 1) * ITEMS;
    CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(sc, at, at + 2 * ITEMS, s), 0);
    fill(want, ITEMS, seeds[FILLED - 1]);
    CHECK(memcmp(s, want, sizeof want) == 0);
    fill(want, ITEMS, seeds[FILLED]);
    CHECK(memcmp(s + ITEMS, want, sizeof want) == 0);
  }
  blosc2_schunk_free(sc);
}

static void append(blosc2_schunk *sc, int64_t seed) {
  static int64_t d[ITEMS];
  fill(d, ITEMS, seed);
  CHECK_EQ_INT(blosc2_schunk_append_buffer(sc, d, sizeof d), nseeds + 1);
  seeds[nseeds++] = seed;
}

static void write_filled(const char *path) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp};
  blosc2_remove_urlpath(path);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(blosc2_schunk_fill_special(sc, (int64_t)FILLED * ITEMS, BLOSC2_SPECIAL_ZERO,
                                          ITEMS * 8),
               FILLED);
  blosc2_schunk_free(sc);
  nseeds = FILLED;
  for (int k = 0; k < FILLED; k++) seeds[k] = -1;
  check_model(path, "filled");

  /* appends through a handle that opened it, reopened half-way */
  sc = blosc2_schunk_open(path);
  REQUIRE(sc != NULL);
  for (int k = 0; k < APPENDED / 2; k++) append(sc, 1000 + k);
  blosc2_schunk_free(sc);
  check_model(path, "appended, first half");
  sc = blosc2_schunk_open(path);
  REQUIRE(sc != NULL);
  for (int k = APPENDED / 2; k < APPENDED; k++) append(sc, 1000 + k);
  check_model(path, "appended, through another handle");

  /* changes in place, then moves, then appends again */
  static int64_t d[ITEMS];
  int64_t upd[] = {5, FILLED - 1, FILLED + 17};
  for (int u = 0; u < 3; u++) {
    fill(d, ITEMS, 50000 + u);
    int csize = ITEMS * 8 + BLOSC2_MAX_OVERHEAD;
    uint8_t *c = malloc(csize);
    csize = blosc2_compress_ctx(sc->cctx, d, sizeof d, c, csize);
    REQUIRE(csize > 0);
    CHECK_EQ_INT(blosc2_schunk_update_chunk(sc, upd[u], c, true), nseeds);
    seeds[upd[u]] = 50000 + u;
    if (u == 2) {
      CHECK_EQ_INT(blosc2_schunk_insert_chunk(sc, 100, c, true), nseeds + 1);
      memmove(&seeds[101], &seeds[100], (nseeds - 100) * sizeof seeds[0]);
      seeds[100] = 50000 + u;
      nseeds++;
    }
    free(c);
  }
  CHECK_EQ_INT(blosc2_schunk_delete_chunk(sc, 7), nseeds - 1);
  memmove(&seeds[7], &seeds[8], (nseeds - 8) * sizeof seeds[0]);
  nseeds--;
  for (int k = 0; k < 5; k++) append(sc, 90000 + k);
  blosc2_schunk_free(sc);
  check_model(path, "changed");
}

static void write_grown(const char *path) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp};
  blosc2_remove_urlpath(path);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  static int64_t d[SMALL];
  for (int k = 0; k < GROWN; k++) {
    fill(d, SMALL, k);
    REQUIRE(blosc2_schunk_append_buffer(sc, d, sizeof d) == k + 1);
  }
  blosc2_schunk_free(sc);
}

static void read_grown(const char *path) {
  blosc2_schunk *sc = blosc2_schunk_open(path);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(sc->nchunks, GROWN);
  static int64_t got[SMALL], want[SMALL];
  int bad = 0;
  for (int k = 0; k < GROWN; k++) {
    fill(want, SMALL, k);
    int rc = blosc2_schunk_decompress_chunk(sc, k, got, sizeof got);
    if (rc != (int)sizeof got || memcmp(got, want, sizeof got) != 0) {
      if (bad++ < 5) fprintf(stderr, "grown: chunk %d differs (rc %d)\n", k, rc);
      check_failures++;
    }
  }
  blosc2_schunk_free(sc);
}

/* The model of the filled frame after all of write_filled's steps. */
static void model_after_writes(void) {
  nseeds = 0;
  for (int k = 0; k < FILLED; k++) seeds[nseeds++] = -1;
  for (int k = 0; k < APPENDED; k++) seeds[nseeds++] = 1000 + k;
  seeds[5] = 50000;
  seeds[FILLED - 1] = 50001;
  seeds[FILLED + 17] = 50002;
  memmove(&seeds[101], &seeds[100], (nseeds - 100) * sizeof seeds[0]);
  seeds[100] = 50002;
  nseeds++;
  memmove(&seeds[7], &seeds[8], (nseeds - 8) * sizeof seeds[0]);
  nseeds--;
  for (int k = 0; k < 5; k++) seeds[nseeds++] = 90000 + k;
}

int main(int argc, char **argv) {
  blosc2_init();
  const char *dir = argc == 3 ? argv[2] : ".";
  char filled[4096], grown[4096];
  snprintf(filled, sizeof filled, "%s/many_filled.b2frame", dir);
  snprintf(grown, sizeof grown, "%s/many_grown.b2frame", dir);
  int writing = argc < 3 || strcmp(argv[1], "write") == 0;
  int reading = argc < 3 || strcmp(argv[1], "read") == 0;
  if (writing) {
    write_filled(filled);
    write_grown(grown);
  }
  if (reading) {
    model_after_writes();
    check_model(filled, "read back");
    read_grown(grown);
  }
  if (argc < 3) {
    blosc2_remove_urlpath(filled);
    blosc2_remove_urlpath(grown);
  }
  blosc2_destroy();
  return check_result("schunk_many_chunks");
}
