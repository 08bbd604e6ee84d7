/* Super-chunks and frames: append, decompress, metalayers, serialize to a
 * contiguous frame in memory and on disk, and read them back. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <blosc2.h>

#include "check.h"

#define CHUNK_ITEMS 25000
#define NCHUNKS 6

int main(void) {
  static int32_t data[CHUNK_ITEMS], back[CHUNK_ITEMS];
  blosc2_init();

  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(int32_t);
  cparams.compcode = BLOSC_LZ4;
  cparams.clevel = 5;
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage storage = {.contiguous = true, .cparams = &cparams, .dparams = &dparams};
  blosc2_schunk *schunk = blosc2_schunk_new(&storage);
  REQUIRE(schunk != NULL);

  /* Fixed-size metalayers live in the frame header: add them before data. */
  uint8_t meta[] = {1, 2, 3, 4};
  CHECK(blosc2_meta_add(schunk, "test-meta", meta, sizeof meta) >= 0);
  uint8_t vlmeta[] = "variable-length metadata";
  CHECK(blosc2_vlmeta_add(schunk, "test-vlmeta", vlmeta, sizeof vlmeta, NULL) >= 0);

  for (int c = 0; c < NCHUNKS; c++) {
    for (int i = 0; i < CHUNK_ITEMS; i++) data[i] = i * (c + 1);
    CHECK_EQ_INT(blosc2_schunk_append_buffer(schunk, data, sizeof data), c + 1);
  }
  CHECK_EQ_INT(schunk->nchunks, NCHUNKS);
  CHECK_EQ_INT(schunk->nbytes, (int64_t)NCHUNKS * sizeof data);


  /* Serialize and reopen from the buffer. */
  uint8_t *cframe = NULL;
  bool needs_free = false;
  int64_t len = blosc2_schunk_to_buffer(schunk, &cframe, &needs_free);
  REQUIRE(len > 0 && cframe != NULL);
  blosc2_schunk *copy = blosc2_schunk_from_buffer(cframe, len, true);
  REQUIRE(copy != NULL);
  CHECK_EQ_INT(copy->nchunks, NCHUNKS);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(copy, 3, back, sizeof back), (int)sizeof back);
  for (int i = 0; i < CHUNK_ITEMS; i++) data[i] = i * 4;
  CHECK(memcmp(data, back, sizeof data) == 0);

  uint8_t *content = NULL;
  int32_t content_len = 0;
  CHECK(blosc2_meta_get(copy, "test-meta", &content, &content_len) >= 0);
  CHECK(content_len == 4 && content && memcmp(content, meta, 4) == 0);
  free(content);
  content = NULL;
  CHECK(blosc2_vlmeta_get(copy, "test-vlmeta", &content, &content_len) >= 0);
  CHECK(content_len == (int32_t)sizeof vlmeta && content && memcmp(content, vlmeta, sizeof vlmeta) == 0);
  free(content);

  /* A slice across a chunk boundary. */
  int32_t slice[100];
  CHECK_EQ_INT(blosc2_schunk_get_slice_buffer(copy, CHUNK_ITEMS - 50, CHUNK_ITEMS + 50, slice), 0);
  CHECK(slice[0] == (CHUNK_ITEMS - 50) && slice[50] == 0 && slice[99] == 49 * 2);
  blosc2_schunk_free(copy);
  if (needs_free) free(cframe);

  /* Same frame on disk. */
  char path[64];
  snprintf(path, sizeof path, "/tmp/c-tests-schunk-%ld.b2frame", (long)getpid());
  blosc2_remove_urlpath(path);
  CHECK(blosc2_schunk_to_file(schunk, path) > 0);
  blosc2_schunk *opened = blosc2_schunk_open(path);
  REQUIRE(opened != NULL);
  CHECK_EQ_INT(opened->nchunks, NCHUNKS);
  CHECK_EQ_INT(blosc2_schunk_decompress_chunk(opened, NCHUNKS - 1, back, sizeof back), (int)sizeof back);
  CHECK(back[10] == 10 * NCHUNKS);
  CHECK(blosc2_meta_exists(opened, "test-meta") >= 0);
  CHECK(blosc2_vlmeta_exists(opened, "test-vlmeta") >= 0);
  blosc2_schunk_free(opened);
  CHECK_EQ_INT(blosc2_remove_urlpath(path), 0);

  blosc2_schunk_free(schunk);
  blosc2_destroy();
  return check_result("schunk_frame");
}
