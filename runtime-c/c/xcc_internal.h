/* What runtime-c's sources share and the programs it links into do not see: the feature macro
 * every source needs before the system headers, the attribute of every definition, the system
 * headers, and two small helpers. Each source includes it first. */
#ifndef XCC_INTERNAL_H
#define XCC_INTERNAL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity: the cores this process may use */
#endif

#include "xcc_runtime.h"

/* Every definition is weak: each library xcc writes carries this runtime, so that one archive links
 * alone, and two models bundled into one program or shared library (`--whole-archive`) must not
 * clash. The linker keeps the first copy of each function; copies of one runtime ABI are
 * interchangeable (see docs/c-abi.md, "Linking several models"). */
#define XCC_DEF XCC_API __attribute__((weak))

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Records `code` in a run's status unless an earlier failure is there already. */
static inline void fail_status(int32_t *status, int32_t code) {
  if (*status == XCC_OK)
    *status = code;
}

/* C's isspace in the "C" locale, whatever the process's locale. */
static inline int is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

#endif
