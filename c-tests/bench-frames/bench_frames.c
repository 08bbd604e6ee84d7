/* Super-chunk frame benchmark through the public blosc2.h API only, so the
 * same source measures any libblosc2 (run.sh builds it once per library).
 *
 *   bench_frames contiguous|sparse PATH [MiB [chunk_MiB [nslices [slice_items [nthreads]]]]]
 *
 * Phases (each timed on its own, data generation excluded):
 *   append  float64 data appended with blosc2_schunk_append_buffer to a
 *           new on-disk frame (contiguous file or sparse directory),
 *           blosc2_schunk_free included (the frame is complete on disk)
 *   open    blosc2_schunk_open of that frame
 *   slices  random small blosc2_schunk_get_slice_buffer reads
 *   readall every chunk with blosc2_schunk_decompress_chunk, in order
 *   smallwrite, smallread  a second frame of the same kind holding 1000
 *           chunks of 32 KiB (how HDF5 and Zarr users cut data), rewritten
 *           whole with one blosc2_schunk_set_slice_buffer, then read whole
 *           with one blosc2_schunk_get_slice_buffer (chunks that small
 *           leave a context's block threads idle); the best of
 *           BENCH_SMALL_REPS (5) rounds of each
 * One line per phase: `phase NAME seconds S MBps M` (MB = 1e6 bytes of
 * uncompressed data; for slices also `per_s` slices per second), then a
 * `result` line with the compressed size. Values read are checked against
 * the generator; a mismatch exits 1. PATH is removed at the end. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <blosc2.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A smooth signal with a little noise: compresses a few times, like
 * typical float64 measurements (neither constant nor random). */
static double value(int64_t i) {
  uint32_t h = (uint32_t)(i * 2654435761u);
  return 1000.0 * sin((double)i * 1e-4) + (double)(i % 1000) * 0.001 + (double)(h >> 28) * 1e-6;
}

static uint64_t lcg = 88172645463325252ull;
static uint64_t rnd(void) {
  lcg ^= lcg << 13;
  lcg ^= lcg >> 7;
  lcg ^= lcg << 17;
  return lcg;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s contiguous|sparse PATH [MiB [chunk_MiB [nslices [slice_items [nthreads]]]]]\n",
            argv[0]);
    return 2;
  }
  int contiguous = strcmp(argv[1], "contiguous") == 0;
  const char *path = argv[2];
  int64_t total_mib = argc > 3 ? atoll(argv[3]) : 1024;
  int64_t chunk_mib = argc > 4 ? atoll(argv[4]) : 4;
  int nslices = argc > 5 ? atoi(argv[5]) : 10000;
  int slice_items = argc > 6 ? atoi(argv[6]) : 100;
  int nthreads = argc > 7 ? atoi(argv[7]) : 1;

  int64_t chunk_items = chunk_mib * 1024 * 1024 / 8;
  int64_t nchunks = total_mib / chunk_mib;
  int64_t total_items = chunk_items * nchunks;
  double mb = (double)total_items * 8 / 1e6;

  blosc2_init();
  printf("library %s\n", blosc2_get_version_string());
  printf("config storage %s MiB %lld chunk_MiB %lld nslices %d slice_items %d nthreads %d\n",
         contiguous ? "contiguous" : "sparse", (long long)total_mib, (long long)chunk_mib, nslices,
         slice_items, nthreads);
  blosc2_remove_urlpath(path);

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.nthreads = (int16_t)nthreads;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nthreads;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp,
                       .dparams = &dp};

  double *buf = malloc(chunk_items * 8);
  double t_append = 0;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  if (sc == NULL) {
    fprintf(stderr, "cannot create %s\n", path);
    return 1;
  }
  for (int64_t c = 0; c < nchunks; c++) {
    for (int64_t i = 0; i < chunk_items; i++) buf[i] = value(c * chunk_items + i);
    double t0 = now();
    int64_t n = blosc2_schunk_append_buffer(sc, buf, (int32_t)(chunk_items * 8));
    t_append += now() - t0;
    if (n != c + 1) {
      fprintf(stderr, "append %lld failed: %lld\n", (long long)c, (long long)n);
      return 1;
    }
  }
  int64_t cbytes = sc->cbytes;
  double t0 = now();
  blosc2_schunk_free(sc);
  t_append += now() - t0;
  printf("phase append seconds %.4f MBps %.1f\n", t_append, mb / t_append);

  t0 = now();
  sc = blosc2_schunk_open(path);
  double t_open = now() - t0;
  if (sc == NULL || sc->nchunks != nchunks) {
    fprintf(stderr, "reopen failed\n");
    return 1;
  }
  printf("phase open seconds %.6f\n", t_open);

  double *sl = malloc((size_t)slice_items * 8);
  int bad = 0;
  t0 = now();
  for (int s = 0; s < nslices; s++) {
    int64_t a = (int64_t)(rnd() % (uint64_t)(total_items - slice_items));
    if (blosc2_schunk_get_slice_buffer(sc, a, a + slice_items, sl) != 0) {
      fprintf(stderr, "slice %lld failed\n", (long long)a);
      return 1;
    }
    if (sl[0] != value(a) || sl[slice_items - 1] != value(a + slice_items - 1)) bad++;
  }
  double t_slices = now() - t0;
  printf("phase slices seconds %.4f MBps %.2f per_s %.1f\n", t_slices,
         (double)nslices * slice_items * 8 / 1e6 / t_slices, nslices / t_slices);

  double t_read = 0;
  for (int64_t c = 0; c < nchunks; c++) {
    t0 = now();
    int rc = blosc2_schunk_decompress_chunk(sc, c, buf, (int32_t)(chunk_items * 8));
    t_read += now() - t0;
    if (rc != chunk_items * 8) {
      fprintf(stderr, "read chunk %lld failed: %d\n", (long long)c, rc);
      return 1;
    }
    for (int64_t i = 0; i < chunk_items; i += 4099)
      if (buf[i] != value(c * chunk_items + i)) bad++;
  }
  printf("phase readall seconds %.4f MBps %.1f\n", t_read, mb / t_read);
  /* many small chunks, written and read through one call each */
  {
    const int64_t sitems = 32768 / 8, snchunks = 1000, sall = sitems * snchunks;
    char spath[4096];
    snprintf(spath, sizeof spath, "%s-small", path);
    blosc2_remove_urlpath(spath);
    blosc2_storage sst = st;
    sst.urlpath = spath;
    blosc2_schunk *ss = blosc2_schunk_new(&sst);
    double *all = malloc(sall * 8);
    if (ss == NULL || all == NULL) {
      fprintf(stderr, "cannot create %s\n", spath);
      return 1;
    }
    for (int64_t c = 0; c < snchunks; c++) {
      for (int64_t i = 0; i < sitems; i++) all[i] = value(c * sitems + i);
      if (blosc2_schunk_append_buffer(ss, all, (int32_t)(sitems * 8)) != c + 1) {
        fprintf(stderr, "small append failed\n");
        return 1;
      }
    }
    /* a call takes 10-30 ms: the best of a few, as one run on a shared
     * machine says little */
    const char *reps_env = getenv("BENCH_SMALL_REPS");
    int reps = reps_env ? atoi(reps_env) : 5;
    if (reps < 1) reps = 1;
    double t_sw = 1e30, t_sr = 1e30;
    for (int r = 0; r < reps; r++) {
      for (int64_t i = 0; i < sall; i++) all[i] = value(i + 7);
      t0 = now();
      if (blosc2_schunk_set_slice_buffer(ss, 0, sall, all) != 0) {
        fprintf(stderr, "small set_slice failed\n");
        return 1;
      }
      double t = now() - t0;
      if (t < t_sw) t_sw = t;
      memset(all, 0, sall * 8);
      t0 = now();
      if (blosc2_schunk_get_slice_buffer(ss, 0, sall, all) != 0) {
        fprintf(stderr, "small get_slice failed\n");
        return 1;
      }
      t = now() - t0;
      if (t < t_sr) t_sr = t;
    }
    for (int64_t i = 0; i < sall; i += 257)
      if (all[i] != value(i + 7)) bad++;
    double smb = (double)sall * 8 / 1e6;
    printf("phase smallwrite seconds %.4f MBps %.1f\n", t_sw, smb / t_sw);
    printf("phase smallread seconds %.4f MBps %.1f\n", t_sr, smb / t_sr);
    blosc2_schunk_free(ss);
    blosc2_remove_urlpath(spath);
    free(all);
  }
  printf("result cbytes %lld ratio %.2f bad %d\n", (long long)cbytes,
         (double)total_items * 8 / (double)cbytes, bad);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
  free(sl);
  free(buf);
  blosc2_destroy();
  return bad ? 1 : 0;
}
