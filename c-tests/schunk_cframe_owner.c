/* Who owns the buffer given to blosc2_schunk_from_buffer(copy=false)?
 * The references (3.3.5 and 2.22.1) leave it to the caller: freeing the
 * super-chunk does not free it (blosc2_schunk_avoid_cframe_free(sc, false)
 * hands it over).  Programs that free their own buffer afterwards, as
 * upstream's own tests do, must not crash.
 *
 * The risky sequence runs in a child process so that a double free is
 * reported, not fatal: while bug B3 (/tmp/bugs-found.md) is open this test
 * prints KNOWN-FAIL and exits 77 (a visible SKIP in run.sh). */
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <blosc2.h>

#include "check.h"

#define N 4000

static int32_t data[N];

static uint8_t *make_frame(int64_t *len) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  for (int i = 0; i < N; i++) data[i] = i * 3;
  REQUIRE(blosc2_schunk_append_buffer(sc, data, sizeof data) == 1);
  REQUIRE(blosc2_schunk_append_buffer(sc, data, sizeof data) == 2);
  uint8_t *f;
  bool nf;
  *len = blosc2_schunk_to_buffer(sc, &f, &nf);
  REQUIRE(*len > 0);
  uint8_t *mine = malloc(*len);
  memcpy(mine, f, *len);
  if (nf) free(f);
  blosc2_schunk_free(sc);
  return mine;
}

/* from_buffer(copy=false), read, free the super-chunk, then our buffer */
static int child(void) {
  blosc2_init();
  int64_t len;
  uint8_t *buf = make_frame(&len);
  uint8_t *before = malloc(len);
  memcpy(before, buf, len);
  blosc2_schunk *sc = blosc2_schunk_from_buffer(buf, len, false);
  REQUIRE(sc != NULL);
  static int32_t back[N];
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(sc, 1, back, sizeof back), sizeof back);
  CHECK(memcmp(back, data, sizeof back) == 0);
  blosc2_schunk_free(sc);
  /* still ours, untouched */
  CHECK(memcmp(buf, before, len) == 0);
  free(buf);
  free(before);
  blosc2_destroy();
  return check_result("schunk_cframe_owner (child)");
}

int main(void) {
  /* the explicit hand-over: the library frees the buffer (no leak check
   * here, just no crash) */
  blosc2_init();
  int64_t len;
  uint8_t *buf = make_frame(&len);
  blosc2_schunk *sc = blosc2_schunk_from_buffer(buf, len, false);
  REQUIRE(sc != NULL);
  blosc2_schunk_avoid_cframe_free(sc, false);
  blosc2_schunk_free(sc);
  /* and the explicit keep */
  buf = make_frame(&len);
  sc = blosc2_schunk_from_buffer(buf, len, false);
  REQUIRE(sc != NULL);
  blosc2_schunk_avoid_cframe_free(sc, true);
  blosc2_schunk_free(sc);
  free(buf);
  blosc2_destroy();
  if (check_failures) return 1;

  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) _exit(child());
  int status;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  printf("KNOWN-FAIL B3: from_buffer(copy=false) + schunk_free + free(buf) killed the program "
         "(signal %d): the library freed the caller's buffer\n",
         WIFSIGNALED(status) ? WTERMSIG(status) : -1);
  return 77;
}
