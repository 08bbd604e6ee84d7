/*
 * Differential test against the reference C-Blosc2.
 *
 *   diff write DIR   compress every case of the matrix into DIR/cNNNNN.b2 and
 *                    list them in DIR/index.txt (one line per case: id, status,
 *                    return code, compressed size, parameters)
 *   diff read DIR [OWN_INDEX]
 *                    decompress every chunk listed in DIR/index.txt, check the
 *                    bytes against the data regenerated from the case number
 *                    (for truncated precision: each value truncated or intact)
 *                    and getitem on a few ranges against the full
 *                    decompression; failures on cases that the reading
 *                    library cannot round-trip itself (status selfbad in
 *                    OWN_INDEX, the index it wrote) are reported as excused
 *
 * The same source is compiled once against our libblosc2 and once against the
 * reference, and run as separate processes (the two libraries export the same
 * symbols).  c-tests/differential/compare.py then compares the two writers'
 * outputs case by case (compressed sizes, identical bytes, who refused what).
 *
 * Matrix: the full product codec x filter pipeline x splitmode x clevel
 * (5 x 8 x 4 x 6 = 960 combinations) is run DIFF_REPS times (default 2); for
 * each run of a combination the remaining parameters (typesize, size, data
 * generator, nthreads, use_dict) are drawn from a hash of the case number, so
 * the sample is deterministic and identical for both libraries.
 *
 * Environment: DIFF_REPS (repetitions of the product), DIFF_ONLY=ID (one case,
 * for debugging).  Every case runs in a forked child with a timeout, so a crash
 * costs one case, not the run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <blosc2.h>

#define FILTER_BYTEDELTA 35

static const char *codec_names[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
static const int codec_codes[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
static const char *pipe_names[] = {"none",       "shuffle",  "bitshuffle", "delta+shuffle",
                                   "trunc+shuffle", "shufmeta", "shuf+bytedelta", "bitshuffle+delta"};
static const int clevels[] = {0, 1, 3, 5, 7, 9};
static const int typesizes[] = {1, 2, 3, 4, 7, 8, 16, 33, 255, 256, 300};
static const int32_t sizes[] = {0, 1, 31, 32, 1000, 65537, (1 << 20) + 37, 3 << 20};
static const char *gen_names[] = {"ramp", "sine", "text", "random", "zeros"};

#define NCODECS 5
#define NPIPES 8
#define NSPLIT 4
#define NCLEVELS 6
#define NTYPES 11
#define NSIZES 8
#define NGENS 5
#define NCORE (NCODECS * NPIPES * NSPLIT * NCLEVELS)
#define GUARD 64
#define CASE_TIMEOUT 60

typedef struct {
  int codec, pipe, splitmode, clevel;
  int typesize, gen, nthreads, use_dict;
  int32_t nbytes;
} dcase;

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static int is_trunc(const dcase *c) { return c->pipe == 4; }

static dcase case_of(int id) {
  dcase c;
  int k = id % NCORE;
  c.clevel = clevels[k % NCLEVELS];
  k /= NCLEVELS;
  c.splitmode = 1 + k % NSPLIT;
  k /= NSPLIT;
  c.pipe = k % NPIPES;
  k /= NPIPES;
  c.codec = k;
  uint64_t s = 0xd1ffULL * 1000003ULL + (uint64_t)id;
  uint64_t h = splitmix(&s);
  c.typesize = typesizes[h % NTYPES];
  /* Truncation is defined for floats and doubles only; other typesizes are
   * still tried now and then to see that both libraries refuse them. */
  if (is_trunc(&c) && (h >> 40) % 4 != 0) c.typesize = ((h >> 42) & 1) ? 8 : 4;
  c.nbytes = sizes[(h >> 8) % NSIZES];
  c.gen = (int)((h >> 16) % NGENS);
  c.nthreads = 1 + (int)((h >> 24) & 1);
  /* DIFF_NTHREADS overrides the thread count (the name keeps the drawn one),
   * for run.sh to ask the reference what it writes with one thread. */
  const char *nt = getenv("DIFF_NTHREADS");
  if (nt && *nt) c.nthreads = atoi(nt);
  int dict_codec = codec_codes[c.codec] == BLOSC_LZ4 || codec_codes[c.codec] == BLOSC_LZ4HC ||
                   codec_codes[c.codec] == BLOSC_ZSTD;
  c.use_dict = dict_codec && (h >> 28) % 3 == 0;
  /* Whole items for truncation, so the expectation is simple to state. */
  if (is_trunc(&c)) c.nbytes -= c.nbytes % c.typesize;
  return c;
}

static void describe(char *out, size_t n, int id, const dcase *c) {
  snprintf(out, n, "c%05d-%s-%s-split%d-cl%d-ts%d-n%ld-%s-t%d%s", id, codec_names[c->codec],
           pipe_names[c->pipe], c->splitmode, c->clevel, c->typesize, (long)c->nbytes,
           gen_names[c->gen], c->nthreads, c->use_dict ? "-dict" : "");
}

static const char *words[] = {"the ", "blosc ", "chunk ", "of ", "data ", "compressed ", "and ",
                              "a ", "filter ", "shuffle\n", "zstd ", "lz4, ", "block. ", "x", "\t"};

static void fill(uint8_t *buf, int id, const dcase *c) {
  uint64_t s = 0x5eed0000ULL + (uint64_t)id;
  int32_t ts = c->typesize, n = c->nbytes;
  switch (c->gen) {
    case 0: /* noisy ramp: item counter plus small noise, little endian */
      for (int32_t i = 0; i < n; i++) {
        int32_t item = i / ts, byte = i % ts;
        uint64_t v = (uint64_t)item * 3 + (splitmix(&s) & 3);
        buf[i] = (uint8_t)(v >> (8 * (byte % 8)));
      }
      break;
    case 1: { /* float sine: doubles for typesize 8, floats otherwise */
      int32_t i = 0, k = 0;
      while (i < n) {
        uint8_t tmp[8];
        int w;
        double x = 1000.0 * sin(k * 0.01) + (double)(splitmix(&s) % 1000) * 1e-4;
        if (ts == 8) {
          memcpy(tmp, &x, 8);
          w = 8;
        } else {
          float f = (float)x;
          memcpy(tmp, &f, 4);
          w = 4;
        }
        for (int j = 0; j < w && i < n; j++) buf[i++] = tmp[j];
        k++;
      }
      break;
    }
    case 2: { /* text-like: words from a small vocabulary */
      int32_t i = 0;
      while (i < n) {
        const char *w = words[splitmix(&s) % (sizeof words / sizeof words[0])];
        for (; *w && i < n; w++) buf[i++] = (uint8_t)*w;
      }
      break;
    }
    case 3: /* white noise: the incompressible path */
      for (int32_t i = 0; i < n; i++) buf[i] = (uint8_t)splitmix(&s);
      break;
    default: /* mostly zeros with sparse noise */
      memset(buf, 0, (size_t)n);
      for (int32_t i = 0; i < n; i += 1 + (int32_t)(splitmix(&s) % 200)) buf[i] = (uint8_t)splitmix(&s);
      break;
  }
}

static int8_t trunc_bits(const dcase *c) { return c->typesize == 8 ? 20 : 10; }

/* Whether `got` is what truncated precision may leave of `orig`: every
 * float/double either has its low mantissa bits cleared or is untouched, as
 * blocks (or whole chunks) that the codec cannot shrink are stored unfiltered. */
static int trunc_matches(const uint8_t *orig, const uint8_t *got, const dcase *c) {
  if (c->typesize == 4) {
    uint32_t mask = ~((1u << (23 - trunc_bits(c))) - 1u);
    for (int32_t i = 0; i + 4 <= c->nbytes; i += 4) {
      uint32_t a, b;
      memcpy(&a, orig + i, 4);
      memcpy(&b, got + i, 4);
      if (b != a && b != (a & mask)) return 0;
    }
    return 1;
  }
  if (c->typesize == 8) {
    uint64_t mask = ~((1ULL << (52 - trunc_bits(c))) - 1ULL);
    for (int32_t i = 0; i + 8 <= c->nbytes; i += 8) {
      uint64_t a, b;
      memcpy(&a, orig + i, 8);
      memcpy(&b, got + i, 8);
      if (b != a && b != (a & mask)) return 0;
    }
    return 1;
  }
  return c->nbytes == 0 || memcmp(orig, got, (size_t)c->nbytes) == 0;
}

/* The decompressed bytes are right for this case. */
static int data_matches(const uint8_t *orig, const uint8_t *got, const dcase *c) {
  if (is_trunc(c)) return trunc_matches(orig, got, c);
  return c->nbytes == 0 || memcmp(orig, got, (size_t)c->nbytes) == 0;
}

static blosc2_cparams cparams_of(const dcase *c) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec_codes[c->codec];
  cp.clevel = (uint8_t)c->clevel;
  cp.typesize = c->typesize;
  cp.nthreads = (int16_t)c->nthreads;
  cp.splitmode = c->splitmode;
  cp.use_dict = c->use_dict;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) {
    cp.filters[i] = 0;
    cp.filters_meta[i] = 0;
  }
  const int L = BLOSC2_MAX_FILTERS - 1;
  switch (c->pipe) {
    case 1: cp.filters[L] = BLOSC_SHUFFLE; break;
    case 2: cp.filters[L] = BLOSC_BITSHUFFLE; break;
    case 3:
      cp.filters[L - 1] = BLOSC_DELTA;
      cp.filters[L] = BLOSC_SHUFFLE;
      break;
    case 4:
      cp.filters[L - 1] = BLOSC_TRUNC_PREC;
      cp.filters_meta[L - 1] = (uint8_t)trunc_bits(c);
      cp.filters[L] = BLOSC_SHUFFLE;
      break;
    case 5: /* shuffle in groups other than the typesize */
      cp.filters[L] = BLOSC_SHUFFLE;
      cp.filters_meta[L] = (uint8_t)(c->typesize % 2 == 0 ? c->typesize / 2 : 4);
      break;
    case 6:
      cp.filters[L - 1] = BLOSC_SHUFFLE;
      cp.filters[L] = FILTER_BYTEDELTA;
      cp.filters_meta[L] = (uint8_t)(c->typesize <= 255 ? c->typesize : 4);
      break;
    case 7:
      cp.filters[L - 1] = BLOSC_BITSHUFFLE;
      cp.filters[L] = BLOSC_DELTA;
      break;
    default: break;
  }
  return cp;
}

static uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

enum { OK = 0, E_COMPRESS = 10, E_SELFCHECK = 11, E_IO = 12, E_SIZES = 20, E_DECOMPRESS = 21,
       E_MISMATCH = 22, E_GUARD = 23, E_GETITEM = 24, E_GETITEM_DELTA = 25, E_MT_DELTA = 26,
       E_OOM = 30 };

static const char *reason(int code) {
  switch (code) {
    case E_COMPRESS: return "compress failed";
    case E_SELFCHECK: return "writer cannot decompress its own chunk";
    case E_IO: return "file i/o";
    case E_SIZES: return "blosc2_cbuffer_sizes disagrees";
    case E_DECOMPRESS: return "decompress returned an error or wrong size";
    case E_MISMATCH: return "decompressed bytes differ";
    case E_GUARD: return "wrote past destsize";
    case E_GETITEM: return "getitem returned wrong bytes";
    case E_GETITEM_DELTA: return "getitem returned wrong bytes (delta pipeline)";
    case E_MT_DELTA: return "multi-threaded decompression wrong, single-threaded right (delta pipeline)";
    case E_OOM: return "out of memory";
    default: return "unknown";
  }
}

/* The child writes "rc cbytes hash" for the index through this pipe. */
static int result_fd = -1;

static int write_case(const char *dir, int id) {
  dcase c = case_of(id);
  uint8_t *src = malloc((size_t)c.nbytes + 1);
  int32_t cap = c.nbytes + BLOSC2_MAX_OVERHEAD;
  uint8_t *dst = malloc((size_t)cap);
  uint8_t *back = malloc((size_t)c.nbytes + 1);
  if (!src || !dst || !back) return E_OOM;
  fill(src, id, &c);
  blosc2_cparams cp = cparams_of(&c);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int cbytes = cctx ? blosc2_compress_ctx(cctx, src, c.nbytes, dst, cap) : -9999;
  if (cctx) blosc2_free_ctx(cctx);
  char line[128];
  if (cbytes <= 0) {
    snprintf(line, sizeof line, "%d 0 0\n", cbytes);
    if (write(result_fd, line, strlen(line)) < 0) return E_IO;
    return E_COMPRESS;
  }
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)c.nthreads;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  if (!dctx) return E_SELFCHECK;
  int n = blosc2_decompress_ctx(dctx, dst, cbytes, back, c.nbytes);
  blosc2_free_ctx(dctx);
  snprintf(line, sizeof line, "%d %d %016llx\n", cbytes, cbytes,
           (unsigned long long)fnv1a(back, n > 0 ? (size_t)n : 0));
  if (write(result_fd, line, strlen(line)) < 0) return E_IO;
  /* Kept even when the writer cannot read it back, for the post-mortem. */
  char path[4096];
  snprintf(path, sizeof path, "%s/c%05d.b2", dir, id);
  FILE *f = fopen(path, "wb");
  if (!f) return E_IO;
  if (fwrite(dst, 1, (size_t)cbytes, f) != (size_t)cbytes) return E_IO;
  if (fclose(f) != 0) return E_IO;
  if (n != c.nbytes || !data_matches(src, back, &c)) {
    int32_t at = 0;
    while (n == c.nbytes && at < n && src[at] == back[at]) at++;
    printf("writer: selfcheck c%05d: decompress returned %d of %ld, first difference at %ld, flags 0x%02x\n",
           id, n, (long)c.nbytes, (long)at, dst[2]);
    return E_SELFCHECK;
  }
  free(src);
  free(dst);
  free(back);
  return OK;
}

static int read_case(const char *dir, int id) {
  dcase c = case_of(id);
  char path[4096];
  snprintf(path, sizeof path, "%s/c%05d.b2", dir, id);
  FILE *f = fopen(path, "rb");
  if (!f) return E_IO;
  fseek(f, 0, SEEK_END);
  long clen = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *chunk = malloc((size_t)clen + 1);
  uint8_t *want = malloc((size_t)c.nbytes + 1);
  uint8_t *got = malloc((size_t)c.nbytes + GUARD);
  uint8_t *item = malloc((size_t)c.nbytes + GUARD);
  if (!chunk || !want || !got || !item) return E_OOM;
  if (fread(chunk, 1, (size_t)clen, f) != (size_t)clen) return E_IO;
  fclose(f);
  fill(want, id, &c);

  int32_t nbytes = -1, cbytes = -1, blocksize = -1;
  if (blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, &blocksize) < 0 || nbytes != c.nbytes ||
      cbytes != (int32_t)clen)
    return E_SIZES;

  memset(got, 0xA5, (size_t)c.nbytes + GUARD);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)c.nthreads;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  if (!dctx) return E_DECOMPRESS;
  int n = blosc2_decompress_ctx(dctx, chunk, (int32_t)clen, got, c.nbytes);
  int delta = c.pipe == 3 || c.pipe == 7;
  if (delta && c.nthreads > 1 && (n != c.nbytes || !data_matches(want, got, &c))) {
    /* Told apart because the reference's threads race on the first block,
     * which delta decoding of every later block reads. */
    blosc2_dparams dp1 = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_context *d1 = blosc2_create_dctx(dp1);
    if (!d1) return E_DECOMPRESS;
    n = blosc2_decompress_ctx(d1, chunk, (int32_t)clen, got, c.nbytes);
    blosc2_free_ctx(d1);
    if (n == c.nbytes && data_matches(want, got, &c)) return E_MT_DELTA;
  }
  if (n != c.nbytes) return E_DECOMPRESS;
  if (!data_matches(want, got, &c)) return E_MISMATCH;
  for (int i = 0; i < GUARD; i++)
    if (got[c.nbytes + i] != 0xA5) return E_GUARD;

  /* getitem counts in the typesize stored in the header (1 for wide types):
   * the first items, a range across the first block boundary, the tail. */
  int32_t ts = chunk[3] ? chunk[3] : 1;
  int32_t nitems = c.nbytes / ts;
  int32_t bitems = blocksize / ts;
  int32_t starts[3] = {0, bitems - 3, nitems - 5};
  int rc = OK;
  for (int r = 0; r < 3 && rc == OK; r++) {
    int32_t start = starts[r] < 0 ? 0 : starts[r];
    int32_t count = nitems - start < 7 ? nitems - start : 7;
    if (count <= 0) continue;
    n = blosc2_getitem_ctx(dctx, chunk, (int32_t)clen, start, count, item, count * ts);
    if (n != count * ts || memcmp(item, got + (size_t)start * ts, (size_t)count * ts) != 0)
      /* The delta pipelines are told apart: the reference's getitem is
       * known to be wrong past the first block there. */
      rc = delta ? E_GETITEM_DELTA : E_GETITEM;
  }
  blosc2_free_ctx(dctx);
  free(chunk);
  free(want);
  free(got);
  free(item);
  return rc;
}

static int run_forked(int (*fn)(const char *, int), const char *dir, int id, char *res, size_t reslen) {
  fflush(stdout);
  int fds[2];
  if (pipe(fds) != 0) return E_IO;
  pid_t pid = fork();
  if (pid < 0) return E_IO;
  if (pid == 0) {
    close(fds[0]);
    result_fd = fds[1];
    alarm(CASE_TIMEOUT);
    int rc = fn(dir, id);
    fflush(stdout);
    _exit(rc);
  }
  close(fds[1]);
  size_t got = 0;
  ssize_t r;
  while (got + 1 < reslen && ((r = read(fds[0], res + got, reslen - 1 - got)) > 0 || (r < 0 && errno == EINTR)))
    if (r > 0) got += (size_t)r;
  res[got] = 0;
  close(fds[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 100 + WTERMSIG(st);
  return 99;
}

static int print_lib(struct dl_phdr_info *obj, size_t size, void *unused) {
  (void)size;
  (void)unused;
  if (obj->dlpi_name && strstr(obj->dlpi_name, "libblosc2")) {
    char *real = realpath(obj->dlpi_name, NULL);
    printf("library: %s\n", real ? real : obj->dlpi_name);
    free(real);
  }
  return 0;
}

/* CPU seconds of the finished case children: the machine may be shared, so
 * wall time alone says little about the cost of a run. */
static double children_cpu(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_CHILDREN, &ru) != 0) return -1;
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static int ncases(void) {
  const char *r = getenv("DIFF_REPS");
  int reps = r && *r ? atoi(r) : 2;
  return (reps < 1 ? 1 : reps) * NCORE;
}

static int selected(int id) {
  const char *o = getenv("DIFF_ONLY");
  return !(o && *o) || atoi(o) == id;
}

static int do_write(const char *dir) {
  char path[4096];
  mkdir(dir, 0755);
  snprintf(path, sizeof path, "%s/index.txt", dir);
  FILE *idx = fopen(path, "w");
  if (!idx) {
    perror(path);
    return 2;
  }
  blosc2_init();
  fprintf(idx,
          "# writer %s\n# data: generator from the name, seed 0x5eed0000 + id (diff.c fill)\n"
          "# id status rc cbytes hash-of-own-decompression name\n",
          blosc2_get_version_string());
  int written = 0, refused = 0, bad = 0;
  time_t t0 = time(NULL);
  for (int id = 0; id < ncases(); id++) {
    if (!selected(id)) continue;
    dcase c = case_of(id);
    char name[160], res[128] = "";
    describe(name, sizeof name, id, &c);
    int rc = run_forked(write_case, dir, id, res, sizeof res);
    long crc = 0, cbytes = 0;
    char hash[32] = "0";
    sscanf(res, "%ld %ld %31s", &crc, &cbytes, hash);
    if (rc == OK) {
      written++;
      fprintf(idx, "%d ok %ld %ld %s %s\n", id, crc, cbytes, hash, name);
    } else if (rc == E_COMPRESS) {
      refused++;
      fprintf(idx, "%d refused %ld 0 0 %s\n", id, crc, name);
    } else if (rc == E_SELFCHECK) {
      bad++;
      fprintf(idx, "%d selfbad %ld %ld %s %s\n", id, crc, cbytes, hash, name);
      printf("writer: %s: %s\n", name, reason(rc));
    } else {
      bad++;
      fprintf(idx, "%d bad %d 0 0 %s\n", id, rc, name);
      if (rc >= 100)
        printf("writer: %s: crashed (signal %d)\n", name, rc - 100);
      else
        printf("writer: %s: %s\n", name, reason(rc));
    }
  }
  fclose(idx);
  blosc2_destroy();
  printf("writer: %d written, %d refused by compress, %d failed, %lds, cpu %.1fs\n", written,
         refused, bad, (long)(time(NULL) - t0), children_cpu());
  /* Whether a failure counts is for compare.py to say (it knows which writer
   * is the reference); only an empty run is an error here. */
  return written > 0 ? 0 : 1;
}

/* Ids the reading library could not round-trip as a writer (status selfbad in
 * its own index): its failures to read another writer's chunk for them are an
 * upstream bug of the reader, reported but not counted. */
static unsigned char *load_selfbad(const char *own_index) {
  unsigned char *bad = calloc((size_t)ncases(), 1);
  FILE *f = own_index ? fopen(own_index, "r") : NULL;
  char line[512];
  while (bad && f && fgets(line, sizeof line, f)) {
    int id;
    char status[16];
    if (sscanf(line, "%d %15s", &id, status) == 2 && id >= 0 && id < ncases() &&
        strcmp(status, "selfbad") == 0)
      bad[id] = 1;
  }
  if (f) fclose(f);
  return bad;
}

static int do_read(const char *dir, const char *own_index) {
  char path[4096];
  snprintf(path, sizeof path, "%s/index.txt", dir);
  FILE *idx = fopen(path, "r");
  if (!idx) {
    perror(path);
    return 2;
  }
  blosc2_init();
  unsigned char *own_bad = load_selfbad(own_index);
  if (!own_bad) return 2;
  int passed = 0, failed = 0, delta_getitem = 0, mt_delta = 0, excused = 0;
  time_t t0 = time(NULL);
  char line[512];
  while (fgets(line, sizeof line, idx)) {
    int id;
    char status[16];
    if (line[0] == '#' || sscanf(line, "%d %15s", &id, status) != 2) continue;
    if (strcmp(status, "ok") != 0 || !selected(id)) continue;
    dcase c = case_of(id);
    char name[160], res[8];
    describe(name, sizeof name, id, &c);
    int rc = run_forked(read_case, dir, id, res, sizeof res);
    if (rc == OK) {
      passed++;
    } else if (rc == E_GETITEM_DELTA || rc == E_MT_DELTA) {
      passed++;
      if (rc == E_GETITEM_DELTA)
        delta_getitem++;
      else
        mt_delta++;
      printf("reader: note %s: %s\n", name, reason(rc));
    } else {
      const char *what = own_bad[id] ? "excused (the reader fails on its own chunk too)" : "FAIL";
      if (own_bad[id])
        excused++;
      else
        failed++;
      if (rc >= 100)
        printf("reader: %s %s: crashed (signal %d)\n", what, name, rc - 100);
      else
        printf("reader: %s %s: %s\n", what, name, reason(rc));
    }
  }
  fclose(idx);
  blosc2_destroy();
  free(own_bad);
  printf("reader %s: %d decoded, %d failed, %d excused, %d delta getitem mismatches, "
         "%d delta multi-thread mismatches, %lds, cpu %.1fs\n",
         blosc2_get_version_string(), passed, failed, excused, delta_getitem, mt_delta,
         (long)(time(NULL) - t0), children_cpu());
  return failed == 0 && passed > 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  int wr = argc == 3 && strcmp(argv[1], "write") == 0;
  int rd = (argc == 3 || argc == 4) && strcmp(argv[1], "read") == 0;
  if (!wr && !rd) {
    fprintf(stderr, "usage: %s write DIR | read DIR [OWN_INDEX]\n", argv[0]);
    return 2;
  }
  dl_iterate_phdr(print_lib, NULL);
  return wr ? do_write(argv[2]) : do_read(argv[2], argc == 4 ? argv[3] : NULL);
}
