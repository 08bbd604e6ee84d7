/* One writer process appends to a frame on disk while reader processes
 * poll it with blosc2_schunk_refresh and read what they see, with the
 * opt-in frame locking (blosc2_stdio_params.locking, and BLOSC_LOCKING for
 * one reader).  A reader must only ever see whole states: counters that
 * agree with each other, never going back, and chunks with exactly the
 * data written.  Bounded in time: every process gives up after 60 s. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <blosc2.h>
#include <blosc2/blosc2-stdio.h>

#include "check.h"

/* Under emulation everything is 10-50 times slower: c-tests/run.sh sets
 * C_TESTS_TIME_SCALE then, and the time limits grow with it. */
static unsigned time_scale(void) {
  const char *scale = getenv("C_TESTS_TIME_SCALE");
  return scale && atoi(scale) > 0 ? (unsigned)atoi(scale) : 1u;
}

#define ITEMS 5000 /* int32 per chunk */
#define NCHUNKS 120
#define NREADERS 3

static const char *frame_path(bool contiguous) {
  return contiguous ? "c_tests_swmr.b2frame" : "c_tests_swmr_s.b2frame";
}

static int32_t value(int64_t chunk, int i) { return (int32_t)(chunk * 1000003 + i * 7); }

static void fill(int32_t *buf, int64_t chunk) {
  for (int i = 0; i < ITEMS; i++) buf[i] = value(chunk, i);
}

static int writer(bool contiguous) {
  static int32_t buf[ITEMS];
  blosc2_stdio_params params = {.locking = true};
  blosc2_io io = {.id = BLOSC2_IO_FILESYSTEM, .name = "filesystem", .params = &params};
  blosc2_schunk *sc = blosc2_schunk_open_udio(frame_path(contiguous), &io);
  if (sc == NULL) return 2;
  for (int64_t c = sc->nchunks; c < NCHUNKS; c++) {
    if (c % 10 == 0) {
      /* a vlmetalayer update rewrites the trailer in between */
      char note[32];
      int n = snprintf(note, sizeof note, "chunk %lld", (long long)c);
      if (blosc2_vlmeta_exists(sc, "note") < 0) {
        if (blosc2_vlmeta_add(sc, "note", (uint8_t *)note, n, NULL) < 0) return 4;
      } else if (blosc2_vlmeta_update(sc, "note", (uint8_t *)note, n, NULL) < 0) {
        return 4;
      }
    }
    fill(buf, c);
    if (blosc2_schunk_append_buffer(sc, buf, sizeof buf) != c + 1) return 3;
    usleep(2000);
  }
  blosc2_schunk_free(sc);
  return 0;
}

static int reader(bool contiguous, int which) {
  static int32_t buf[ITEMS], slice[2 * ITEMS];
  blosc2_stdio_params params = {.locking = true};
  blosc2_io io = {.id = BLOSC2_IO_FILESYSTEM, .name = "filesystem", .params = &params};
  blosc2_schunk *sc;
  if (which == 0) {
    setenv("BLOSC_LOCKING", "1", 1);
    sc = blosc2_schunk_open(frame_path(contiguous));
  } else {
    sc = blosc2_schunk_open_udio(frame_path(contiguous), &io);
  }
  if (sc == NULL) return 10;
  int64_t seen = 0;
  int polls = 0, refreshed = 0;
  unsigned x = 12345u + which;
  time_t deadline = time(NULL) + 50 * time_scale();
  while (seen < NCHUNKS) {
    if (time(NULL) > deadline) return 11;
    int rc = blosc2_schunk_refresh(sc);
    if (rc < 0) return 12;
    refreshed += rc;
    polls++;
    int64_t n = sc->nchunks;
    if (n < seen) return 13; /* never back */
    if (sc->nbytes != n * (int64_t)sizeof buf) return 14;
    seen = n;
    if (n == 0) continue;
    /* the newest chunk and a random older one hold exactly their data */
    x = x * 1103515245u + 12345u;
    int64_t pick[2] = {n - 1, (int64_t)(x >> 8) % n};
    for (int k = 0; k < 2; k++) {
      if (blosc2_schunk_decompress_chunk(sc, pick[k], buf, sizeof buf) != (int)sizeof buf)
        return 15;
      for (int i = 0; i < ITEMS; i++)
        if (buf[i] != value(pick[k], i)) return 16;
    }
    if (n >= 2) {
      int64_t start = (n - 2) * ITEMS + ITEMS / 2;
      if (blosc2_schunk_get_slice_buffer(sc, start, start + ITEMS, slice) != 0) return 17;
      for (int i = 0; i < ITEMS; i++) {
        int64_t item = start + i;
        if (slice[i] != value(item / ITEMS, (int)(item % ITEMS))) return 18;
      }
    }
    if (n > 10) {
      uint8_t *content;
      int32_t len;
      if (blosc2_vlmeta_get(sc, "note", &content, &len) < 0) return 19;
      if (len < 7 || memcmp(content, "chunk ", 6) != 0) return 20;
      free(content);
    }
  }
  /* with locking the handle was brought up to date along the way */
  if (polls < 2 || refreshed < 1) return 21;
  blosc2_schunk_free(sc);
  return 0;
}

static void run(bool contiguous) {
  static int32_t buf[ITEMS];
  const char *path = frame_path(contiguous);
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  fill(buf, 0);
  REQUIRE(blosc2_schunk_append_buffer(sc, buf, sizeof buf) == 1);
  blosc2_schunk_free(sc);

  pid_t pids[NREADERS + 1];
  for (int p = 0; p <= NREADERS; p++) {
    pids[p] = fork();
    REQUIRE(pids[p] >= 0);
    if (pids[p] == 0) {
      alarm(60 * time_scale());
      _exit(p == 0 ? writer(contiguous) : reader(contiguous, p - 1));
    }
  }
  for (int p = 0; p <= NREADERS; p++) {
    int status = 0;
    REQUIRE(waitpid(pids[p], &status, 0) == pids[p]);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "%s %s %d: %s %d\n", contiguous ? "contiguous" : "sparse",
              p == 0 ? "writer" : "reader", p,
              WIFEXITED(status) ? "exit" : "signal",
              WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
      check_failures++;
    }
  }
  sc = blosc2_schunk_open(path);
  REQUIRE(sc != NULL);
  CHECK_EQ_INT(sc->nchunks, NCHUNKS);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
}

int main(void) {
  blosc2_init();
  run(true);
  run(false);
  blosc2_destroy();
  return check_result("schunk_swmr");
}
