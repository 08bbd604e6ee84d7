/* Example: a super-chunk stored as a contiguous frame file: append chunks,
 * close, reopen from disk, read one chunk and a slice of items back. */
#include <stdio.h>

#include <blosc2.h>

#define CHUNK_ITEMS (250 * 1000)
#define NCHUNKS 8

int main(void) {
  static int32_t data[CHUNK_ITEMS], back[CHUNK_ITEMS];
  const char *path = "example_frame_file.b2frame";
  blosc2_init();
  blosc2_remove_urlpath(path);

  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(int32_t);
  cparams.compcode = BLOSC_ZSTD;
  cparams.clevel = 3;
  blosc2_storage storage = {.contiguous = true, .urlpath = (char *)path, .cparams = &cparams};
  blosc2_schunk *schunk = blosc2_schunk_new(&storage);
  if (schunk == NULL) {
    /* e.g. a build without Zstd (DEACTIVATE_ZSTD): nothing to show. */
    fprintf(stderr, "cannot create %s (is Zstd in this build?)\n", path);
    return 77;
  }
  for (int c = 0; c < NCHUNKS; c++) {
    for (int i = 0; i < CHUNK_ITEMS; i++) data[i] = c * CHUNK_ITEMS + i;
    if (blosc2_schunk_append_buffer(schunk, data, sizeof data) != c + 1) {
      fprintf(stderr, "append failed\n");
      return 1;
    }
  }
  printf("%s: %lld chunks, %lld bytes -> %lld bytes\n", path, (long long)schunk->nchunks,
         (long long)schunk->nbytes, (long long)schunk->cbytes);
  blosc2_schunk_free(schunk);

  blosc2_schunk *again = blosc2_schunk_open(path);
  if (again == NULL) return 1;
  int ok = blosc2_schunk_decompress_chunk(again, 5, back, sizeof back) == (int)sizeof back &&
           back[7] == 5 * CHUNK_ITEMS + 7;
  int32_t items[10];
  ok = ok && blosc2_schunk_get_slice_buffer(again, 999995, 1000005, items) == 0 && items[0] == 999995;
  blosc2_schunk_free(again);
  blosc2_remove_urlpath(path);
  blosc2_destroy();
  printf("reopened and read back: %s\n", ok ? "ok" : "MISMATCH");
  return ok ? 0 : 1;
}
