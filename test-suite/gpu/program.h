/* What the GPU failure-path programs share: their check (on failure: the message, runtime-c's
   last error and exit status 3) and the reading of their input file. */
#ifndef XCC_TEST_PROGRAM_H
#define XCC_TEST_PROGRAM_H
#include <stdio.h>

#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, " (last error: %s)\n", xcc_gpu_last_error());                                \
      return 3;                                                                                    \
    }                                                                                              \
  } while (0)

/* `bytes` bytes of the file `path` into `buffer`: 1, or 0 after saying why not. */
static inline int read_input(const char *path, void *buffer, size_t bytes) {
  FILE *f = path ? fopen(path, "rb") : NULL;
  int ok = f && fread(buffer, bytes, 1, f) == 1;
  if (f) fclose(f);
  if (!ok) fprintf(stderr, "cannot read %zu bytes of %s\n", bytes, path ? path : "(no file given)");
  return ok;
}

#endif
