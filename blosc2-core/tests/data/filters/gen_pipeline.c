/* Writes pipeline-3.3.5.txt: for several filter pipelines, the FNV-1a digest
 * of every block as the reference C-Blosc2 filters it before the codec.
 * Each chunk is compressed with LZ4 and no stream splitting, and its blocks
 * are decoded here with the library's own LZ4_decompress_safe, which leaves
 * exactly the filter output. src/filters/compat_tests.rs rebuilds the inputs
 * and runs the filters of this crate the way upstream's pipeline does.
 *
 * gcc gen_pipeline.c -I$REF/include -L$REF/lib -lblosc2 -Wl,-rpath,$REF/lib
 * ./a.out > pipeline-3.3.5.txt
 */
#include <blosc2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LZ4_decompress_safe(const char *src, char *dst, int srcsize, int dstcap);

static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

/* kind 0: integer ramp e*3 + (0..3) noise, byte k = byte k%8 of it;
 * kind 1: float32 e/7; kind 2: float64 e/7. All little-endian. */
static void gen(uint8_t *p, int ts, int kind, int nbytes) {
  uint64_t x = 0x9E3779B97F4A7C15ULL * (uint64_t)(ts * 31 + kind) + 1;
  for (int e = 0; e * ts < nbytes; e++) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    uint64_t r = (x * 0x2545F4914F6CDD1DULL) >> 62;
    uint8_t el[16];
    if (kind == 1) {
      float f = (float)e / 7.0f;
      memcpy(el, &f, 4);
    } else if (kind == 2) {
      double d = (double)e / 7.0;
      memcpy(el, &d, 8);
    } else {
      uint64_t v = (uint64_t)e * 3 + r;
      for (int k = 0; k < 16; k++) el[k] = (uint8_t)(v >> (8 * (k % 8)));
    }
    for (int k = 0; k < ts && e * ts + k < nbytes; k++) p[e * ts + k] = el[k % 16];
  }
}

struct cfg { int ts, kind; uint8_t f[6]; uint8_t m[6]; };

int main(void) {
  struct cfg cfgs[] = {
    {1, 0, {0, 0, 0, 0, 3, 0}, {0}},
    {2, 0, {0, 0, 0, 0, 3, 1}, {0}},
    {4, 0, {0, 0, 0, 0, 3, 1}, {0}},
    {8, 0, {0, 0, 0, 0, 3, 0}, {0}},
    {16, 0, {0, 0, 0, 0, 3, 1}, {0}},
    {24, 0, {0, 0, 0, 0, 3, 1}, {0}},
    {3, 0, {0, 0, 0, 0, 3, 2}, {0}},
    {12, 0, {0, 0, 0, 0, 3, 2}, {0}},
    {4, 1, {0, 0, 0, 4, 0, 1}, {0, 0, 0, 10, 0, 0}},
    {8, 2, {0, 0, 0, 4, 0, 2}, {0, 0, 0, (uint8_t)-30, 0, 0}},
    {4, 0, {0, 0, 0, 0, 1, 35}, {0, 0, 0, 0, 0, 4}},
    {8, 0, {0, 0, 0, 0, 1, 34}, {0, 0, 0, 0, 0, 8}},
    {8, 0, {0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 2}},
    {2, 0, {0, 0, 0, 0, 36, 1}, {0, 0, 0, 0, (uint8_t)-3, 0}},
    {4, 0, {0, 0, 0, 0, 36, 2}, {0, 0, 0, 0, 28, 0}},
    {4, 1, {0, 0, 0, 4, 3, 1}, {0, 0, 0, 12, 0, 0}},
    {1, 0, {0, 0, 0, 0, 0, 2}, {0}},
    {7, 0, {0, 0, 0, 0, 1, 35}, {0, 0, 0, 0, 0, 7}},
  };
  blosc2_init();
  printf("# ts kind nbytes effective-blocksize filters[6] metas[6] : fnv1a64 of each filtered block\n");
  for (size_t c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); c++) {
    struct cfg *g = &cfgs[c];
    int nbytes = 13288 / g->ts * g->ts;
    uint8_t *src = malloc(nbytes), *chunk = malloc(nbytes + BLOSC2_MAX_OVERHEAD);
    gen(src, g->ts, g->kind, nbytes);
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = BLOSC_LZ4;
    cp.clevel = 5;
    cp.typesize = g->ts;
    cp.nthreads = 1;
    cp.blocksize = 4096;
    cp.splitmode = BLOSC_NEVER_SPLIT;
    memcpy(cp.filters, g->f, 6);
    memcpy(cp.filters_meta, g->m, 6);
    blosc2_context *cx = blosc2_create_cctx(cp);
    int cbytes = blosc2_compress_ctx(cx, src, nbytes, chunk, nbytes + BLOSC2_MAX_OVERHEAD);
    blosc2_free_ctx(cx);
    if (cbytes <= 0 || (chunk[2] & BLOSC_MEMCPYED)) {
      fprintf(stderr, "config %zu: cbytes %d flags %x\n", c, cbytes, chunk[2]);
      return 1;
    }
    int32_t bsz;
    memcpy(&bsz, chunk + 8, 4);
    /* 3.3.5 keeps the requested blocksize in the header but cuts the blocks
       at a multiple of the typesize */
    if (bsz > g->ts) bsz = bsz / g->ts * g->ts;
    int nblocks = (nbytes + bsz - 1) / bsz;
    printf("%d %d %d %d", g->ts, g->kind, nbytes, bsz);
    for (int i = 0; i < 6; i++) printf(" %d", g->f[i]);
    for (int i = 0; i < 6; i++) printf(" %d", g->m[i]);
    printf(" :");
    uint8_t *blk = malloc(bsz);
    for (int b = 0; b < nblocks; b++) {
      int32_t start, csize;
      memcpy(&start, chunk + BLOSC_EXTENDED_HEADER_LENGTH + 4 * b, 4);
      memcpy(&csize, chunk + start, 4);
      int bs = b < nblocks - 1 ? bsz : nbytes - b * bsz;
      if (csize == bs) {
        memcpy(blk, chunk + start + 4, bs);
      } else if (csize <= 0 || LZ4_decompress_safe((char *)chunk + start + 4, (char *)blk, csize, bs) != bs) {
        fprintf(stderr, "config %zu block %d: csize %d\n", c, b, csize);
        return 1;
      }
      printf(" %016llx", (unsigned long long)fnv1a(blk, bs));
    }
    printf("\n");
    free(blk);
    free(src);
    free(chunk);
  }
  blosc2_destroy();
  return 0;
}
