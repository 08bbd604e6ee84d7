/*
 * A process that compressed with 2 threads and then forks must be able to
 * compress and decompress in the child (reference 3.3.5 hangs there: its
 * worker threads do not exist in the child). Covers the global API and a
 * context created before the fork.
 */
#include <blosc2.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#define N (4 * 1024 * 1024)

static int round_trip(blosc2_context *cctx, blosc2_context *dctx, const char *src, char *dst,
                      char *out) {
  int csize = cctx ? blosc2_compress_ctx(cctx, src, N, dst, N + BLOSC2_MAX_OVERHEAD)
                   : blosc2_compress(5, BLOSC_SHUFFLE, 4, src, N, dst, N + BLOSC2_MAX_OVERHEAD);
  if (csize <= 0) return 1;
  int dsize = dctx ? blosc2_decompress_ctx(dctx, dst, csize, out, N) : blosc2_decompress(dst, csize, out, N);
  if (dsize != N) return 2;
  return memcmp(src, out, N) != 0 ? 3 : 0;
}

int main(void) {
  char *src = malloc(N), *dst = malloc(N + BLOSC2_MAX_OVERHEAD), *out = malloc(N);
  REQUIRE(src && dst && out);
  check_fill(src, N, 3);
  blosc2_init();
  blosc2_set_nthreads(2);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 2;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 2;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_context *dctx = blosc2_create_dctx(dp);
  REQUIRE(cctx && dctx);
  /* warm both thread pools in the parent */
  CHECK_EQ_INT(round_trip(cctx, dctx, src, dst, out), 0);
  CHECK_EQ_INT(round_trip(NULL, NULL, src, dst, out), 0);

  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    alarm(60); /* a hang becomes a failure, not a stuck test run */
    int rc = round_trip(cctx, dctx, src, dst, out);
    if (rc == 0) rc = round_trip(NULL, NULL, src, dst, out);
    _exit(rc);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  if (WIFSIGNALED(status)) fprintf(stderr, "child killed by signal %d\n", WTERMSIG(status));
  else CHECK_EQ_INT(WEXITSTATUS(status), 0);
  /* the parent keeps working too */
  CHECK_EQ_INT(round_trip(cctx, dctx, src, dst, out), 0);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  blosc2_destroy();
  free(src);
  free(dst);
  free(out);
  return check_result("fork_threads");
}
