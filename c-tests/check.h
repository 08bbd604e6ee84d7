/*
 * Tiny assertion helpers shared by the c-tests programs.  Each program is a
 * plain C user of the installed <blosc2.h>; it exits 0 when every CHECK held,
 * 1 otherwise (and 77 to say "skipped").  Failures print file:line and the
 * expression so the log alone says what broke.
 */
#ifndef C_TESTS_CHECK_H
#define C_TESTS_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures = 0;

/* Typed test data is made in the host's byte order, as a user's would be,
 * while the hashes recorded from the reference were made on little-endian
 * x86-64: on a big-endian host (s390x under qemu, scripts/test-cross.sh)
 * decoded values are compared through their little-endian bytes, and the
 * compressed bytes of value filters and codecs are not comparable at all. */
static inline int check_host_big_endian(void) {
  const uint16_t one = 1;
  uint8_t first;
  memcpy(&first, &one, 1);
  return first == 0;
}

/* A header field as the format stores it, whatever the host's byte order. */
static inline void check_put_le32(uint8_t *p, int32_t v) {
  uint32_t u = (uint32_t)v;
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(u >> (8 * i));
}

static inline int32_t check_le32(const uint8_t *p) {
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* In place: each whole `ts`-byte item of `buf` byte-reversed on a big-endian
 * host, giving the bytes a little-endian host holds for the same values; a
 * no-op on a little-endian host. */
static inline void check_to_le_items(uint8_t *buf, size_t nbytes, int ts) {
  if (!check_host_big_endian() || ts < 2) return;
  for (size_t i = 0; i + (size_t)ts <= nbytes; i += (size_t)ts) {
    for (int a = 0, b = ts - 1; a < b; a++, b--) {
      uint8_t t = buf[i + a];
      buf[i + a] = buf[i + b];
      buf[i + b] = t;
    }
  }
}

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      check_failures++;                                                      \
    }                                                                        \
  } while (0)

/* For conditions later steps depend on: stop here rather than crash. */
#define REQUIRE(cond)                                                        \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: required check failed: %s\n", __FILE__,      \
              __LINE__, #cond);                                              \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                   \
  do {                                                                       \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);          \
    if (check_a_ != check_b_) {                                              \
      fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__,  \
              __LINE__, #a, check_a_, #b, check_b_);                         \
      check_failures++;                                                      \
    }                                                                        \
  } while (0)

static int check_result(const char *name) {
  if (check_failures) fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
  return check_failures ? 1 : 0;
}

/* Compressible, typesize-friendly test data: a noisy ramp of 32-bit items. */
static inline void check_fill(void *buf, size_t nbytes, unsigned seed) {
  unsigned char *p = (unsigned char *)buf;
  unsigned x = seed * 2654435761u + 1;
  for (size_t i = 0; i < nbytes; i++) {
    x = x * 1103515245u + 12345u;
    size_t item = i / 4;
    p[i] = (unsigned char)(((item * 7 + ((x >> 16) & 3)) >> (8 * (i % 4))) & 0xff);
  }
}

#endif
