/* The smallest real user of the installed library: compress and decompress
 * one buffer.  Built by the pkg-config (shared and static) and CMake
 * (Blosc2::blosc2_shared / _static / blosc2) consumer tests. */
#include <stdio.h>
#include <string.h>

#include <blosc2.h>

int main(void) {
  static float data[100000], back[100000];
  static char chunk[sizeof data + BLOSC2_MAX_OVERHEAD];
  for (int i = 0; i < 100000; i++) data[i] = (float)i * 0.25f;

  blosc2_init();
  int csize = blosc2_compress(5, BLOSC_SHUFFLE, sizeof(float), data, sizeof data, chunk, sizeof chunk);
  int dsize = csize > 0 ? blosc2_decompress(chunk, csize, back, sizeof back) : -1;
  int ok = csize > 0 && dsize == (int)sizeof data && memcmp(data, back, sizeof data) == 0;
  printf("blosc2 %s: %d -> %d bytes, round trip %s\n", blosc2_get_version_string(),
         (int)sizeof data, csize, ok ? "ok" : "FAILED");
  blosc2_destroy();
  return ok ? 0 : 1;
}
