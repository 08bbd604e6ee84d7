/* b2nd array benchmark through the public b2nd.h API only, so the same
 * source measures any libblosc2 (run.sh builds it once per library).
 *
 *   bench_b2nd PATH [d0 d1 d2 [c0 c1 c2 [b0 b1 b2 [nslices [slice_edge [nplanes [nthreads]]]]]]]
 *
 * A 3-D float32 array (default 512x512x1024 = 1 GiB, chunks 64x128x128 =
 * 4 MiB, blocks 16x32x32 = 64 KiB) stored as a contiguous frame file.
 * Phases (each timed on its own, data generation excluded):
 *   write   b2nd_empty, then every chunk written with one
 *           b2nd_set_slice_cbuffer of exactly that chunk's box, then
 *           b2nd_free (the file is complete on disk)
 *   open    b2nd_open of that file
 *   slices  random small cubes (slice_edge^3 items) with
 *           b2nd_get_slice_cbuffer
 *   plane0/plane1/plane2  nplanes full planes orthogonal to axis 0, 1, 2
 *           (random positions) with b2nd_get_slice_cbuffer
 *   smallwrite/smallread  a second array of 1,000 chunks of 32 KiB
 *           (160x160x320 float32, chunks 16x16x32, blocks 8x16x32) in a
 *           contiguous frame file beside PATH: b2nd_from_cbuffer, then
 *           b2nd_to_cbuffer (chunks that small keep at most two threads
 *           busy block by block; nthreads applies here too); the best
 *           of BENCH_SMALL_REPS (5) rounds of each
 * One line per phase: `phase NAME seconds S MBps M` (MB = 1e6 bytes of
 * uncompressed data moved by the calls; slices also `per_s`), then a
 * `result` line with the compressed size. Values read are spot-checked
 * against the generator; a mismatch exits 1. PATH is removed at the end. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <b2nd.h>
#include <blosc2.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Smooth in every direction with a little noise: compresses a few times,
 * like a gridded physical field. */
static float value(int64_t i, int64_t j, int64_t k) {
  uint32_t h = (uint32_t)((i * 73856093) ^ (j * 19349663) ^ (k * 83492791));
  return (float)(100.0 * sin((double)i * 0.01) + (double)j * 0.01 + (double)k * 0.001) +
         (float)(h >> 28) * 1e-4f;
}

static uint64_t lcg = 88172645463325252ull;
static uint64_t rnd(void) {
  lcg ^= lcg << 13;
  lcg ^= lcg >> 7;
  lcg ^= lcg << 17;
  return lcg;
}

static int64_t arg(int argc, char **argv, int i, int64_t dflt) {
  return argc > i ? atoll(argv[i]) : dflt;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: %s PATH [d0 d1 d2 [c0 c1 c2 [b0 b1 b2 [nslices [slice_edge [nplanes "
            "[nthreads]]]]]]]\n",
            argv[0]);
    return 2;
  }
  const char *path = argv[1];
  int64_t shape[3] = {arg(argc, argv, 2, 512), arg(argc, argv, 3, 512), arg(argc, argv, 4, 1024)};
  int32_t chunk[3] = {(int32_t)arg(argc, argv, 5, 64), (int32_t)arg(argc, argv, 6, 128),
                      (int32_t)arg(argc, argv, 7, 128)};
  int32_t block[3] = {(int32_t)arg(argc, argv, 8, 16), (int32_t)arg(argc, argv, 9, 32),
                      (int32_t)arg(argc, argv, 10, 32)};
  int nslices = (int)arg(argc, argv, 11, 1000);
  int64_t edge = arg(argc, argv, 12, 8);
  int nplanes = (int)arg(argc, argv, 13, 100);
  int nthreads = (int)arg(argc, argv, 14, 1);
  for (int d = 0; d < 3; d++) {
    if (shape[d] % chunk[d] != 0 || shape[d] < edge) {
      fprintf(stderr, "chunks must divide the shape and the slices fit in it\n");
      return 2;
    }
  }
  double mb = (double)shape[0] * shape[1] * shape[2] * 4 / 1e6;

  blosc2_init();
  /* opened arrays take the library's thread count, not the writer's */
  blosc2_set_nthreads((int16_t)nthreads);
  printf("library %s\n", blosc2_get_version_string());
  printf("config shape %lldx%lldx%lld chunks %dx%dx%d blocks %dx%dx%d nslices %d edge %lld "
         "nplanes %d nthreads %d\n",
         (long long)shape[0], (long long)shape[1], (long long)shape[2], chunk[0], chunk[1],
         chunk[2], block[0], block[1], block[2], nslices, (long long)edge, nplanes, nthreads);
  blosc2_remove_urlpath(path);

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = (int16_t)nthreads;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nthreads;
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp,
                       .dparams = &dp};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 3, shape, chunk, block, "<f4", DTYPE_NUMPY_FORMAT,
                                        NULL, 0);
  if (ctx == NULL) {
    fprintf(stderr, "b2nd_create_ctx failed\n");
    return 1;
  }

  /* write */
  int64_t cn = (int64_t)chunk[0] * chunk[1] * chunk[2];
  float *buf = malloc((size_t)cn * 4);
  int64_t cshape[3] = {chunk[0], chunk[1], chunk[2]};
  b2nd_array_t *arr = NULL;
  double t0 = now();
  int rc = b2nd_empty(ctx, &arr);
  double t_write = now() - t0;
  if (rc < 0) {
    fprintf(stderr, "b2nd_empty failed: %d\n", rc);
    return 1;
  }
  for (int64_t c0 = 0; c0 < shape[0]; c0 += chunk[0])
    for (int64_t c1 = 0; c1 < shape[1]; c1 += chunk[1])
      for (int64_t c2 = 0; c2 < shape[2]; c2 += chunk[2]) {
        float *p = buf;
        for (int64_t i = 0; i < chunk[0]; i++)
          for (int64_t j = 0; j < chunk[1]; j++)
            for (int64_t k = 0; k < chunk[2]; k++) *p++ = value(c0 + i, c1 + j, c2 + k);
        int64_t start[3] = {c0, c1, c2};
        int64_t stop[3] = {c0 + chunk[0], c1 + chunk[1], c2 + chunk[2]};
        t0 = now();
        rc = b2nd_set_slice_cbuffer(buf, cshape, cn * 4, start, stop, arr);
        t_write += now() - t0;
        if (rc < 0) {
          fprintf(stderr, "set_slice_cbuffer at %lld,%lld,%lld failed: %d\n", (long long)c0,
                  (long long)c1, (long long)c2, rc);
          return 1;
        }
      }
  int64_t cbytes = arr->sc->cbytes;
  t0 = now();
  b2nd_free(arr);
  t_write += now() - t0;
  b2nd_free_ctx(ctx);
  printf("phase write seconds %.4f MBps %.1f\n", t_write, mb / t_write);

  /* open */
  t0 = now();
  rc = b2nd_open(path, &arr);
  double t_open = now() - t0;
  if (rc < 0 || arr->shape[0] != shape[0] || arr->shape[2] != shape[2]) {
    fprintf(stderr, "b2nd_open failed: %d\n", rc);
    return 1;
  }
  printf("phase open seconds %.6f\n", t_open);

  /* random small cubes */
  int bad = 0;
  int64_t en = edge * edge * edge;
  float *sl = malloc((size_t)en * 4);
  int64_t eshape[3] = {edge, edge, edge};
  t0 = now();
  for (int s = 0; s < nslices; s++) {
    int64_t start[3], stop[3];
    for (int d = 0; d < 3; d++) {
      start[d] = (int64_t)(rnd() % (uint64_t)(shape[d] - edge + 1));
      stop[d] = start[d] + edge;
    }
    rc = b2nd_get_slice_cbuffer(arr, start, stop, sl, eshape, en * 4);
    if (rc < 0) {
      fprintf(stderr, "get_slice_cbuffer failed: %d\n", rc);
      return 1;
    }
    if (sl[0] != value(start[0], start[1], start[2]) ||
        sl[en - 1] != value(stop[0] - 1, stop[1] - 1, stop[2] - 1))
      bad++;
  }
  double t_slices = now() - t0;
  printf("phase slices seconds %.4f MBps %.2f per_s %.1f\n", t_slices,
         (double)nslices * en * 4 / 1e6 / t_slices, nslices / t_slices);

  /* full planes along each axis */
  int64_t maxplane = shape[1] * shape[2];
  if (shape[0] * shape[2] > maxplane) maxplane = shape[0] * shape[2];
  if (shape[0] * shape[1] > maxplane) maxplane = shape[0] * shape[1];
  float *pl = malloc((size_t)maxplane * 4);
  for (int axis = 0; axis < 3; axis++) {
    int64_t pshape[3] = {shape[0], shape[1], shape[2]};
    pshape[axis] = 1;
    int64_t pn = pshape[0] * pshape[1] * pshape[2];
    t0 = now();
    for (int p = 0; p < nplanes; p++) {
      int64_t start[3] = {0, 0, 0};
      int64_t stop[3] = {shape[0], shape[1], shape[2]};
      start[axis] = (int64_t)(rnd() % (uint64_t)shape[axis]);
      stop[axis] = start[axis] + 1;
      rc = b2nd_get_slice_cbuffer(arr, start, stop, pl, pshape, pn * 4);
      if (rc < 0) {
        fprintf(stderr, "plane %d on axis %d failed: %d\n", p, axis, rc);
        return 1;
      }
      int64_t last[3] = {stop[0] - 1, stop[1] - 1, stop[2] - 1};
      if (pl[0] != value(start[0], start[1], start[2]) ||
          pl[pn - 1] != value(last[0], last[1], last[2]))
        bad++;
    }
    double t = now() - t0;
    printf("phase plane%d seconds %.4f MBps %.1f per_s %.1f\n", axis, t,
           (double)nplanes * pn * 4 / 1e6 / t, nplanes / t);
  }
  b2nd_free(arr);
  blosc2_remove_urlpath(path);

  /* many small chunks, whole array in and out */
  {
    int64_t sshape[3] = {160, 160, 320};
    int32_t schunk[3] = {16, 16, 32};
    int32_t sblock[3] = {8, 16, 32};
    int64_t sn = sshape[0] * sshape[1] * sshape[2];
    double smb = (double)sn * 4 / 1e6;
    size_t plen = strlen(path);
    char *spath = malloc(plen + 8);
    memcpy(spath, path, plen);
    memcpy(spath + plen, ".small", 7);
    blosc2_remove_urlpath(spath);
    float *sbuf = malloc((size_t)sn * 4);
    float *sback = malloc((size_t)sn * 4);
    int64_t at = 0;
    for (int64_t i = 0; i < sshape[0]; i++)
      for (int64_t j = 0; j < sshape[1]; j++)
        for (int64_t k = 0; k < sshape[2]; k++) sbuf[at++] = value(i, j, k);
    blosc2_storage sst = {.contiguous = true, .urlpath = spath, .cparams = &cp, .dparams = &dp};
    b2nd_context_t *sctx = b2nd_create_ctx(&sst, 3, sshape, schunk, sblock, "<f4",
                                           DTYPE_NUMPY_FORMAT, NULL, 0);
    b2nd_array_t *sarr = NULL;
    /* a call takes 10-30 ms: the best of a few, as one run on a shared
     * machine says little */
    const char *reps_env = getenv("BENCH_SMALL_REPS");
    int reps = reps_env ? atoi(reps_env) : 5;
    if (reps < 1) reps = 1;
    double t_sw = 1e30, t_sr = 1e30;
    for (int r = 0; r < reps && sctx; r++) {
      blosc2_remove_urlpath(spath);
      t0 = now();
      rc = b2nd_from_cbuffer(sctx, &sarr, sbuf, sn * 4);
      if (rc >= 0) {
        b2nd_free(sarr);
        sarr = NULL;
      }
      double t = now() - t0;
      if (t < t_sw) t_sw = t;
      if (rc < 0) break;
    }
    if (!sctx || rc < 0 || b2nd_open(spath, &sarr) < 0) {
      fprintf(stderr, "small array write failed: %d\n", rc);
      return 1;
    }
    int64_t scbytes = sarr->sc->cbytes;
    printf("phase smallwrite seconds %.4f MBps %.1f\n", t_sw, smb / t_sw);
    for (int r = 0; r < reps; r++) {
      memset(sback, 0, (size_t)sn * 4);
      t0 = now();
      rc = b2nd_to_cbuffer(sarr, sback, sn * 4);
      double t = now() - t0;
      if (t < t_sr) t_sr = t;
      if (rc < 0 || memcmp(sbuf, sback, (size_t)sn * 4) != 0) {
        fprintf(stderr, "small array read failed or differs: %d\n", rc);
        return 1;
      }
    }
    printf("phase smallread seconds %.4f MBps %.1f\n", t_sr, smb / t_sr);
    printf("result small_cbytes %lld\n", (long long)scbytes);
    b2nd_free(sarr);
    b2nd_free_ctx(sctx);
    blosc2_remove_urlpath(spath);
    free(sbuf);
    free(sback);
    free(spath);
  }
  printf("result cbytes %lld ratio %.2f bad %d\n", (long long)cbytes, mb * 1e6 / (double)cbytes,
         bad);
  free(pl);
  free(sl);
  free(buf);
  blosc2_destroy();
  return bad ? 1 : 0;
}
