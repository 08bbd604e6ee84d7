/*
 * BLOSC_TRACE set in the environment prints upstream-style "[error] - ..."
 * lines on stderr when a call fails. The program re-runs itself with the
 * variable set and its stderr captured.
 */
#include <blosc2.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "child") == 0) {
    char out[64] = {0};
    return blosc2_decompress_ctx(NULL, out, 1, out, 1) == BLOSC2_ERROR_NULL_POINTER ? 0 : 1;
  }
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "BLOSC_TRACE=1 '%s' child 2>&1", argv[0]);
  FILE *p = popen(cmd, "r");
  REQUIRE(p != NULL);
  char line[1024];
  int seen = 0;
  while (fgets(line, sizeof line, p)) {
    if (strncmp(line, "[error] - ", 10) == 0) seen = 1;
  }
  int rc = pclose(p);
  CHECK_EQ_INT(rc, 0);
  CHECK(seen);
  /* and silence without the variable */
  snprintf(cmd, sizeof cmd, "env -u BLOSC_TRACE '%s' child 2>&1", argv[0]);
  p = popen(cmd, "r");
  REQUIRE(p != NULL);
  seen = 0;
  while (fgets(line, sizeof line, p)) seen = 1;
  pclose(p);
  CHECK(!seen);
  return check_result("trace_env");
}
