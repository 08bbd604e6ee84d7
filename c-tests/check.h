/*
 * Tiny assertion helpers shared by the c-tests programs.  Each program is a
 * plain C user of the installed <blosc2.h>; it exits 0 when every CHECK held,
 * 1 otherwise (and 77 to say "skipped").  Failures print file:line and the
 * expression so the log alone says what broke.
 */
#ifndef C_TESTS_CHECK_H
#define C_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures = 0;

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
