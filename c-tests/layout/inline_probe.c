/*
 * Exercises what the headers themselves implement (static const defaults and
 * static inline helpers) and prints the results. check.sh compiles it against
 * the reference headers and against ours and requires identical output.
 * Needs no library: nothing here calls an exported function.
 */
#include "blosc2.h"
#include "b2nd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str(const char *s) { return s == NULL ? "(null)" : s; }
static const char *ptr(const void *p) { return p == NULL ? "NULL" : "set"; }

static void defaults(void) {
  blosc2_cparams c = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_dparams d = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage s = BLOSC2_STORAGE_DEFAULTS;
  blosc2_io io = BLOSC2_IO_DEFAULTS;
  blosc2_stdio_params sp = BLOSC2_STDIO_PARAMS_DEFAULTS;
  blosc2_stdio_mmap m = BLOSC2_STDIO_MMAP_DEFAULTS;
  int i;
  printf("cparams %d %d %d %d %d %d %d %d %s", c.compcode, c.compcode_meta, c.clevel, c.use_dict,
         (int)c.typesize, c.nthreads, (int)c.blocksize, (int)c.splitmode, ptr(c.schunk));
  for (i = 0; i < BLOSC2_MAX_FILTERS; i++) {
    printf(" f%d=%d/%d/%s", i, c.filters[i], c.filters_meta[i], ptr(c.filter_params[i]));
  }
  printf(" %s %s %s %d %d %s\n", c.prefilter == NULL ? "NULL" : "set", ptr(c.preparams),
         ptr(c.tuner_params), c.tuner_id, (int)c.instr_codec, ptr(c.codec_params));
  printf("dparams %d %s %s %s %d\n", d.nthreads, ptr(d.schunk), d.postfilter == NULL ? "NULL" : "set",
         ptr(d.postparams), (int)d.typesize);
  printf("storage %d %s %s %s %s\n", (int)s.contiguous, ptr(s.urlpath), ptr(s.cparams), ptr(s.dparams),
         ptr(s.io));
  printf("io %d %s %s\n", io.id, str(io.name), ptr(io.params));
  printf("stdio_params %d\n", (int)sp.locking);
  printf("stdio_mmap %s %zu %d %s %s %zu %zu %d %s %d %lld %lld\n", str(m.mode), m.initial_mapping_size,
         (int)m.needs_free, ptr(m.addr), ptr(m.urlpath), m.file_size, m.mapping_size,
         (int)m.is_memory_only, ptr(m.file), m.fd, (long long)m.access_flags, (long long)m.map_flags);
}

static void swaps(void) {
  const uint8_t be[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08};
  uint8_t a = 0;
  uint16_t b = 0;
  uint32_t c = 0;
  uint64_t d = 0;
  swap_store(&a, be, 1);
  swap_store(&b, be, 2);
  swap_store(&c, be, 4);
  swap_store(&d, be, 8);
  printf("swap %x %x %x %llx\n", a, b, (unsigned)c, (unsigned long long)d);
}

/* A "b2nd" metalayer for shape (10, 20, 30), chunks (5, 10, 15), blocks (2, 5, 5), dtype "<f8". */
static int32_t make_meta(uint8_t *buf) {
  const int64_t shape[3] = {10, 20, 30};
  const int32_t chunk[3] = {5, 10, 15};
  const int32_t block[3] = {2, 5, 5};
  const char *dtype = "<f8";
  int32_t n = 0;
  int i, k;
  buf[n++] = 0x90 + 7; /* fixarray of 7 */
  buf[n++] = 0;        /* version */
  buf[n++] = 3;        /* ndim */
  buf[n++] = 0x90 + 3;
  for (i = 0; i < 3; i++) {
    buf[n++] = 0xd3;
    for (k = 7; k >= 0; k--) buf[n++] = (uint8_t)((uint64_t)shape[i] >> (8 * k));
  }
  buf[n++] = 0x90 + 3;
  for (i = 0; i < 3; i++) {
    buf[n++] = 0xd2;
    for (k = 3; k >= 0; k--) buf[n++] = (uint8_t)((uint32_t)chunk[i] >> (8 * k));
  }
  buf[n++] = 0x90 + 3;
  for (i = 0; i < 3; i++) {
    buf[n++] = 0xd2;
    for (k = 3; k >= 0; k--) buf[n++] = (uint8_t)((uint32_t)block[i] >> (8 * k));
  }
  buf[n++] = 0; /* dtype_format */
  buf[n++] = 0xdb;
  for (k = 3; k >= 0; k--) buf[n++] = (uint8_t)(strlen(dtype) >> (8 * k));
  memcpy(buf + n, dtype, strlen(dtype));
  return n + (int32_t)strlen(dtype);
}

static void deserialize(const uint8_t *meta, int32_t len, int with_dtype) {
  int8_t ndim = -7, fmt = -7;
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunk[B2ND_MAX_DIM], block[B2ND_MAX_DIM];
  char *dtype = (char *)"untouched";
  int i, rc;
  for (i = 0; i < B2ND_MAX_DIM; i++) {
    shape[i] = -9;
    chunk[i] = -9;
    block[i] = -9;
  }
  rc = b2nd_deserialize_meta_inline(meta, len, &ndim, shape, chunk, block, with_dtype ? &dtype : NULL,
                                    with_dtype ? &fmt : NULL);
  printf("meta len=%d rc=%d ndim=%d fmt=%d", (int)len, rc, ndim, fmt);
  for (i = 0; i < 4; i++) {
    printf(" %lld/%d/%d", (long long)shape[i], (int)chunk[i], (int)block[i]);
  }
  printf(" dtype=%s\n", with_dtype ? str(dtype) : "-");
  if (with_dtype && dtype != NULL && strcmp(dtype, "untouched") != 0) {
    free(dtype);
  }
}

static void b2nd_meta(void) {
  uint8_t meta[128];
  int32_t len = make_meta(meta);
  int32_t cut;
  for (cut = 0; cut <= len; cut++) {
    deserialize(meta, cut, 1);
  }
  deserialize(meta, len, 0);
  meta[len - 8] = 0xd9; /* not a str32 */
  deserialize(meta, len, 1);
  meta[2] = 17; /* ndim too large */
  deserialize(meta, len, 1);
  printf("meta null rc=%d\n",
         b2nd_deserialize_meta_inline(NULL, len, NULL, NULL, NULL, NULL, NULL, NULL));
}

static void metalayers(void) {
  static blosc2_schunk schunk; /* large (vlmetalayers): keep it off the stack */
  blosc2_metalayer m0, m1, m2;
  uint8_t data[3] = {7, 8, 9};
  const char *names[] = {"first", "second", "empty", "missing", "a-name-longer-than-thirty-one-chars"};
  int i;
  m0.name = (char *)"first";
  m0.content = data;
  m0.content_len = 3;
  m1.name = (char *)"second";
  m1.content = data + 1;
  m1.content_len = 2;
  m2.name = (char *)"empty";
  m2.content = NULL;
  m2.content_len = 0;
  schunk.metalayers[0] = &m0;
  schunk.metalayers[1] = &m1;
  schunk.metalayers[2] = &m2;
  schunk.nmetalayers = 3;
  for (i = 0; i < 5; i++) {
    uint8_t *content = (uint8_t *)&schunk;
    int32_t content_len = -5;
    int rc = blosc2_meta_get(&schunk, names[i], &content, &content_len);
    printf("meta_exists %s %d meta_get %d len=%d content=%s", names[i],
           blosc2_meta_exists(&schunk, names[i]), rc, (int)content_len,
           content == (uint8_t *)&schunk ? "untouched" : ptr(content));
    if (rc >= 0 && content != NULL) {
      int k;
      for (k = 0; k < content_len; k++) printf(" %d", content[k]);
      free(content);
    }
    printf("\n");
  }
  printf("meta_exists null %d\n", blosc2_meta_exists(NULL, "x"));
  printf("meta_get null %d\n", blosc2_meta_get(NULL, "x", NULL, NULL));
}

int main(void) {
  defaults();
  swaps();
  b2nd_meta();
  metalayers();
  return 0;
}
