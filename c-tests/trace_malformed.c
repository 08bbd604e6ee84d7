/*
 * BLOSC_TRACE on malformed input: every C entry point that parses a frame,
 * a b2nd array or a chunk prints an "[error] - ..." line naming the cause
 * (what was expected, what was found, where) from the parser that found it,
 * not only the C function that returned the error. One line per case is
 * checked: truncated frames, a bad magic, bad offsets, a bad metalayer
 * section and a bad b2nd shape, each through every entry point that takes
 * it (blosc2_schunk_from_buffer, blosc2_schunk_open, blosc2_schunk_open_offset,
 * b2nd_from_cframe, b2nd_open), and a bad chunk through blosc2_decompress
 * and blosc2_getitem. The program re-runs itself with the variable set.
 */
#include <blosc2.h>
#include <b2nd.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

#define PREFIX_LEN 7

static uint8_t *slurp(const char *path, int64_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)*len + 1);
  if (fread(b, 1, (size_t)*len, f) != (size_t)*len) *len = -1;
  fclose(f);
  return b;
}

static void spill(const char *path, const uint8_t *b, int64_t len, int prefix) {
  FILE *f = fopen(path, "wb");
  REQUIRE(f != NULL);
  if (prefix) REQUIRE(fwrite("PREFIX!", 1, PREFIX_LEN, f) == PREFIX_LEN);
  REQUIRE(fwrite(b, 1, (size_t)len, f) == (size_t)len);
  fclose(f);
}

/* Each mode makes one entry point refuse the file `arg`; exit 0 if it did. */
static int child(const char *mode, const char *arg) {
  blosc2_init();
  int64_t len = 0;
  uint8_t *b = slurp(arg, &len);
  int ok = 0;
  b2nd_array_t *a = NULL;
  if (b == NULL || len < 0) {
    ok = 0;
  } else if (strcmp(mode, "from_buffer") == 0) {
    ok = blosc2_schunk_from_buffer(b, len, true) == NULL;
  } else if (strcmp(mode, "open") == 0) {
    ok = blosc2_schunk_open(arg) == NULL;
  } else if (strcmp(mode, "open_offset") == 0) {
    ok = blosc2_schunk_open_offset(arg, PREFIX_LEN) == NULL;
  } else if (strcmp(mode, "b2nd_from_cframe") == 0) {
    ok = b2nd_from_cframe(b, len, true, &a) < 0;
  } else if (strcmp(mode, "b2nd_open") == 0) {
    ok = b2nd_open(arg, &a) < 0;
  } else if (strcmp(mode, "decompress") == 0) {
    static uint8_t out[1 << 16];
    ok = blosc2_decompress(b, (int32_t)len, out, sizeof out) < 0;
  } else if (strcmp(mode, "getitem") == 0) {
    static uint8_t out[1 << 16];
    ok = blosc2_getitem(b, (int32_t)len, 3, 10, out, sizeof out) < 0;
  }
  free(b);
  blosc2_destroy();
  return ok ? 0 : 1;
}

static int run_traced(const char *self, const char *mode, const char *arg,
                      char *out, size_t outlen) {
  char cmd[4096];
  const char *runner = getenv("C_TESTS_RUNNER");
  snprintf(cmd, sizeof cmd, "BLOSC_TRACE=1 %s '%s' %s '%s' 2>&1", runner ? runner : "", self, mode, arg);
  FILE *p = popen(cmd, "r");
  REQUIRE(p != NULL);
  size_t n = fread(out, 1, outlen - 1, p);
  out[n] = '\0';
  return pclose(p) == 0;
}

/* Whether some "[error] - " line holds every one of `words` and names a
   place in the core's parsers (a .rs file outside libblosc2-rs-sys, whose
   line names the export that returned the code). */
static int some_line_says(const char *text, const char *const *words) {
  const char *line = text;
  while (line && *line) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    char buf[2048];
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, line, len);
    buf[len] = '\0';
    if (strncmp(buf, "[error] - ", 10) == 0 && strstr(buf, ".rs:") && !strstr(buf, "libblosc2-rs-sys")) {
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

static int check_trace(const char *self, const char *mode, const char *path,
                       const char *const *words) {
  static char text[65536];
  int refused = run_traced(self, mode, path, text, sizeof text);
  if (!refused || !some_line_says(text, words)) {
    fprintf(stderr, "%s %s: %s; expected a line with", mode, path,
            refused ? "no trace line names the cause" : "not refused");
    for (const char *const *w = words; *w; w++) fprintf(stderr, " '%s'", *w);
    fprintf(stderr, "; got:\n%s\n", text);
    return 0;
  }
  return 1;
}

#define EXPECT(mode, path, ...)                                   \
  do {                                                            \
    const char *const words_[] = {__VA_ARGS__, NULL};             \
    if (!check_trace(argv[0], mode, path, words_)) check_failures++; \
  } while (0)

/* A frame's `name`d case written plain and behind PREFIX_LEN bytes. */
static void write_case(const char *dir, const char *name, const uint8_t *b, int64_t len,
                       char *plain, char *behind) {
  snprintf(plain, 512, "%s/%s.b2frame", dir, name);
  snprintf(behind, 512, "%s/%s-offset.bin", dir, name);
  spill(plain, b, len, 0);
  spill(behind, b, len, 1);
}

static int64_t be64(const uint8_t *p) {
  int64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
  return v;
}

static int32_t be32(const uint8_t *p) {
  return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

int main(int argc, char **argv) {
  if (argc > 2) return child(argv[1], argv[2]);

  blosc2_init();
  char dir[] = "/tmp/trace_malformed_XXXXXX";
  REQUIRE(mkdtemp(dir) != NULL);

  /* a frame of three chunks and a metalayer */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  REQUIRE(sc != NULL);
  uint8_t meta[5] = {1, 2, 3, 4, 5};
  REQUIRE(blosc2_meta_add(sc, "m1", meta, sizeof meta) >= 0);
  int32_t data[1000];
  for (int i = 0; i < 1000; i++) data[i] = i * 3;
  for (int i = 0; i < 3; i++) REQUIRE(blosc2_schunk_append_buffer(sc, data, sizeof data) > 0);
  uint8_t *frame;
  bool needs_free;
  int64_t flen = blosc2_schunk_to_buffer(sc, &frame, &needs_free);
  REQUIRE(flen > 0);
  uint8_t *m = malloc((size_t)flen);
  char plain[512], behind[512];
  const char *frame_modes[] = {"from_buffer", "open", "open_offset"};

  /* truncated: the frame length field says more than there is */
  write_case(dir, "truncated", frame, flen / 2, plain, behind);
  EXPECT("from_buffer", plain, "Frame length", "bytes available");
  EXPECT("open", plain, "Frame length", "exceeds");
  EXPECT("open_offset", behind, "Frame length", "exceeds");

  /* bad magic */
  memcpy(m, frame, (size_t)flen);
  m[4] = 'X';
  write_case(dir, "magic", m, flen, plain, behind);
  for (int i = 0; i < 3; i++) EXPECT(frame_modes[i], i == 2 ? behind : plain, "magic", "offset 2");

  /* bad offsets: chunk 0's entry of the (stored whole) index points far
     past the chunks */
  int32_t header_len = be32(frame + 11);
  int64_t cbytes = be64(frame + 39);
  int64_t idx = header_len + cbytes;
  REQUIRE(idx + 40 <= flen);
  REQUIRE((frame[idx + 2] & BLOSC_MEMCPYED) != 0);
  memcpy(m, frame, (size_t)flen);
  const uint8_t far[8] = {0, 0, 0, 0x10, 0, 0, 0, 0};
  memcpy(m + idx + 32, far, 8);
  write_case(dir, "offsets", m, flen, plain, behind);
  for (int i = 0; i < 3; i++) EXPECT(frame_modes[i], i == 2 ? behind : plain, "offset", "268435456");

  /* bad metalayer section: the map16 marker of its name index */
  memcpy(m, frame, (size_t)flen);
  REQUIRE(m[87 + 4] == 0xde);
  m[87 + 4] = 0x00;
  write_case(dir, "metalayer", m, flen, plain, behind);
  for (int i = 0; i < 3; i++) EXPECT(frame_modes[i], i == 2 ? behind : plain, "etalayer", "offset 91");

  /* b2nd: a negative first dimension in the "b2nd" metalayer */
  int64_t shape[2] = {10, 12};
  int32_t cshape[2] = {4, 6}, bshape[2] = {2, 3};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, cshape, bshape, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
  REQUIRE(ctx != NULL);
  b2nd_array_t *arr;
  REQUIRE(b2nd_from_cbuffer(ctx, &arr, data, 120 * 4) == 0);
  uint8_t *cf;
  int64_t cflen;
  bool cf_free;
  REQUIRE(b2nd_to_cframe(arr, &cf, &cflen, &cf_free) == 0);
  uint8_t *am = malloc((size_t)cflen);
  memcpy(am, cf, (size_t)cflen);
  int64_t at = -1;
  for (int64_t i = 87; i + 10 < cflen; i++) {
    /* fixarray of 2, then int64 10: the shape */
    if (am[i] == 0x92 && am[i + 1] == 0xd3 && be64(am + i + 2) == 10) {
      at = i + 2;
      break;
    }
  }
  REQUIRE(at > 0);
  memset(am + at, 0xff, 8);
  write_case(dir, "b2nd-shape", am, cflen, plain, behind);
  EXPECT("b2nd_from_cframe", plain, "shape", "-1");
  EXPECT("b2nd_open", plain, "shape", "-1");
  /* a plain frame is no b2nd array */
  write_case(dir, "plain", frame, flen, plain, behind);
  EXPECT("b2nd_from_cframe", plain, "b2nd");
  EXPECT("b2nd_open", plain, "b2nd");
  /* and a truncated array */
  write_case(dir, "b2nd-truncated", cf, cflen - 10, plain, behind);
  EXPECT("b2nd_from_cframe", plain, "Frame length");
  EXPECT("b2nd_open", plain, "Frame length");

  /* a chunk whose cbytes runs past the bytes given */
  uint8_t chunk[4000 + BLOSC2_MAX_OVERHEAD];
  int csize = blosc2_compress(5, BLOSC_SHUFFLE, 4, data, sizeof data, chunk, sizeof chunk);
  REQUIRE(csize > 0);
  write_case(dir, "chunk-short", chunk, csize - 5, plain, behind);
  EXPECT("decompress", plain, "cbytes", "bytes");
  EXPECT("getitem", plain, "cbytes", "bytes");
  /* a chunk with a reserved special-value code */
  chunk[31] = (uint8_t)((chunk[31] & 0x8f) | 0x50);
  write_case(dir, "chunk-special", chunk, csize, plain, behind);
  EXPECT("decompress", plain, "special", "5");
  EXPECT("getitem", plain, "special", "5");

  if (needs_free) free(frame);
  if (cf_free) free(cf);
  free(m);
  free(am);
  b2nd_free(arr);
  b2nd_free_ctx(ctx);
  blosc2_schunk_free(sc);
  blosc2_destroy();
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  return check_result("trace_malformed");
}
