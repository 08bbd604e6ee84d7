/* Readers beside a writer on one super-chunk and on one b2nd array, in
 * memory and in a frame file, with 2 library threads per context: the
 * program serializes writes with a pthread rwlock (readers share it), as
 * users of one handle must; reads need no lock among themselves.  Every
 * read must see whole chunks of some state the writer made.
 *
 * Small enough to run under helgrind and drd (c-tests/run.sh with
 * C_TESTS_HELGRIND=1); THREADS_RW_ROUNDS scales it (default 60). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <b2nd.h>
#include <blosc2.h>

#include "check.h"

#define N 4000 /* int32 per chunk */
#define NCH 6
#define NREADERS 2

/* writer-preferring: readers that take it back at once would starve the
 * writer of glibc's default kind */
static pthread_rwlock_t rw;
static blosc2_schunk *sc;
static b2nd_array_t *arr;
static int rounds = 60;
static int done; /* under rw */
static int errors;
static pthread_mutex_t err_mu = PTHREAD_MUTEX_INITIALIZER;

static void bad(const char *what, long v) {
  pthread_mutex_lock(&err_mu);
  if (errors++ < 10) fprintf(stderr, "threads_rw: %s (%ld)\n", what, v);
  pthread_mutex_unlock(&err_mu);
}

/* Chunk `c` of generation `g`: every item says both. */
static void fill(int32_t *buf, int c, int g) {
  for (int i = 0; i < N; i++) buf[i] = g * 1000000 + c * 10000 + i % 10000;
}

static bool whole(const int32_t *buf, int c) {
  int g = buf[0] / 1000000;
  for (int i = 0; i < N; i++) {
    if (buf[i] != g * 1000000 + c * 10000 + i % 10000) return false;
  }
  return true;
}

static void *schunk_reader(void *arg) {
  (void)arg;
  int32_t *buf = malloc(N * 4);
  int32_t part[100];
  for (int k = 0;; k++) {
    pthread_rwlock_rdlock(&rw);
    if (done) {
      pthread_rwlock_unlock(&rw);
      break;
    }
    int c = k % NCH;
    int rc = blosc2_schunk_decompress_chunk(sc, c, buf, N * 4);
    if (rc != N * 4 || !whole(buf, c)) bad("schunk chunk", rc);
    rc = blosc2_schunk_get_slice_buffer(sc, (int64_t)c * N + 50, (int64_t)c * N + 150, part);
    if (rc < 0 || part[0] % 10000 != 50) bad("schunk slice", rc);
    pthread_rwlock_unlock(&rw);
  }
  free(buf);
  return NULL;
}

static void *b2nd_reader(void *arg) {
  (void)arg;
  int32_t box[20][40];
  for (int k = 0;; k++) {
    pthread_rwlock_rdlock(&rw);
    if (done) {
      pthread_rwlock_unlock(&rw);
      break;
    }
    int64_t start[2] = {k % 40, 10}, stop[2] = {k % 40 + 20, 50}, shape[2] = {20, 40};
    int rc = b2nd_get_slice_cbuffer(arr, start, stop, box, shape, sizeof box);
    if (rc < 0) bad("b2nd slice", rc);
    /* a cell holds its generation's stamp plus its position */
    for (int r = 0; r < 20 && rc >= 0; r++) {
      for (int c = 0; c < 40; c++) {
        int32_t v = box[r][c], pos = (int32_t)((start[0] + r) * 100 + start[1] + c);
        if (v % 100000 != pos) {
          bad("b2nd cell", v);
          r = 20;
          break;
        }
      }
    }
    pthread_rwlock_unlock(&rw);
  }
  return NULL;
}

static void run(bool on_disk, bool contiguous) {
  const char *path = contiguous ? "c_tests_threads_rw.b2frame" : "c_tests_threads_rw_s.b2frame";
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 2;
  cp.blocksize = 4096;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 2;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = on_disk ? (char *)path : NULL,
                       .cparams = &cp, .dparams = &dp};
  sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  int32_t *buf = malloc(N * 4);
  for (int c = 0; c < NCH; c++) {
    fill(buf, c, 0);
    REQUIRE(blosc2_schunk_append_buffer(sc, buf, N * 4) == c + 1);
  }

  blosc2_storage bst = st;
  char bpath[64];
  snprintf(bpath, sizeof bpath, "b2nd_%s", path);
  blosc2_remove_urlpath(bpath);
  bst.urlpath = on_disk ? bpath : NULL;
  int64_t shape[2] = {60, 100};
  int32_t chunkshape[2] = {20, 50}, blockshape[2] = {10, 25};
  b2nd_context_t *ctx = b2nd_create_ctx(&bst, 2, shape, chunkshape, blockshape, "<i4", 0, NULL, 0);
  REQUIRE(ctx != NULL);
  static int32_t grid[60][100];
  for (int r = 0; r < 60; r++)
    for (int c = 0; c < 100; c++) grid[r][c] = r * 100 + c;
  REQUIRE(b2nd_from_cbuffer(ctx, &arr, grid, sizeof grid) == 0);

  done = 0;
  pthread_t th[2 * NREADERS];
  for (int i = 0; i < NREADERS; i++) {
    REQUIRE(pthread_create(&th[i], NULL, schunk_reader, NULL) == 0);
    REQUIRE(pthread_create(&th[NREADERS + i], NULL, b2nd_reader, NULL) == 0);
  }
  for (int g = 1; g <= rounds; g++) {
    pthread_rwlock_wrlock(&rw);
    int c = g % NCH;
    fill(buf, c, g);
    uint8_t *chunk = malloc(N * 4 + BLOSC2_MAX_OVERHEAD);
    int cb = blosc2_compress_ctx(sc->cctx, buf, N * 4, chunk, N * 4 + BLOSC2_MAX_OVERHEAD);
    if (cb < 0 || blosc2_schunk_update_chunk(sc, c, chunk, true) < 0) bad("update", cb);
    free(chunk);
    if (g % 10 == 0) {
      /* an append and a delete keep the count */
      fill(buf, NCH, g);
      if (blosc2_schunk_append_buffer(sc, buf, N * 4) != NCH + 1) bad("append", g);
      if (blosc2_schunk_delete_chunk(sc, NCH) != NCH) bad("delete", g);
    }
    /* a box of the array gets a new stamp */
    static int32_t box[10][30];
    for (int r = 0; r < 10; r++)
      for (int k = 0; k < 30; k++) box[r][k] = g * 100000 + (15 + r) * 100 + 35 + k;
    int64_t start[2] = {15, 35}, stop[2] = {25, 65}, bshape[2] = {10, 30};
    if (b2nd_set_slice_cbuffer(box, bshape, sizeof box, start, stop, arr) < 0) bad("b2nd set", g);
    pthread_rwlock_unlock(&rw);
  }
  pthread_rwlock_wrlock(&rw);
  done = 1;
  pthread_rwlock_unlock(&rw);
  for (int i = 0; i < 2 * NREADERS; i++) pthread_join(th[i], NULL);
  free(buf);
  b2nd_free(arr);
  b2nd_free_ctx(ctx);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
  blosc2_remove_urlpath(bpath);
}

/* The library's own pool hands jobs to its threads through rayon's
 * lock-free deques and latches, which helgrind and drd cannot see (every
 * job would be reported); under them (THREADS_RW_CALLBACK=1, set by
 * run.sh) the jobs run on threads of ours instead, started and joined by a
 * threads callback, which they can see. */
typedef struct {
  void (*dojob)(void *);
  void *data;
} job_t;

static void *job_main(void *a) {
  job_t *j = (job_t *)a;
  j->dojob(j->data);
  return NULL;
}

static void pthreads_cb(void *data, void (*dojob)(void *), int numjobs, size_t elsize,
                        void *jobdata) {
  (void)data;
  pthread_t th[64];
  job_t jobs[64];
  int n = numjobs < 64 ? numjobs : 64;
  for (int i = 0; i < n; i++) {
    jobs[i].dojob = dojob;
    jobs[i].data = (uint8_t *)jobdata + (size_t)i * elsize;
    if (pthread_create(&th[i], NULL, job_main, &jobs[i]) != 0) {
      job_main(&jobs[i]);
      th[i] = 0;
    }
  }
  for (int i = 0; i < n; i++) {
    if (th[i]) pthread_join(th[i], NULL);
  }
}

int main(void) {
  pthread_rwlockattr_t attr;
  pthread_rwlockattr_init(&attr);
  pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
  REQUIRE(pthread_rwlock_init(&rw, &attr) == 0);
  const char *r = getenv("THREADS_RW_ROUNDS");
  if (r != NULL && atoi(r) > 0) rounds = atoi(r);
  blosc2_init();
  if (getenv("THREADS_RW_CALLBACK") != NULL) blosc2_set_threads_callback(pthreads_cb, NULL);
  run(false, true);
  run(true, true);
  run(true, false);
  blosc2_destroy();
  CHECK_EQ_INT(errors, 0);
  return check_result("threads_rw");
}
