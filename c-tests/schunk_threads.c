/* Several threads read one opened super-chunk at the same time (chunks and
 * slices, no shared dctx), and others each read their own: every result must
 * match what a single thread reads. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <blosc2.h>

#include "check.h"

#define N 5000
#define NCH 8
#define NTHREADS 4

static blosc2_schunk *shared;
static int32_t want[NCH][N];
static char path[256];
static int errors[NTHREADS];

static void *reader(void *arg) {
  int t = (int)(intptr_t)arg;
  static __thread int32_t buf[N];
  blosc2_schunk *own = blosc2_schunk_open(path);
  if (own == NULL) {
    errors[t]++;
    return NULL;
  }
  for (int k = 0; k < 300; k++) {
    int i = (k * 7 + t) % NCH;
    blosc2_schunk *sc = (k % 2) ? own : shared;
    if (k % 3 == 0) {
      if (blosc2_schunk_decompress_chunk(sc, i, buf, sizeof buf) != N * 4 ||
          memcmp(buf, want[i], sizeof buf) != 0) {
        errors[t]++;
      }
    } else {
      int64_t a = (int64_t)i * N + (k % 100) * 13;
      if (blosc2_schunk_get_slice_buffer(sc, a, a + 600, buf) != 0) {
        errors[t]++;
        continue;
      }
      for (int j = 0; j < 600; j++) {
        int64_t g = a + j;
        if (buf[j] != want[g / N][g % N]) {
          errors[t]++;
          break;
        }
      }
    }
  }
  blosc2_schunk_free(own);
  return NULL;
}

int main(void) {
  blosc2_init();
  snprintf(path, sizeof path, "/tmp/b2-schunk-threads-%d.b2frame", (int)getpid());
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cp};
  blosc2_schunk *w = blosc2_schunk_new(&st);
  REQUIRE(w != NULL);
  for (int i = 0; i < NCH; i++) {
    for (int j = 0; j < N; j++) want[i][j] = i * 7919 + j * (i + 3);
    REQUIRE(blosc2_schunk_append_buffer(w, want[i], sizeof want[i]) == i + 1);
  }
  blosc2_schunk_free(w);
  shared = blosc2_schunk_open(path);
  REQUIRE(shared != NULL);
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, reader, (void *)(intptr_t)t);
  for (int t = 0; t < NTHREADS; t++) {
    pthread_join(th[t], NULL);
    CHECK_EQ_INT(errors[t], 0);
  }
  blosc2_schunk_free(shared);
  blosc2_remove_urlpath(path);
  blosc2_destroy();
  return check_failures ? 1 : 0;
}
