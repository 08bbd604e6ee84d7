/*
 * Cross-library chunk round trip.
 *
 *   roundtrip write DIR   compress a parameter matrix into DIR (one file per case
 *                         plus DIR/index.txt)
 *   roundtrip read DIR [OWN_INDEX]
 *                         decompress every file of DIR and compare with the data
 *                         regenerated from the case number; cases marked "skip"
 *                         in OWN_INDEX (the index.txt this reader's library wrote
 *                         as a writer) are not held against the writer: the
 *                         reading library cannot round-trip them itself
 *
 * The same source is compiled once against the writing library and once against
 * the reading one, so "reference writes, ours reads" and "ours writes, reference
 * reads" are the same test with the roles swapped.  Only API present in both
 * C-Blosc2 2.x and 3.x is used, so it also builds against 2.22.1.
 *
 * Every case runs in a forked child: a crash or hang in the library under test
 * costs one case, not the whole run.
 *
 * Matrix: codec {blosclz, lz4, lz4hc, zlib, zstd} x filter {noshuffle, shuffle,
 * bitshuffle, delta(+shuffle)} x typesize {1, 2, 4, 8} x clevel {0, 5, 9} x
 * nbytes {0, 7, 12347, 1 MiB}.  ROUNDTRIP_QUICK=1 in the environment keeps only
 * every 7th case (for quick local runs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <blosc2.h>

static const char *codec_names[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};
static const int codec_codes[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
static const char *filter_names[] = {"noshuffle", "shuffle", "bitshuffle", "delta"};
static const int typesizes[] = {1, 2, 4, 8};
static const int clevels[] = {0, 5, 9};
static const int32_t sizes[] = {0, 7, 12347, 1 << 20};

#define NCODECS 5
#define NFILTERS 4
#define NTYPES 4
#define NCLEVELS 3
#define NSIZES 4
#define NCASES (NCODECS * NFILTERS * NTYPES * NCLEVELS * NSIZES)
#define GUARD 64
#define CASE_TIMEOUT 20
/* Whole-run budget, so a library that hangs on every case cannot stall CI. */
#define RUN_BUDGET 600

typedef struct {
  int codec, filter, typesize, clevel;
  int32_t nbytes;
  int nthreads;
} rt_case;

static rt_case case_of(int id) {
  rt_case c;
  int k = id;
  c.nbytes = sizes[k % NSIZES];
  k /= NSIZES;
  c.clevel = clevels[k % NCLEVELS];
  k /= NCLEVELS;
  c.typesize = typesizes[k % NTYPES];
  k /= NTYPES;
  c.filter = k % NFILTERS;
  k /= NFILTERS;
  c.codec = k;
  /* Large chunks at clevel 5 also go through the multi-threaded path. */
  c.nthreads = (c.nbytes >= (1 << 20) && c.clevel == 5) ? 2 : 1;
  return c;
}

static uint64_t splitmix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* Deterministic content per case: a noisy ramp (compresses well after
 * shuffle/delta), long runs, or white noise (hits the incompressible path). */
static void fill(uint8_t *buf, int id, const rt_case *c) {
  uint64_t s = 0x5eed0000ULL + (uint64_t)id;
  int kind = id % 3;
  int32_t ts = c->typesize;
  for (int32_t i = 0; i < c->nbytes; i++) {
    if (kind == 2) {
      buf[i] = (uint8_t)splitmix(&s);
    } else if (kind == 1) {
      buf[i] = (uint8_t)((i / 997) * 31 + (i % ts));
    } else {
      int32_t item = i / ts, byte = i % ts;
      uint64_t v = (uint64_t)item * 3 + (splitmix(&s) & 3);
      buf[i] = (uint8_t)(v >> (8 * (byte % 8)));
    }
  }
}

static blosc2_cparams cparams_of(const rt_case *c) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec_codes[c->codec];
  cp.clevel = (uint8_t)c->clevel;
  cp.typesize = c->typesize;
  cp.nthreads = (int16_t)c->nthreads;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) {
    cp.filters[i] = 0;
    cp.filters_meta[i] = 0;
  }
  switch (c->filter) {
    case 1: cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE; break;
    case 2: cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_BITSHUFFLE; break;
    case 3:
      cp.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
      cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
      break;
    default: break;
  }
  return cp;
}

static void describe(char *out, size_t n, int id, const rt_case *c) {
  snprintf(out, n, "c%04d-%s-%s-ts%d-cl%d-n%ld", id, codec_names[c->codec],
           filter_names[c->filter], c->typesize, c->clevel, (long)c->nbytes);
}

/* Child exit codes. */
enum { OK = 0, E_COMPRESS = 10, E_SELFCHECK = 11, E_IO = 12, E_SIZES = 20,
       E_DECOMPRESS = 21, E_MISMATCH = 22, E_GUARD = 23, E_GETITEM = 24, E_OOM = 30 };

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
    case E_OOM: return "out of memory";
    default: return "unknown";
  }
}

static int write_case(const char *dir, int id) {
  rt_case c = case_of(id);
  uint8_t *src = malloc((size_t)c.nbytes + 1);
  int32_t cap = c.nbytes + BLOSC2_MAX_OVERHEAD;
  uint8_t *dst = malloc((size_t)cap);
  uint8_t *back = malloc((size_t)c.nbytes + 1);
  if (!src || !dst || !back) return E_OOM;
  fill(src, id, &c);
  blosc2_cparams cp = cparams_of(&c);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  if (!cctx) return E_COMPRESS;
  int cbytes = blosc2_compress_ctx(cctx, src, c.nbytes, dst, cap);
  blosc2_free_ctx(cctx);
  if (cbytes <= 0) return E_COMPRESS;
  /* Only chunks the writer itself round-trips are kept: a writer bug is not a
   * reader failure. */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  if (!dctx) return E_SELFCHECK;
  int n = blosc2_decompress_ctx(dctx, dst, cbytes, back, c.nbytes);
  blosc2_free_ctx(dctx);
  if (n != c.nbytes || (c.nbytes > 0 && memcmp(src, back, (size_t)c.nbytes) != 0)) return E_SELFCHECK;
  char path[4096];
  snprintf(path, sizeof path, "%s/c%04d.b2", dir, id);
  FILE *f = fopen(path, "wb");
  if (!f) return E_IO;
  if (fwrite(dst, 1, (size_t)cbytes, f) != (size_t)cbytes) return E_IO;
  if (fclose(f) != 0) return E_IO;
  free(src);
  free(dst);
  free(back);
  return OK;
}

static int read_case(const char *dir, int id) {
  rt_case c = case_of(id);
  char path[4096];
  snprintf(path, sizeof path, "%s/c%04d.b2", dir, id);
  FILE *f = fopen(path, "rb");
  if (!f) return E_IO;
  fseek(f, 0, SEEK_END);
  long clen = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *chunk = malloc((size_t)clen + 1);
  uint8_t *want = malloc((size_t)c.nbytes + 1);
  uint8_t *got = malloc((size_t)c.nbytes + GUARD);
  if (!chunk || !want || !got) return E_OOM;
  if (fread(chunk, 1, (size_t)clen, f) != (size_t)clen) return E_IO;
  fclose(f);
  fill(want, id, &c);

  int32_t nbytes = -1, cbytes = -1, blocksize = -1;
  if (blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, &blocksize) < 0 ||
      nbytes != c.nbytes || cbytes != (int32_t)clen)
    return E_SIZES;

  memset(got, 0xA5, (size_t)c.nbytes + GUARD);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)c.nthreads;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  if (!dctx) return E_DECOMPRESS;
  int n = blosc2_decompress_ctx(dctx, chunk, (int32_t)clen, got, c.nbytes);
  if (n != c.nbytes) return E_DECOMPRESS;
  if (c.nbytes > 0 && memcmp(want, got, (size_t)c.nbytes) != 0) return E_MISMATCH;
  for (int i = 0; i < GUARD; i++)
    if (got[c.nbytes + i] != 0xA5) return E_GUARD;

  /* The global-context entry point must agree too. */
  memset(got, 0, (size_t)c.nbytes);
  n = blosc2_decompress(chunk, (int32_t)clen, got, c.nbytes);
  if (n != c.nbytes) return E_DECOMPRESS;
  if (c.nbytes > 0 && memcmp(want, got, (size_t)c.nbytes) != 0) return E_MISMATCH;

  /* getitem on a range straddling the middle.  Skipped for DELTA: both
   * reference versions return wrong bytes past the first block there. */
  if (c.filter != 3 && c.nbytes >= 2 * c.typesize) {
    int32_t ts = c.typesize;
    int32_t nitems = c.nbytes / ts;
    int32_t start = nitems / 2 - (nitems > 8 ? 4 : 0);
    int32_t count = nitems - start < 8 ? nitems - start : 8;
    if (count > 0) {
      n = blosc2_getitem_ctx(dctx, chunk, (int32_t)clen, start, count, got, count * ts);
      if (n != count * ts || memcmp(got, want + (size_t)start * ts, (size_t)n) != 0) return E_GETITEM;
    }
  }
  blosc2_free_ctx(dctx);
  free(chunk);
  free(want);
  free(got);
  return OK;
}

/* Run fn(dir, id) in a child with a timeout; returns its exit code, or
 * 100+signal when it died. */
static int run_forked(int (*fn)(const char *, int), const char *dir, int id) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid < 0) return fn(dir, id);
  if (pid == 0) {
    alarm(CASE_TIMEOUT);
    _exit(fn(dir, id));
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 100 + WTERMSIG(st);
  return 99;
}

/* Say which libblosc2 file is mapped: the test driver checks that the
 * "reference" and "ours" builds really load different libraries. */
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

static int selected(int id) {
  const char *q = getenv("ROUNDTRIP_QUICK");
  return !(q && *q && strcmp(q, "0") != 0) || id % 7 == 0;
}

static int do_write(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/index.txt", dir);
  mkdir(dir, 0755);
  FILE *idx = fopen(path, "w");
  if (!idx) {
    perror(path);
    return 2;
  }
  blosc2_init();
  fprintf(idx, "# writer %s\n", blosc2_get_version_string());
  int written = 0, refused = 0;
  time_t t0 = time(NULL);
  for (int id = 0; id < NCASES; id++) {
    if (!selected(id)) continue;
    int rc = time(NULL) - t0 > RUN_BUDGET ? 98 : run_forked(write_case, dir, id);
    rt_case c = case_of(id);
    char name[128];
    describe(name, sizeof name, id, &c);
    if (rc == OK) {
      fprintf(idx, "%d ok %s\n", id, name);
      written++;
    } else {
      fprintf(idx, "%d skip %s\n", id, name);
      if (rc >= 100)
        printf("writer: %s: crashed (signal %d)\n", name, rc - 100);
      else if (rc == 98)
        printf("writer: %s: not run (time budget used up)\n", name);
      else
        printf("writer: %s: %s\n", name, reason(rc));
      refused++;
    }
  }
  fclose(idx);
  blosc2_destroy();
  printf("roundtrip-write: %d written, %d refused by the writer\n", written, refused);
  /* A writer that produces nothing proves nothing. */
  return written > 0 ? 0 : 1;
}

/* Ids whose status is "skip" in an index file (NULL or unreadable: none). */
static void load_skips(const char *index, unsigned char *skip) {
  memset(skip, 0, NCASES);
  if (!index) return;
  FILE *f = fopen(index, "r");
  if (!f) return;
  char line[512], status[16];
  int id;
  while (fgets(line, sizeof line, f))
    if (line[0] != '#' && sscanf(line, "%d %15s", &id, status) == 2 && id >= 0 && id < NCASES &&
        strcmp(status, "skip") == 0)
      skip[id] = 1;
  fclose(f);
}

static int do_read(const char *dir, const char *own_index) {
  static unsigned char own_skip[NCASES];
  load_skips(own_index, own_skip);
  time_t t0 = time(NULL);
  char path[4096];
  snprintf(path, sizeof path, "%s/index.txt", dir);
  FILE *idx = fopen(path, "r");
  if (!idx) {
    perror(path);
    return 2;
  }
  blosc2_init();
  char line[512];
  int passed = 0, failed = 0, skipped = 0, own = 0, shown = 0;
  while (fgets(line, sizeof line, idx)) {
    int id;
    char status[16], name[256];
    if (line[0] == '#') continue;
    if (sscanf(line, "%d %15s %255s", &id, status, name) != 3 || id < 0 || id >= NCASES) continue;
    if (strcmp(status, "ok") != 0) {
      skipped++;
      continue;
    }
    if (own_skip[id]) {
      own++;
      continue;
    }
    int rc = time(NULL) - t0 > RUN_BUDGET ? 98 : run_forked(read_case, dir, id);
    if (rc == OK) {
      passed++;
      continue;
    }
    failed++;
    if (shown++ < 40) {
      if (rc >= 100)
        printf("FAIL %s: crashed (signal %d)\n", name, rc - 100);
      else if (rc == 98)
        printf("FAIL %s: not run (time budget of %d s used up)\n", name, RUN_BUDGET);
      else
        printf("FAIL %s: %s\n", name, reason(rc));
    }
  }
  fclose(idx);
  if (shown > 40) printf("... %d more failures not shown\n", shown - 40);
  printf("reader %s: %d passed, %d failed (%d not written by the writer, %d the reader's "
         "library cannot round-trip itself)\n",
         blosc2_get_version_string(), passed, failed, skipped, own);
  blosc2_destroy();
  return failed == 0 && passed > 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4 || (strcmp(argv[1], "write") != 0 && strcmp(argv[1], "read") != 0)) {
    fprintf(stderr, "usage: %s write DIR | read DIR [OWN_INDEX]\n", argv[0]);
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  dl_iterate_phdr(print_lib, NULL);
  return strcmp(argv[1], "write") == 0 ? do_write(argv[2]) : do_read(argv[2], argc > 3 ? argv[3] : NULL);
}
