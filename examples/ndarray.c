/* Example: a 2-D b2nd array in memory: build it from a C buffer, read a
 * rectangular slice, and check it. */
#include <stdio.h>

#include <b2nd.h>
#include <blosc2.h>

#define ROWS 300
#define COLS 200

int main(void) {
  static double data[ROWS][COLS];
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++) data[r][c] = r * 1000.0 + c;

  blosc2_init();
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(double);
  blosc2_storage storage = {.contiguous = true, .cparams = &cparams};
  int64_t shape[2] = {ROWS, COLS};
  int32_t chunkshape[2] = {100, 100};
  int32_t blockshape[2] = {25, 50};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, "<f8",
                                        DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *array = NULL;
  if (ctx == NULL || b2nd_from_cbuffer(ctx, &array, data, sizeof data) < 0) {
    fprintf(stderr, "cannot build the array\n");
    return 1;
  }

  int64_t start[2] = {120, 30}, stop[2] = {130, 35};
  double box[10][5];
  int64_t boxshape[2] = {10, 5};
  int rc = b2nd_get_slice_cbuffer(array, start, stop, box, boxshape, sizeof box);
  int ok = rc >= 0 && box[0][0] == 120030.0 && box[9][4] == 129034.0;
  printf("array %lldx%lld in %lld chunks; slice [120:130, 30:35] %s\n", (long long)array->shape[0],
         (long long)array->shape[1], (long long)array->sc->nchunks, ok ? "ok" : "MISMATCH");
  b2nd_free(array);
  b2nd_free_ctx(ctx);
  blosc2_destroy();
  return ok ? 0 : 1;
}
