/* The CHECK macro of the run-check drivers: counts checks, prints each failure with its line. */
#ifndef XCC_RUN_CHECKS_CHECK_H
#define XCC_RUN_CHECKS_CHECK_H
#include <stdio.h>

static int checks, failures;
#define CHECK(cond, ...)                                                                                              \
  do {                                                                                                                \
    checks++;                                                                                                         \
    if (!(cond)) {                                                                                                    \
      failures++;                                                                                                     \
      printf("FAIL line %d: ", __LINE__);                                                                             \
      printf(__VA_ARGS__);                                                                                            \
      printf("\n");                                                                                                   \
    }                                                                                                                 \
  } while (0)

#endif
