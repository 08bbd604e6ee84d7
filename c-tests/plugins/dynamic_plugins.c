/* Plugins registered by name only, loaded by the library when a chunk first
 * needs them (as upstream loads its global plugins and Python-packaged
 * ones): from libblosc2_<name>.so on the loader's path, or from the path
 * `python -c "import blosc2_<name>; blosc2_<name>.print_libpath()"` prints.
 * c-tests/run.sh builds the plugins (plugin.c) and runs this program in
 * four modes, against our library and the reference:
 *
 *   roundtrip FILE  codec 200 "tcodec" and filter 250 "tfilter" registered
 *                   with NULL functions; the global codec 37 ("grok", a
 *                   stand-in library here); plugins that cannot be found
 *                   fail the compression. Writes a chunk to FILE.
 *   decode FILE     a fresh process decodes that chunk: loading on the
 *                   decompression side.
 *   missing FILE    the same where the plugins cannot be found: an error.
 *   python          codec 202 "tpy", found only through Python (PYTHONPATH
 *                   holds a blosc2_tpy package; TPY_LIB names its library).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include <blosc2.h>
#include <blosc2/codecs-registry.h>

#include "../check.h"

#define N 40000

/* pairs of equal bytes, which the stand-in codec halves */
static void fill(uint8_t *buf) {
  for (int i = 0; i < N; i++) buf[i] = (uint8_t)(((i / 2) * 7) ^ (i >> 6));
}

/* How many times the plugin library `lib` (already loaded) ran. */
static int calls(const char *lib, const char *counter) {
  void *h = dlopen(lib, RTLD_LAZY | RTLD_NOLOAD);
  if (h == NULL) return -1;
  int *n = (int *)dlsym(h, counter);
  int v = n == NULL ? -2 : *n;
  dlclose(h);
  return v;
}

static void reg_codec(uint8_t id, const char *name) {
  blosc2_codec c = {0};
  c.compcode = id;
  c.compname = (char *)name;
  c.complib = id;
  c.version = 1;
  CHECK_EQ_INT(blosc2_register_codec(&c), 0);
}

static void reg_filter(uint8_t id, const char *name) {
  blosc2_filter f = {0};
  f.id = id;
  f.name = (char *)name;
  f.version = 1;
  CHECK_EQ_INT(blosc2_register_filter(&f), 0);
}

/* Compress N bytes with `compcode` and, unless 0, user filter `filter`;
 * returns the chunk's size or the error. */
static int compress_with(uint8_t compcode, uint8_t filter, uint8_t *chunk, int32_t size) {
  uint8_t src[N];
  fill(src);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = compcode;
  cp.typesize = 4;
  cp.nthreads = 2;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = filter;
  cp.splitmode = BLOSC_NEVER_SPLIT; /* split streams would part the pairs */
  blosc2_context *cctx = blosc2_create_cctx(cp);
  REQUIRE(cctx != NULL);
  int rc = blosc2_compress_ctx(cctx, src, N, chunk, size);
  blosc2_free_ctx(cctx);
  return rc;
}

static void check_decodes(const uint8_t *chunk, int32_t csize) {
  uint8_t want[N], got[N];
  fill(want);
  memset(got, 0, N);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 2;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  REQUIRE(dctx != NULL);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, chunk, csize, got, N), N);
  CHECK(memcmp(want, got, N) == 0);
  blosc2_free_ctx(dctx);
}

static void roundtrip(const char *path) {
  static uint8_t chunk[N + BLOSC2_MAX_OVERHEAD];
  reg_codec(200, "tcodec");
  reg_filter(250, "tfilter");
  int csize = compress_with(200, 250, chunk, sizeof chunk);
  CHECK(csize > 0 && csize < N); /* made by the plugins, not stored raw */
  if (csize > 0) {
    check_decodes(chunk, csize);
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    REQUIRE(fwrite(chunk, 1, (size_t)csize, f) == (size_t)csize);
    fclose(f);
  }
  CHECK(calls("libblosc2_tcodec.so", "tcodec_calls") > 0);
  CHECK(calls("libblosc2_tfilter.so", "tfilter_calls") > 0);

  /* a codec upstream registers at start-up, by name ("grok") */
  int n = compress_with(BLOSC_CODEC_GROK, 0, chunk, sizeof chunk);
  CHECK(n > 0 && n < N);
  if (n > 0) check_decodes(chunk, n);
  CHECK(calls("libblosc2_grok.so", "grok_calls") > 0);

  /* plugins nobody provides: the chunk is refused, not made */
  reg_codec(201, "tmissing");
  reg_filter(251, "tfmissing");
  CHECK_EQ_INT(compress_with(201, 0, chunk, sizeof chunk), BLOSC2_ERROR_CODEC_SUPPORT);
  CHECK(compress_with(BLOSC_LZ4, 251, chunk, sizeof chunk) < 0);
  /* and the ones found still work after that */
  n = compress_with(200, 250, chunk, sizeof chunk);
  CHECK(n > 0 && n < N);
}

/* The chunk `roundtrip` wrote; its size. */
static int32_t read_chunk(const char *path, uint8_t *chunk, size_t size) {
  FILE *f = fopen(path, "rb");
  REQUIRE(f != NULL);
  size_t n = fread(chunk, 1, size, f);
  fclose(f);
  REQUIRE(n > BLOSC_EXTENDED_HEADER_LENGTH);
  return (int32_t)n;
}

static void decode(const char *path) {
  static uint8_t chunk[N + BLOSC2_MAX_OVERHEAD];
  reg_codec(200, "tcodec");
  reg_filter(250, "tfilter");
  int32_t csize = read_chunk(path, chunk, sizeof chunk);
  check_decodes(chunk, csize);
  CHECK(calls("libblosc2_tcodec.so", "tcodec_calls") > 0);
  CHECK(calls("libblosc2_tfilter.so", "tfilter_calls") > 0);
}

/* The same chunk where its plugins cannot be found: an error, not bytes. */
static void missing(const char *path) {
  static uint8_t chunk[N + BLOSC2_MAX_OVERHEAD];
  static uint8_t out[N];
  reg_codec(200, "tcodec");
  reg_filter(250, "tfilter");
  int32_t csize = read_chunk(path, chunk, sizeof chunk);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  REQUIRE(dctx != NULL);
  CHECK_EQ_INT(blosc2_decompress_ctx(dctx, chunk, csize, out, N),
               BLOSC2_ERROR_CODEC_SUPPORT);
  blosc2_free_ctx(dctx);
}

static void python(void) {
  static uint8_t chunk[N + BLOSC2_MAX_OVERHEAD];
  const char *lib = getenv("TPY_LIB");
  REQUIRE(lib != NULL);
  reg_codec(202, "tpy");
  int csize = compress_with(202, 0, chunk, sizeof chunk);
  CHECK(csize > 0 && csize < N);
  if (csize > 0) check_decodes(chunk, csize);
  CHECK(calls(lib, "tpy_calls") > 0);
}

int main(int argc, char **argv) {
  blosc2_init();
  if (argc == 3 && strcmp(argv[1], "roundtrip") == 0) {
    roundtrip(argv[2]);
  } else if (argc == 3 && strcmp(argv[1], "decode") == 0) {
    decode(argv[2]);
  } else if (argc == 3 && strcmp(argv[1], "missing") == 0) {
    missing(argv[2]);
  } else if (argc == 2 && strcmp(argv[1], "python") == 0) {
    python();
  } else {
    fprintf(stderr, "usage: dynamic_plugins roundtrip FILE | decode FILE | missing FILE | python\n");
    return 2;
  }
  blosc2_destroy();
  return check_result("dynamic_plugins");
}
