/* Replays fuzz inputs through a libFuzzer-style entry point when the
 * compiler has no libFuzzer: each argument is a file, or a directory whose
 * regular files are all replayed (the committed corpora under fuzz/corpus).
 * Exit status 0 when every input ran (a crash ends the process). */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "cannot open %s\n", path);
    return -1;
  }
  size_t cap = 1 << 16, len = 0;
  uint8_t *buf = malloc(cap);
  size_t n;
  while (buf != NULL && (n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      uint8_t *bigger = realloc(buf, cap * 2);
      if (bigger == NULL) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = bigger;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf == NULL) {
    fprintf(stderr, "out of memory reading %s\n", path);
    return -1;
  }
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  long inputs = 0, errors = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "no such input: %s\n", argv[i]);
      errors++;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      errors += run_file(argv[i]) != 0;
      inputs++;
      continue;
    }
    DIR *dir = opendir(argv[i]);
    if (dir == NULL) {
      fprintf(stderr, "cannot read directory %s\n", argv[i]);
      errors++;
      continue;
    }
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
      if (e->d_name[0] == '.') continue;
      size_t plen = strlen(argv[i]) + strlen(e->d_name) + 2;
      char *path = malloc(plen);
      if (path == NULL) break;
      snprintf(path, plen, "%s/%s", argv[i], e->d_name);
      if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        errors += run_file(path) != 0;
        inputs++;
      }
      free(path);
    }
    closedir(dir);
  }
  printf("%s: %ld input(s) replayed, %ld unreadable\n", argv[0], inputs, errors);
  return (inputs > 0 && errors == 0) ? 0 : 1;
}
