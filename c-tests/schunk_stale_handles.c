/* Two handles on one on-disk frame (contiguous file and sparse directory):
 * when one replaces a chunk, the other must see the change on its next read
 * and must not undo it with its own next write (the conditions of upstream's
 * test_stale_sframe reader and writer cases).  The 3.3.5 release does this
 * for contiguous files but not for sparse directories (printed as NOTE
 * lines there; ours has no such line); everywhere nothing may crash and the
 * frame stays readable.  The checks of the former bugs B8 (after a stale
 * write the sparse frame no longer opens) and B9 (no coherence on
 * contiguous files) are ordinary checks now that both are fixed. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <blosc2.h>

#include "check.h"

#define ITEMS 2000
#define NCH 8


static void fill(const char *path, bool contiguous) {
  static int64_t d[ITEMS];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  blosc2_remove_urlpath(path);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  for (int c = 0; c < NCH; c++) {
    for (int i = 0; i < ITEMS; i++) d[i] = (int64_t)c * ITEMS + i;
    REQUIRE(blosc2_schunk_append_buffer(sc, d, sizeof d) == c + 1);
  }
  blosc2_schunk_free(sc);
}

/* Replace chunk n with an all-zeros special chunk. */
static int zero_chunk(blosc2_schunk *sc, int64_t n) {
  uint8_t z[BLOSC_EXTENDED_HEADER_LENGTH];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  int cs = blosc2_chunk_zeros(cp, ITEMS * 8, z, sizeof z);
  if (cs < 0) return cs;
  int64_t r = blosc2_schunk_update_chunk(sc, n, z, true);
  return r < 0 ? (int)r : 0;
}

static int is_zeros(blosc2_schunk *sc, int64_t n) {
  static int64_t b[ITEMS];
  if (blosc2_schunk_decompress_chunk(sc, n, b, sizeof b) != (int)sizeof b) return -1;
  for (int i = 0; i < ITEMS; i++)
    if (b[i] != 0) return 0;
  return 1;
}

static int is_original(blosc2_schunk *sc, int64_t n) {
  static int64_t b[ITEMS];
  if (blosc2_schunk_decompress_chunk(sc, n, b, sizeof b) != (int)sizeof b) return -1;
  for (int i = 0; i < ITEMS; i++)
    if (b[i] != n * ITEMS + i) return 0;
  return 1;
}

/* Coherence between handles: 3.3.5 has it for contiguous files (so there
 * a failure fails the test), not for sparse directories (only noted). */
#define COHERENT(cond)                                                            \
  do {                                                                            \
    if (!(cond)) {                                                                \
      if (contiguous) {                                                           \
        fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, what, #cond);      \
        check_failures++;                                                         \
      } else {                                                                    \
        printf("NOTE %s: %s (3.3.5 does not do this either)\n", what, #cond);    \
      }                                                                           \
    }                                                                             \
  } while (0)

static void run(const char *path, bool contiguous) {
  const char *what = contiguous ? "contiguous" : "sparse";
  /* stale reader: sees the other handle's update */
  fill(path, contiguous);
  blosc2_schunk *h1 = blosc2_schunk_open(path), *h2 = blosc2_schunk_open(path);
  REQUIRE(h1 != NULL && h2 != NULL);
  CHECK_EQ_INT(is_original(h2, 0), 1);
  CHECK_EQ_INT(is_original(h2, 1), 1);
  CHECK_EQ_INT(zero_chunk(h1, 0), 0);
  COHERENT(is_zeros(h2, 0) == 1);
  uint8_t *c;
  bool nf;
  int g = blosc2_schunk_get_chunk(h2, 0, &c, &nf);
  if (g > 0 && nf) free(c);
  int l = blosc2_schunk_get_lazychunk(h2, 0, &c, &nf);
  if (l > 0 && nf) free(c);
  COHERENT(g == BLOSC_EXTENDED_HEADER_LENGTH && l == BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ_INT(is_original(h2, 1), 1);
  blosc2_schunk *h3 = blosc2_schunk_open(path);
  REQUIRE(h3 != NULL);
  CHECK_EQ_INT(is_zeros(h3, 0), 1);
  blosc2_schunk_free(h1);
  blosc2_schunk_free(h2);
  blosc2_schunk_free(h3);

  /* stale writer: its update may fail (3.3.5 refuses it on a sparse
   * frame) or succeed, but the frame must stay readable and keep the other
   * handle's update */
  fill(path, contiguous);
  h1 = blosc2_schunk_open(path);
  h2 = blosc2_schunk_open(path);
  REQUIRE(h1 != NULL && h2 != NULL);
  CHECK_EQ_INT(is_original(h2, 1), 1);
  CHECK_EQ_INT(zero_chunk(h1, 0), 0);
  int rc = zero_chunk(h2, 5);
  blosc2_schunk_free(h1);
  blosc2_schunk_free(h2);
  h3 = blosc2_schunk_open(path);
  CHECK(h3 != NULL);
  if (h3 != NULL) {
    for (int n = 1; n < NCH; n++)
      if (n != 5) CHECK_EQ_INT(is_original(h3, n), 1);
    if (rc == 0) CHECK_EQ_INT(is_zeros(h3, 5), 1);
    int z0 = is_zeros(h3, 0);
    CHECK(z0 >= 0);
    COHERENT(z0 == 1); /* the stale handle put chunk 0 back */
    blosc2_schunk_free(h3);
  }
  blosc2_remove_urlpath(path);
}

int main(void) {
  blosc2_init();
  char p[256];
  snprintf(p, sizeof p, "/tmp/b2-stale-%d-s.b2frame", (int)getpid());
  run(p, false);
  snprintf(p, sizeof p, "/tmp/b2-stale-%d-c.b2frame", (int)getpid());
  run(p, true);
  blosc2_destroy();
  return check_result("schunk_stale_handles");
}
