/* A plugin library of the kind upstream loads at first use: it exports
 * `info`, naming its two functions, and nothing links against it. Built by
 * c-tests/run.sh as a codec (-DCODEC) or a filter (-DFILTER), under the
 * name -DNAME gives its functions.
 *
 * The codec keeps one byte of each pair of equal ones, xor 0x5A (data made
 * of such pairs halves; what it makes cannot be read without it); the
 * filter adds 1 to each byte. Both count their calls in
 * `<NAME>_calls`, which the test reads to see that they ran. */
#include <stdint.h>
#include <string.h>

#include <blosc2.h>
#include <blosc2/codecs-registry.h>
#include <blosc2/filters-registry.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

int CAT(NAME, _calls) = 0;

#ifdef CODEC
int CAT(NAME, _encode)(const uint8_t *input, int32_t input_len, uint8_t *output,
                       int32_t output_len, uint8_t meta, blosc2_cparams *cparams,
                       const void *chunk) {
  (void)meta;
  (void)cparams;
  (void)chunk;
  __atomic_add_fetch(&CAT(NAME, _calls), 1, __ATOMIC_RELAXED);
  /* halves data made of byte pairs; anything else "does not fit" */
  if (input_len % 2 != 0 || output_len < input_len / 2) return 0;
  for (int32_t i = 0; i < input_len; i += 2) {
    if (input[i] != input[i + 1]) return 0;
    output[i / 2] = input[i] ^ 0x5A;
  }
  return input_len / 2;
}

int CAT(NAME, _decode)(const uint8_t *input, int32_t input_len, uint8_t *output,
                       int32_t output_len, uint8_t meta, blosc2_dparams *dparams,
                       const void *chunk) {
  (void)meta;
  (void)dparams;
  (void)chunk;
  __atomic_add_fetch(&CAT(NAME, _calls), 1, __ATOMIC_RELAXED);
  if (output_len != 2 * input_len) return -1;
  for (int32_t i = 0; i < input_len; i++) output[2 * i] = output[2 * i + 1] = input[i] ^ 0x5A;
  return output_len;
}

codec_info info = {.encoder = STR(NAME) "_encode", .decoder = STR(NAME) "_decode"};
#endif

#ifdef FILTER
int CAT(NAME, _forward)(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                        blosc2_cparams *cparams, uint8_t id) {
  (void)meta;
  (void)cparams;
  (void)id;
  __atomic_add_fetch(&CAT(NAME, _calls), 1, __ATOMIC_RELAXED);
  for (int32_t i = 0; i < size; i++) dest[i] = (uint8_t)(src[i] + 1);
  return 0;
}

int CAT(NAME, _backward)(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                         blosc2_dparams *dparams, uint8_t id) {
  (void)meta;
  (void)dparams;
  (void)id;
  __atomic_add_fetch(&CAT(NAME, _calls), 1, __ATOMIC_RELAXED);
  for (int32_t i = 0; i < size; i++) dest[i] = (uint8_t)(src[i] - 1);
  return 0;
}

filter_info info = {.forward = STR(NAME) "_forward", .backward = STR(NAME) "_backward"};
#endif
