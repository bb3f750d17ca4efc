/* The check the GPU failure-path programs make: on failure, the message, runtime-c's last error
   and exit status 3. */
#ifndef XCC_TEST_EXPECT_H
#define XCC_TEST_EXPECT_H
#include <stdio.h>

#define EXPECT(cond, ...)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fprintf(stderr, " (last error: %s)\n", xcc_gpu_last_error());                                \
      return 3;                                                                                    \
    }                                                                                              \
  } while (0)

#endif
