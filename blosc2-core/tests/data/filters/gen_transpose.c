/* Writes transpose-3.3.5.txt: FNV-1a digests of what the reference
 * C-Blosc2 does with blosc2_shuffle / blosc2_unshuffle / blosc2_bitshuffle /
 * blosc2_bitunshuffle on pseudo-random blocks. The Rust side
 * (src/filters/compat_tests.rs) regenerates the same inputs and compares.
 *
 * gcc gen_transpose.c -I$REF/include -L$REF/lib -lblosc2 -Wl,-rpath,$REF/lib
 * ./a.out > transpose-3.3.5.txt
 */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

/* xorshift64*, one byte (the top one) per step */
static void fill(uint8_t *p, size_t n, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (size_t i = 0; i < n; i++) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    p[i] = (uint8_t)((x * 0x2545F4914F6CDD1DULL) >> 56);
  }
}

int main(void) {
  int typesizes[40];
  int nts = 0;
  for (int t = 1; t <= 33; t++) typesizes[nts++] = t;
  typesizes[nts++] = 64;
  typesizes[nts++] = 128;
  typesizes[nts++] = 255;
  typesizes[nts++] = 256;
  blosc2_init();
  printf("# ts len shuffle unshuffle bitshuffle bitunshuffle (fnv1a64 of output)\n");
  for (int k = 0; k < nts; k++) {
    int ts = typesizes[k];
    int lens[] = {0, 1, 7, 8 * ts - 1, 8 * ts, 8 * ts + 1, 9 * ts, 100, 257,
                  1000, 4109, 128 * ts + 3, 300 * ts + 5, 65541};
    for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
      int len = lens[l];
      uint8_t *src = malloc(len + 1), *dst = malloc(len + 1);
      uint64_t h[4];
      fill(src, len, (uint64_t)ts * 1000003 + len);
      if (blosc2_shuffle(ts, len, src, dst) != len) return 1;
      h[0] = fnv1a(dst, len);
      if (blosc2_unshuffle(ts, len, src, dst) != len) return 1;
      h[1] = fnv1a(dst, len);
      if (blosc2_bitshuffle(ts, len, src, dst) != len) return 1;
      h[2] = fnv1a(dst, len);
      if (blosc2_bitunshuffle(ts, len, src, dst) != len) return 1;
      h[3] = fnv1a(dst, len);
      printf("%d %d %016llx %016llx %016llx %016llx\n", ts, len,
             (unsigned long long)h[0], (unsigned long long)h[1],
             (unsigned long long)h[2], (unsigned long long)h[3]);
      free(src);
      free(dst);
    }
  }
  blosc2_destroy();
  return 0;
}
