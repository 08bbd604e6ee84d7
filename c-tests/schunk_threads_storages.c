/* Concurrent readers on every storage (schunk_threads.c covers a contiguous
 * file): a sparse directory, a contiguous frame in memory, a plain
 * in-memory super-chunk, a frame adopted with from_buffer(copy=false), and
 * a file read through the mmap backend.  For each, several threads share
 * one opened super-chunk (decompress_chunk, get_slice_buffer, get_chunk,
 * get_lazychunk decoded with a private dctx, metalayer reads) while others
 * open and read their own; every result must equal the written data.
 *
 * Also built with -fsanitize=thread by hand (see the report in the
 * commit); the library itself is not instrumented then, only this side. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <blosc2.h>

#include "check.h"

#define N 6000
#define NCH 10
#define NTHREADS 4
#define ROUNDS 400

static int32_t want[NCH][N];
static blosc2_schunk *shared;
static const char *own_path;   /* NULL: no per-thread opening */
static blosc2_io *own_io; /* NULL: the default backend */
static int errors[NTHREADS];

static void *reader(void *arg) {
  int t = (int)(intptr_t)arg;
  int32_t *buf = malloc(sizeof want[0]);
  blosc2_schunk *own = NULL;
  if (own_path != NULL) {
    own = own_io ? blosc2_schunk_open_udio(own_path, own_io) : blosc2_schunk_open(own_path);
    if (own == NULL) errors[t]++;
  }
  /* a private context per super-chunk read: lazy chunks are decoded
   * through their super-chunk, which the context must know */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.schunk = shared;
  blosc2_context *dctx_shared = blosc2_create_dctx(dp);
  dp.schunk = own;
  blosc2_context *dctx_own = blosc2_create_dctx(dp);
  for (int k = 0; k < ROUNDS; k++) {
    int i = (k * 7 + t * 3) % NCH;
    blosc2_schunk *sc = (own != NULL && k % 2) ? own : shared;
    blosc2_context *dctx = sc == own ? dctx_own : dctx_shared;
    switch (k % 5) {
      case 0:
        if (blosc2_schunk_decompress_chunk(sc, i, buf, sizeof want[0]) != (int)sizeof want[0] ||
            memcmp(buf, want[i], sizeof want[0]) != 0)
          errors[t]++;
        break;
      case 1:
      case 2: {
        int64_t a = (int64_t)i * N + (k * 37) % N;
        int64_t b = a + 1 + (k * 13) % 900;
        if (b > (int64_t)NCH * N) b = (int64_t)NCH * N;
        if (blosc2_schunk_get_slice_buffer(sc, a, b, buf) != 0) {
          errors[t]++;
          break;
        }
        for (int64_t g = a; g < b; g++)
          if (buf[g - a] != want[g / N][g % N]) {
            errors[t]++;
            break;
          }
        break;
      }
      case 3: {
        uint8_t *c;
        bool nf;
        int cs = blosc2_schunk_get_lazychunk(sc, i, &c, &nf);
        if (cs <= 0) {
          errors[t]++;
          break;
        }
        int32_t three[3];
        if (blosc2_getitem_ctx(dctx, c, cs, N / 2, 3, three, sizeof three) != 12 ||
            memcmp(three, &want[i][N / 2], 12) != 0)
          errors[t]++;
        if (nf) free(c);
        break;
      }
      case 4: {
        uint8_t *c;
        bool nf;
        int cs = blosc2_schunk_get_chunk(sc, i, &c, &nf);
        if (cs <= 0 || blosc2_decompress_ctx(dctx, c, cs, buf, sizeof want[0]) !=
                           (int)sizeof want[0] ||
            memcmp(buf, want[i], sizeof want[0]) != 0)
          errors[t]++;
        if (cs > 0 && nf) free(c);
        uint8_t *m;
        int32_t ml;
        if (blosc2_meta_get(sc, "meta", &m, &ml) < 0 || ml != 4 || memcmp(m, "abcd", 4) != 0)
          errors[t]++;
        else
          free(m);
        if (blosc2_vlmeta_get(sc, "vl", &m, &ml) < 0 || ml != 5 || memcmp(m, "hello", 5) != 0)
          errors[t]++;
        else
          free(m);
        break;
      }
    }
  }
  blosc2_free_ctx(dctx_shared);
  blosc2_free_ctx(dctx_own);
  if (own != NULL) blosc2_schunk_free(own);
  free(buf);
  return NULL;
}

static void run_threads(const char *what) {
  memset(errors, 0, sizeof errors);
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, reader, (void *)(intptr_t)t);
  int total = 0;
  for (int t = 0; t < NTHREADS; t++) {
    pthread_join(th[t], NULL);
    total += errors[t];
  }
  if (total) fprintf(stderr, "%s: %d wrong results\n", what, total);
  CHECK_EQ_INT(total, 0);
}

static blosc2_schunk *fill(blosc2_storage *st) {
  blosc2_schunk *sc = blosc2_schunk_new(st);
  REQUIRE(sc != NULL);
  REQUIRE(blosc2_meta_add(sc, "meta", (uint8_t *)"abcd", 4) >= 0);
  for (int i = 0; i < NCH; i++) REQUIRE(blosc2_schunk_append_buffer(sc, want[i], sizeof want[i]) == i + 1);
  REQUIRE(blosc2_vlmeta_add(sc, "vl", (uint8_t *)"hello", 5, NULL) >= 0);
  return sc;
}

int main(void) {
  blosc2_init();
  for (int i = 0; i < NCH; i++)
    for (int j = 0; j < N; j++) want[i][j] = i * 7919 + j * (i + 3) + (j % 11 == 0 ? j * j : 0);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 4096; /* several blocks per chunk: partial reads */
  char dir[256], file[256];
  snprintf(dir, sizeof dir, "/tmp/b2-threads-st-%d.b2frame", (int)getpid());
  snprintf(file, sizeof file, "/tmp/b2-threads-st-%d-c.b2frame", (int)getpid());

  /* sparse directory */
  blosc2_remove_urlpath(dir);
  blosc2_storage ss = {.contiguous = false, .urlpath = dir, .cparams = &cp};
  blosc2_schunk_free(fill(&ss));
  shared = blosc2_schunk_open(dir);
  REQUIRE(shared != NULL);
  own_path = dir;
  run_threads("sparse directory");
  blosc2_schunk_free(shared);
  blosc2_remove_urlpath(dir);

  /* in memory: a contiguous frame, then a plain super-chunk */
  own_path = NULL;
  for (int contiguous = 1; contiguous >= 0; contiguous--) {
    blosc2_storage sm = {.contiguous = contiguous, .cparams = &cp};
    shared = fill(&sm);
    run_threads(contiguous ? "memory frame" : "plain memory");
    if (contiguous) {
      /* the same frame adopted from a buffer */
      uint8_t *b;
      bool nf;
      int64_t len = blosc2_schunk_to_buffer(shared, &b, &nf);
      REQUIRE(len > 0);
      uint8_t *mine = malloc(len);
      memcpy(mine, b, len);
      if (nf) free(b);
      blosc2_schunk *adopted = blosc2_schunk_from_buffer(mine, len, false);
      REQUIRE(adopted != NULL);
      blosc2_schunk_avoid_cframe_free(adopted, true);
      blosc2_schunk_free(shared);
      shared = adopted;
      run_threads("from_buffer(copy=false)");
      blosc2_schunk_free(shared);
      free(mine);
    } else {
      blosc2_schunk_free(shared);
    }
  }

  /* a contiguous file read through the mmap backend */
  blosc2_remove_urlpath(file);
  blosc2_storage sf = {.contiguous = true, .urlpath = file, .cparams = &cp};
  blosc2_schunk_free(fill(&sf));
  blosc2_stdio_mmap mm = BLOSC2_STDIO_MMAP_DEFAULTS;
  mm.mode = "r";
  blosc2_io io = {.id = BLOSC2_IO_FILESYSTEM_MMAP, .name = "filesystem_mmap", .params = &mm};
  shared = blosc2_schunk_open_udio(file, &io);
  REQUIRE(shared != NULL);
  /* shared only: one mmap params struct holds one mapping, so threads
   * cannot open their own with it */
  own_path = NULL;
  run_threads("mmap file");
  blosc2_schunk_free(shared);
  blosc2_remove_urlpath(file);

  blosc2_destroy();
  return check_result("schunk_threads_storages");
}
