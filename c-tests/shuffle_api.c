/* The standalone shuffle/bitshuffle entry points. */
#include <string.h>

#include <blosc2.h>

#include "check.h"

#define N 4096

int main(void) {
  static unsigned char src[N], tmp[N], back[N];
  check_fill(src, N, 3);
  blosc2_init();
  const int32_t typesizes[] = {1, 2, 4, 8, 16};
  for (int t = 0; t < 5; t++) {
    int32_t ts = typesizes[t];
    CHECK_EQ_INT(blosc2_shuffle(ts, N, src, tmp), N);
    /* Byte shuffle: byte 0 of every item first. */
    if (ts > 1) CHECK(tmp[1] == src[ts]);
    CHECK_EQ_INT(blosc2_unshuffle(ts, N, tmp, back), N);
    CHECK(memcmp(src, back, N) == 0);

    CHECK(blosc2_bitshuffle(ts, N, src, tmp) >= 0);
    CHECK(blosc2_bitunshuffle(ts, N, tmp, back) >= 0);
    CHECK(memcmp(src, back, N) == 0);
  }
  blosc2_destroy();
  return check_result("shuffle_api");
}
