/*
 * BLOSC_TRACE set in the environment prints upstream-style "[error] - ..."
 * lines on stderr when a call fails, and they say what is at fault: the
 * file, the parameter or the offset, with the place in the library where
 * the error arose (not only the C function that returned it). The program
 * re-runs itself with the variable set and its stderr captured.
 */
#include <blosc2.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

/* Each child mode makes one call fail the way a user's program would. */
static int child(const char *mode, const char *arg) {
  blosc2_init();
  int ok = 0;
  if (strcmp(mode, "null") == 0) {
    char out[64] = {0};
    ok = blosc2_decompress_ctx(NULL, out, 1, out, 1) == BLOSC2_ERROR_NULL_POINTER;
  } else if (strcmp(mode, "clevel") == 0) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.clevel = 12;
    blosc2_context *c = blosc2_create_cctx(cp);
    char src[1000] = {0}, dst[1100];
    ok = c != NULL && blosc2_compress_ctx(c, src, sizeof src, dst, sizeof dst) < 0;
    blosc2_free_ctx(c);
  } else if (strcmp(mode, "missing") == 0 || strcmp(mode, "truncated") == 0) {
    ok = blosc2_schunk_open(arg) == NULL;
  } else if (strcmp(mode, "badchunk") == 0) {
    uint8_t chunk[BLOSC2_MAX_OVERHEAD + 64];
    int32_t src[16] = {0};
    int csize = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, sizeof src, chunk, sizeof chunk);
    chunk[3] = 0; /* typesize 0 */
    int32_t out[16];
    ok = csize > 0 && blosc2_decompress(chunk, csize, out, sizeof out) < 0;
  }
  blosc2_destroy();
  return ok ? 0 : 1;
}

/* Runs this program in `mode` with BLOSC_TRACE set; returns its stderr and
   stdout, and whether it exited 0. */
static int run_traced(const char *self, const char *mode, const char *arg,
                      char *out, size_t outlen) {
  char cmd[4096];
  /* under emulation (c-tests/run.sh's C_TESTS_RUNNER) the child needs it too */
  const char *runner = getenv("C_TESTS_RUNNER");
  snprintf(cmd, sizeof cmd, "BLOSC_TRACE=1 %s '%s' %s '%s' 2>&1", runner ? runner : "", self, mode, arg);
  FILE *p = popen(cmd, "r");
  REQUIRE(p != NULL);
  size_t n = fread(out, 1, outlen - 1, p);
  out[n] = '\0';
  return pclose(p) == 0;
}

/* Whether some "[error] - " line of `text` holds every one of `words`. */
static int some_line_says(const char *text, const char *const *words) {
  const char *line = text;
  while (line && *line) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    char buf[2048];
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, line, len);
    buf[len] = '\0';
    if (strncmp(buf, "[error] - ", 10) == 0) {
      int all = 1;
      for (const char *const *w = words; *w; w++) {
        if (!strstr(buf, *w)) all = 0;
      }
      if (all) return 1;
    }
    line = end ? end + 1 : NULL;
  }
  return 0;
}

#define EXPECT_TRACE(mode, arg, ...)                                         \
  do {                                                                       \
    static char text_[65536];                                                \
    const char *const words_[] = {__VA_ARGS__, NULL};                        \
    CHECK(run_traced(argv[0], mode, arg, text_, sizeof text_));              \
    if (!some_line_says(text_, words_)) {                                    \
      fprintf(stderr, "mode %s: no trace line says what is expected; got:\n%s\n", \
              mode, text_);                                                  \
      check_failures++;                                                      \
    }                                                                        \
  } while (0)

int main(int argc, char **argv) {
  if (argc > 2) return child(argv[1], argv[2]);

  EXPECT_TRACE("null", "-", "[error] - ");
  /* the parameter and its value, from where the parameters are checked */
  EXPECT_TRACE("clevel", "-", "clevel", "12", ".rs:");
  /* the field at fault, from the chunk header parser */
  EXPECT_TRACE("badchunk", "-", "typesize 0", ".rs:");

  char dir[] = "/tmp/trace_env_XXXXXX";
  REQUIRE(mkdtemp(dir) != NULL);
  char missing[512], truncated[512];
  snprintf(missing, sizeof missing, "%s/missing.b2frame", dir);
  snprintf(truncated, sizeof truncated, "%s/trunc.b2frame", dir);
  /* the file that could not be opened, and why */
  EXPECT_TRACE("missing", missing, "missing.b2frame", "No such file");

  /* a frame cut short: the file and what does not fit */
  blosc2_init();
  blosc2_storage st = {.contiguous = true, .urlpath = truncated};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  int32_t data[4096];
  for (int i = 0; i < 4096; i++) data[i] = i * 7;
  for (int i = 0; i < 3; i++) REQUIRE(blosc2_schunk_append_buffer(sc, data, sizeof data) > 0);
  blosc2_schunk_free(sc);
  blosc2_destroy();
  FILE *f = fopen(truncated, "r+b");
  REQUIRE(f != NULL);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fclose(f);
  REQUIRE(truncate(truncated, len / 2) == 0);
  EXPECT_TRACE("truncated", truncated, "trunc.b2frame");
  EXPECT_TRACE("truncated", truncated, "exceeds");

  /* and silence without the variable */
  char cmd[4096];
  const char *runner = getenv("C_TESTS_RUNNER");
  snprintf(cmd, sizeof cmd, "env -u BLOSC_TRACE %s '%s' null - 2>&1", runner ? runner : "", argv[0]);
  FILE *p = popen(cmd, "r");
  REQUIRE(p != NULL);
  char line[1024];
  int seen = 0;
  while (fgets(line, sizeof line, p)) seen = 1;
  pclose(p);
  CHECK(!seen);

  unlink(truncated);
  rmdir(dir);
  return check_result("trace_env");
}
