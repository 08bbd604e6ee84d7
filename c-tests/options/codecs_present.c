/* codecs_present EXPECTED ZSTD_CHUNK: checks, through the C API, that a
 * build has exactly the codecs EXPECTED (a comma-separated list as
 * blosc2_list_compressors gives it) and treats the others as upstream's
 * library built without them does: unknown names (-1), and
 * BLOSC2_ERROR_CODEC_SUPPORT when compressing with one or decompressing a
 * chunk made with one.  ZSTD_CHUNK is a chunk of 4096 int32 (i * 7) that
 * C-Blosc2 3.3.5 compressed with Zstd.  Used by scripts/test-cmake-recipes.sh
 * for the DEACTIVATE_ZSTD and BUILD_LITE builds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blosc2.h>

static int failures = 0;
#define CHECK(cond, ...)                  \
  do {                                    \
    if (!(cond)) {                        \
      fprintf(stderr, "FAIL: " __VA_ARGS__); \
      fprintf(stderr, "\n");              \
      failures++;                         \
    }                                     \
  } while (0)

static int listed(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; p != NULL && *p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return 1;
    p = comma ? comma + 1 : NULL;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s EXPECTED ZSTD_CHUNK\n", argv[0]);
    return 2;
  }
  const char *expected = argv[1];
  blosc2_init();
  const char *list = blosc2_list_compressors();
  CHECK(strcmp(list, expected) == 0, "blosc2_list_compressors() = \"%s\", expected \"%s\"", list,
        expected);

  static const char *names[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  static const int codes[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  static int32_t data[4096], back[4096];
  static uint8_t chunk[sizeof data + BLOSC2_MAX_OVERHEAD];
  for (int i = 0; i < 4096; i++) data[i] = i * 7;
  for (int k = 0; k < 5; k++) {
    int have = listed(expected, names[k]);
    int code = blosc2_compname_to_compcode(names[k]);
    CHECK(have ? code == codes[k] : code == -1, "blosc2_compname_to_compcode(%s) = %d", names[k],
          code);
    blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
    cparams.compcode = (uint8_t)codes[k];
    cparams.typesize = 4;
    blosc2_context *cctx = blosc2_create_cctx(cparams);
    int csize = cctx ? blosc2_compress_ctx(cctx, data, sizeof data, chunk, sizeof chunk) : -999;
    if (cctx) blosc2_free_ctx(cctx);
    if (have) {
      CHECK(csize > 0, "compressing with %s gave %d", names[k], csize);
    } else {
      CHECK(csize == BLOSC2_ERROR_CODEC_SUPPORT, "compressing with %s (absent) gave %d, expected %d",
            names[k], csize, BLOSC2_ERROR_CODEC_SUPPORT);
    }
  }

  FILE *f = fopen(argv[2], "rb");
  if (f == NULL) {
    fprintf(stderr, "cannot open %s\n", argv[2]);
    return 2;
  }
  size_t n = fread(chunk, 1, sizeof chunk, f);
  fclose(f);
  int dsize = blosc2_decompress(chunk, (int32_t)n, back, sizeof back);
  if (listed(expected, "zstd")) {
    CHECK(dsize == (int)sizeof back && memcmp(data, back, sizeof back) == 0,
          "decompressing a Zstd chunk gave %d", dsize);
  } else {
    CHECK(dsize == BLOSC2_ERROR_CODEC_SUPPORT,
          "decompressing a Zstd chunk without Zstd gave %d, expected %d", dsize,
          BLOSC2_ERROR_CODEC_SUPPORT);
  }
  blosc2_destroy();
  printf("codecs_present: %s: %s\n", expected, failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
