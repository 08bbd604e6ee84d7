/*
 * Mutation sweep against the reference (issue #29, item 5): the same source
 * is built against our libblosc2 and against C-Blosc2 3.3.5, and each binary
 * reads the same mutants in forked children (the reference may crash).
 * c-tests/mutants/run.sh drives it and classify.py compares the two.
 *
 *   mutants gen DIR              write small frames, b2nd arrays and chunks
 *   mutants run KIND FILE [N]    every mutant of FILE (bytes zeroed, set to
 *                                0xff, bit 0 or bit 7 flipped, runs of 2, 4
 *                                and 8 bytes zeroed or set; every truncation)
 *                                of its first N bytes, one line each:
 *                                "<mutation>\t<OK m=<meta hash> d=<data hash>
 *                                | ERR <stage> <rc> | CRASH <how>>"
 *   mutants one KIND FILE        read FILE once, in this process
 *
 * KIND: frame (blosc2_schunk_from_buffer), ffile (blosc2_schunk_open),
 * b2nd (b2nd_from_cframe), bfile (b2nd_open), chunk (blosc2_decompress).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <signal.h>
#include <fcntl.h>
#include <blosc2.h>
#include <b2nd.h>

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 1099511628211ULL; }
  return h;
}
static void wfile(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb"); fwrite(p, 1, n, f); fclose(f);
}
static uint8_t *rfile(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb"); if (!f) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END); *n = ftell(f); fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(*n + 1); if (fread(b, 1, *n, f) != *n) exit(2); fclose(f); return b;
}

static int gen(const char *dir) {
  char p[512];
  /* frame A: 3 chunks lz4+shuffle ts4, one metalayer, two vlmetalayers */
  {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4; cp.compcode = BLOSC_LZ4; cp.clevel = 5;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
    blosc2_schunk *s = blosc2_schunk_new(&st);
    uint8_t meta[7] = {1, 2, 3, 4, 5, 6, 7};
    blosc2_meta_add(s, "m1", meta, 7);
    int32_t d[256];
    for (int c = 0; c < 3; c++) { for (int i = 0; i < 256; i++) d[i] = c * 1000 + i * (i % 7); blosc2_schunk_append_buffer(s, d, sizeof d); }
    blosc2_vlmeta_add(s, "vla", (uint8_t *)"hello vl", 8, NULL);
    blosc2_vlmeta_add(s, "vlb", (uint8_t *)"second one", 10, NULL);
    uint8_t *buf; bool nf; int64_t n = blosc2_schunk_to_buffer(s, &buf, &nf);
    snprintf(p, sizeof p, "%s/frameA.b2frame", dir); wfile(p, buf, n);
    if (nf) { free(buf); } blosc2_schunk_free(s);
  }
  /* frame B: blosclz, no metas, a short last chunk, one zeros chunk */
  {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 8; cp.compcode = BLOSC_BLOSCLZ; cp.clevel = 9;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
    blosc2_schunk *s = blosc2_schunk_new(&st);
    int64_t d[128];
    for (int i = 0; i < 128; i++) d[i] = i * 3;
    blosc2_schunk_append_buffer(s, d, sizeof d);
    uint8_t z[BLOSC_EXTENDED_HEADER_LENGTH];
    blosc2_chunk_zeros(cp, sizeof d, z, sizeof z);
    blosc2_schunk_append_chunk(s, z, true);
    blosc2_schunk_append_buffer(s, d, 40 * 8);
    uint8_t *buf; bool nf; int64_t n = blosc2_schunk_to_buffer(s, &buf, &nf);
    snprintf(p, sizeof p, "%s/frameB.b2frame", dir); wfile(p, buf, n);
    if (nf) { free(buf); } blosc2_schunk_free(s);
  }
  /* b2nd arrays */
  for (int k = 0; k < 2; k++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4; cp.compcode = k ? BLOSC_ZSTD : BLOSC_LZ4;
    blosc2_storage st = {.contiguous = true, .cparams = &cp};
    int64_t shape2[2] = {10, 12}; int32_t cs2[2] = {4, 6}; int32_t bs2[2] = {2, 3};
    int64_t shape3[3] = {5, 4, 3}; int32_t cs3[3] = {3, 4, 2}; int32_t bs3[3] = {2, 2, 2};
    uint8_t um[3] = {9, 8, 7}; blosc2_metalayer ml = {.name = "user", .content = um, .content_len = 3};
    b2nd_context_t *ctx = k ? b2nd_create_ctx(&st, 3, shape3, cs3, bs3, "<i4", DTYPE_NUMPY_FORMAT, &ml, 1)
                            : b2nd_create_ctx(&st, 2, shape2, cs2, bs2, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
    int32_t d[120]; for (int i = 0; i < 120; i++) d[i] = i * i;
    b2nd_array_t *a; int rc = b2nd_from_cbuffer(ctx, &a, d, k ? 60 * 4 : 120 * 4);
    if (rc < 0) { fprintf(stderr, "b2nd_from_cbuffer %d\n", rc); return 1; }
    uint8_t *buf; int64_t n; bool nf; b2nd_to_cframe(a, &buf, &n, &nf);
    snprintf(p, sizeof p, "%s/array%c.b2nd", dir, 'A' + k); wfile(p, buf, n);
    if (nf) { free(buf); } b2nd_free(a); b2nd_free_ctx(ctx);
  }
  /* chunks: memcpyed, compressed, repeatval */
  {
    uint8_t src[400], dst[400 + BLOSC2_MAX_OVERHEAD];
    for (int i = 0; i < 400; i++) src[i] = (uint8_t)(i * 7 + (i >> 3));
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS; cp.typesize = 4; cp.clevel = 0;
    blosc2_context *c = blosc2_create_cctx(cp);
    int n = blosc2_compress_ctx(c, src, 400, dst, sizeof dst);
    snprintf(p, sizeof p, "%s/chunkA.cdata", dir); wfile(p, dst, n); blosc2_free_ctx(c);
    for (int i = 0; i < 400; i++) src[i] = (uint8_t)(i / 10);
    cp.clevel = 5; cp.compcode = BLOSC_LZ4; c = blosc2_create_cctx(cp);
    n = blosc2_compress_ctx(c, src, 400, dst, sizeof dst);
    snprintf(p, sizeof p, "%s/chunkB.cdata", dir); wfile(p, dst, n); blosc2_free_ctx(c);
    int32_t v = 0x01020304;
    n = blosc2_chunk_repeatval(cp, 400, dst, sizeof dst, &v);
    snprintf(p, sizeof p, "%s/chunkC.cdata", dir); wfile(p, dst, n);
  }
  return 0;
}

#define BIG (1 << 22)
static uint8_t *dest;

/* read the whole thing, write "OK m=.. d=.." or "ERR stage rc" into out */
static void readit(const char *kind, uint8_t *b, size_t n, char *out, size_t outn) {
  uint64_t hm = 1469598103934665603ULL, hd = hm;
  if (!strcmp(kind, "chunk")) {
    int rc = blosc2_decompress(b, (int32_t)n, dest, BIG);
    if (rc < 0) { snprintf(out, outn, "ERR decompress %d", rc); return; }
    hd = fnv(hd, dest, rc);
    snprintf(out, outn, "OK m=- d=%016llx", (unsigned long long)hd); return;
  }
  blosc2_schunk *s = NULL; b2nd_array_t *a = NULL;
  int isfile = !strcmp(kind, "ffile") || !strcmp(kind, "bfile");
  char path[512];
  if (isfile) { snprintf(path, sizeof path, "%s/mutant.%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", getpid()); wfile(path, b, n); }
  if (!strcmp(kind, "frame") || !strcmp(kind, "ffile")) {
    s = isfile ? blosc2_schunk_open(path) : blosc2_schunk_from_buffer(b, (int64_t)n, true);
    if (isfile) unlink(path);
    if (!s) { snprintf(out, outn, "ERR open NULL"); return; }
  } else {
    int rc = isfile ? b2nd_open(path, &a) : b2nd_from_cframe(b, (int64_t)n, true, &a);
    if (isfile) unlink(path);
    if (rc < 0 || !a) { snprintf(out, outn, "ERR open %d", rc); return; }
    s = a->sc;
    hm = fnv(hm, &a->ndim, sizeof a->ndim);
    hm = fnv(hm, a->shape, a->ndim * 8); hm = fnv(hm, a->chunkshape, a->ndim * 4);
    hm = fnv(hm, a->blockshape, a->ndim * 4);
    if (a->dtype) hm = fnv(hm, a->dtype, strlen(a->dtype));
    int64_t sz = a->sc->typesize; for (int i = 0; i < a->ndim; i++) sz *= a->shape[i];
    if (sz > BIG || sz < 0) { snprintf(out, outn, "ERR size %lld", (long long)sz); return; }
    rc = b2nd_to_cbuffer(a, dest, sz);
    if (rc < 0) { snprintf(out, outn, "ERR to_cbuffer %d", rc); return; }
    hd = fnv(hd, dest, sz);
  }
  hm = fnv(hm, &s->typesize, 4); hm = fnv(hm, &s->nbytes, 8); hm = fnv(hm, &s->nchunks, 8);
  for (int i = 0; i < s->nmetalayers; i++) {
    blosc2_metalayer *m = s->metalayers[i];
    hm = fnv(hm, m->name, strlen(m->name)); hm = fnv(hm, m->content, m->content_len);
  }
  for (int i = 0; i < s->nvlmetalayers; i++) {
    blosc2_metalayer *m = s->vlmetalayers[i];
    uint8_t *c; int32_t cl;
    int rc = blosc2_vlmeta_get(s, m->name, &c, &cl);
    if (rc < 0) { snprintf(out, outn, "ERR vlmeta %d", rc); return; }
    hm = fnv(hm, m->name, strlen(m->name)); hm = fnv(hm, c, cl); free(c);
  }
  if (!a) {
    for (int64_t i = 0; i < s->nchunks; i++) {
      int rc = blosc2_schunk_decompress_chunk(s, i, dest, BIG);
      if (rc < 0) { snprintf(out, outn, "ERR chunk%lld %d", (long long)i, rc); return; }
      hd = fnv(hd, dest, rc);
    }
  }
  snprintf(out, outn, "OK m=%016llx d=%016llx", (unsigned long long)hm, (unsigned long long)hd);
}

static void one(const char *kind, uint8_t *b, size_t n, const char *desc) {
  int fd[2]; if (pipe(fd)) exit(2);
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]); alarm(10); { int dn = open("/dev/null", O_WRONLY); dup2(dn, 2); }
    char out[256]; readit(kind, b, n, out, sizeof out);
    if (write(fd[1], out, strlen(out)) < 0) _exit(3);
    _exit(0);
  }
  close(fd[1]);
  char out[256]; ssize_t k = 0, r;
  while ((r = read(fd[0], out + k, sizeof out - 1 - k)) > 0) k += r;
  out[k] = 0; close(fd[0]);
  int st; waitpid(pid, &st, 0);
  if (WIFSIGNALED(st)) snprintf(out, sizeof out, "CRASH sig%d", WTERMSIG(st));
  else if (k == 0) snprintf(out, sizeof out, "CRASH exit%d", WEXITSTATUS(st));
  printf("%s\t%s\n", desc, out); fflush(stdout);
}

int main(int argc, char **argv) {
  blosc2_init();
  if (argc == 3 && !strcmp(argv[1], "gen")) return gen(argv[2]);
  if (argc == 4 && !strcmp(argv[1], "one")) {
    size_t n; uint8_t *b = rfile(argv[3], &n); dest = malloc(BIG); char out[256];
    readit(argv[2], b, n, out, sizeof out); printf("%s\n", out); return 0;
  }
  if (argc < 4) return 2;
  const char *kind = argv[2]; size_t n; uint8_t *orig = rfile(argv[3], &n);
  dest = malloc(BIG);
  uint8_t *m = malloc(n + 16);
  char desc[64];
  int limit = argc > 4 ? atoi(argv[4]) : (int)n;   /* mutate only the first `limit` bytes */
  one(kind, orig, n, "orig");
  static const int runs[] = {1, 2, 4, 8};
  for (int i = 0; i < (int)n && i < limit; i++) {
    for (int r = 0; r < 4; r++) {
      int len = runs[r]; if (i + len > (int)n) continue;
      for (int op = 0; op < (len == 1 ? 4 : 2); op++) {
        memcpy(m, orig, n);
        for (int j = i; j < i + len; j++) m[j] = op == 0 ? 0 : op == 1 ? 0xff : op == 2 ? m[j] ^ 1 : m[j] ^ 0x80;
        if (!memcmp(m, orig, n)) continue;
        snprintf(desc, sizeof desc, "%s@%d+%d", op == 0 ? "zero" : op == 1 ? "ff" : op == 2 ? "x01" : "x80", i, len);
        one(kind, m, n, desc);
      }
    }
  }
  for (size_t t = 0; t < n; t++) { snprintf(desc, sizeof desc, "trunc%zu", t); one(kind, orig, t, desc); }
  return 0;
}
