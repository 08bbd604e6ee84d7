/* b2nd: several threads read slices of one array at once (in memory and
 * opened from a file), each checking what it gets.  (The reference 3.3.5
 * shares one decompression context per array and fails this.) */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <b2nd.h>
#include <blosc2.h>

#include "check.h"

enum { D0 = 60, D1 = 50, D2 = 40, N = D0 * D1 * D2, NTHREADS = 4, ROUNDS = 150 };

static uint16_t data[N];

struct job {
  b2nd_array_t *a;
  unsigned seed;
  int wrong;
};

static void *reader(void *p) {
  struct job *j = p;
  uint16_t buf[9 * 9 * 9];
  unsigned x = j->seed;
  for (int r = 0; r < ROUNDS; r++) {
    int64_t start[3], stop[3], shape[3];
    int64_t dims[3] = {D0, D1, D2};
    for (int i = 0; i < 3; i++) {
      x = x * 1103515245u + 12345u;
      int64_t len = 1 + (x >> 16) % 9;
      x = x * 1103515245u + 12345u;
      start[i] = (x >> 16) % (dims[i] - len + 1);
      stop[i] = start[i] + len;
      shape[i] = len;
    }
    if (b2nd_get_slice_cbuffer(j->a, start, stop, buf, shape, sizeof buf) != 0) {
      j->wrong++;
      continue;
    }
    for (int64_t a = 0; a < shape[0]; a++)
      for (int64_t b = 0; b < shape[1]; b++)
        for (int64_t c = 0; c < shape[2]; c++)
          j->wrong += buf[(a * shape[1] + b) * shape[2] + c] !=
                      data[((start[0] + a) * D1 + start[1] + b) * D2 + start[2] + c];
  }
  return NULL;
}

static void run(b2nd_array_t *a, const char *what) {
  pthread_t t[NTHREADS];
  struct job jobs[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    jobs[i] = (struct job){.a = a, .seed = 7u + (unsigned)i, .wrong = 0};
    REQUIRE(pthread_create(&t[i], NULL, reader, &jobs[i]) == 0);
  }
  int wrong = 0;
  for (int i = 0; i < NTHREADS; i++) {
    pthread_join(t[i], NULL);
    wrong += jobs[i].wrong;
  }
  if (wrong) fprintf(stderr, "%s: %d wrong items\n", what, wrong);
  CHECK_EQ_INT(wrong, 0);
}

int main(void) {
  blosc2_init();
  for (int i = 0; i < N; i++) data[i] = (uint16_t)(i * 13 + (i >> 7));
  char path[96];
  snprintf(path, sizeof path, "/tmp/c-tests-b2nd-threads-%ld.b2nd", (long)getpid());
  blosc2_remove_urlpath(path);

  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(uint16_t);
  blosc2_storage st = {.contiguous = true, .urlpath = path, .cparams = &cparams};
  int64_t shape[3] = {D0, D1, D2};
  int32_t cs[3] = {20, 25, 16}, bs[3] = {5, 5, 8};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 3, shape, cs, bs, "<u2", 0, NULL, 0);
  REQUIRE(ctx != NULL);
  b2nd_array_t *a = NULL;
  REQUIRE(b2nd_from_cbuffer(ctx, &a, data, sizeof data) == 0);
  run(a, "created on disk");
  b2nd_free(a);

  a = NULL;
  REQUIRE(b2nd_open(path, &a) == 0);
  run(a, "opened");
  uint8_t *cframe = NULL;
  int64_t len = 0;
  bool needs_free = false;
  CHECK_EQ_INT(b2nd_to_cframe(a, &cframe, &len, &needs_free), 0);
  b2nd_free(a);

  a = NULL;
  REQUIRE(b2nd_from_cframe(cframe, len, true, &a) == 0);
  run(a, "in memory");
  b2nd_free(a);
  if (needs_free) free(cframe);

  b2nd_free_ctx(ctx);
  blosc2_remove_urlpath(path);
  blosc2_destroy();
  return check_result("b2nd_threads");
}
