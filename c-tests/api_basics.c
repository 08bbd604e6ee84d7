/* Library identity and the codec name/code tables, as any program first
 * queries them. */
#include <string.h>

#include <blosc2.h>

#include "check.h"

int main(void) {
  blosc2_init();

  const char *v = blosc2_get_version_string();
  REQUIRE(v != NULL);
  /* A drop-in must report the version its headers announce. */
  CHECK(strcmp(v, BLOSC2_VERSION_STRING) == 0);

  const char *list = blosc2_list_compressors();
  REQUIRE(list != NULL);
  const char *codecs[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  const int codes[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  for (int i = 0; i < 5; i++) {
    CHECK(strstr(list, codecs[i]) != NULL);
    CHECK_EQ_INT(blosc2_compname_to_compcode(codecs[i]), codes[i]);
    const char *name = NULL;
    CHECK_EQ_INT(blosc2_compcode_to_compname(codes[i], &name), codes[i]);
    CHECK(name != NULL && strcmp(name, codecs[i]) == 0);
    char *complib = NULL, *version = NULL;
    int lib = blosc2_get_complib_info(codecs[i], &complib, &version);
    CHECK(lib >= 0);
    CHECK(complib != NULL && version != NULL);
    free(complib);
    free(version);
  }
  CHECK(blosc2_compname_to_compcode("no-such-codec") < 0);
  const char *name = NULL;
  CHECK(blosc2_compcode_to_compname(200, &name) < 0);

  CHECK(blosc1_set_compressor("zstd") >= 0);
  CHECK(strcmp(blosc1_get_compressor(), "zstd") == 0);
  CHECK(blosc1_set_compressor("blosclz") >= 0);

  int16_t old = blosc2_set_nthreads(2);
  CHECK(old >= 1);
  CHECK_EQ_INT(blosc2_get_nthreads(), 2);
  blosc2_set_nthreads(old);

  const char *msg = blosc2_error_string(BLOSC2_ERROR_DATA);
  CHECK(msg != NULL && msg[0] != '\0');

  CHECK_EQ_INT(blosc2_free_resources(), 0);
  blosc2_destroy();
  /* init/destroy must be repeatable. */
  blosc2_init();
  CHECK(blosc2_get_version_string() != NULL);
  blosc2_destroy();
  return check_result("api_basics");
}
