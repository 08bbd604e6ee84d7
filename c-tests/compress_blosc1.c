/* The Blosc1-style global API (blosc1_* and blosc2_compress/decompress), with
 * every codec and shuffle mode, as legacy callers use it. */
#include <string.h>

#include <blosc2.h>

#include "check.h"

#define N (256 * 1024 + 13)

int main(void) {
  static unsigned char src[N], dst[N + BLOSC2_MAX_OVERHEAD], back[N];
  check_fill(src, N, 1);
  blosc2_init();
  const char *codecs[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
  const int shuffles[] = {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE};
  for (int c = 0; c < 5; c++) {
    REQUIRE(blosc1_set_compressor(codecs[c]) >= 0);
    for (int s = 0; s < 3; s++) {
      int cbytes = blosc1_compress(5, shuffles[s], 4, N, src, dst, sizeof dst);
      CHECK(cbytes > 0 && cbytes <= N + BLOSC2_MAX_OVERHEAD);
      if (cbytes <= 0) continue;

      size_t nbytes = 0, cb = 0, blocksize = 0;
      blosc1_cbuffer_sizes(dst, &nbytes, &cb, &blocksize);
      CHECK_EQ_INT(nbytes, N);
      CHECK_EQ_INT(cb, cbytes);
      CHECK(blocksize > 0 && blocksize <= N);
      CHECK_EQ_INT(blosc1_cbuffer_validate(dst, (size_t)cbytes, &nbytes), 0);
      CHECK_EQ_INT(nbytes, N);
      size_t typesize = 0;
      int flags = 0;
      blosc1_cbuffer_metainfo(dst, &typesize, &flags);
      CHECK_EQ_INT(typesize, 4);
      CHECK(strcmp(blosc2_cbuffer_complib(dst), c == 1 || c == 2 ? "LZ4" : c == 0 ? "BloscLZ" : c == 3 ? "Zlib" : "Zstd") == 0);

      memset(back, 0, N);
      CHECK_EQ_INT(blosc1_decompress(dst, back, N), N);
      CHECK(memcmp(src, back, N) == 0);

      int item[10];
      CHECK_EQ_INT(blosc1_getitem(dst, 1000, 10, item), 40);
      CHECK(memcmp(item, src + 4000, 40) == 0);

      /* Too small a destination is an error, not an overflow. */
      CHECK(blosc1_decompress(dst, back, N - 1) < 0);
    }
  }

  /* blosc2_compress/decompress use the same global state. */
  blosc1_set_compressor("lz4");
  int cbytes = blosc2_compress(9, BLOSC_SHUFFLE, 8, src, N, dst, sizeof dst);
  CHECK(cbytes > 0);
  CHECK_EQ_INT(blosc2_decompress(dst, cbytes, back, N), N);
  CHECK(memcmp(src, back, N) == 0);
  CHECK_EQ_INT(blosc2_getitem(dst, cbytes, 3, 2, back, 16), 16);
  CHECK(memcmp(back, src + 24, 16) == 0);

  /* Incompressible data at clevel 0 is stored, and still round-trips. */
  cbytes = blosc2_compress(0, BLOSC_NOSHUFFLE, 1, src, N, dst, sizeof dst);
  CHECK_EQ_INT(cbytes, N + BLOSC2_MAX_OVERHEAD);
  CHECK_EQ_INT(blosc2_decompress(dst, cbytes, back, N), N);
  CHECK(memcmp(src, back, N) == 0);

  /* A destination too small for the compressed data: 0 (does not fit). */
  CHECK_EQ_INT(blosc2_compress(0, BLOSC_NOSHUFFLE, 1, src, N, dst, 100), 0);

  /* Empty input still makes a valid (header-only) chunk. */
  cbytes = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, 0, dst, sizeof dst);
  CHECK(cbytes >= BLOSC_MIN_HEADER_LENGTH);
  CHECK_EQ_INT(blosc2_decompress(dst, cbytes, back, 0), 0);

  blosc2_destroy();
  return check_result("compress_blosc1");
}
