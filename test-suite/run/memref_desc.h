/* What the hand-written run harnesses share: the upstream memref descriptors of rank 1 to 4
 * (allocated and aligned pointers, offset, sizes, strides), row-major descriptors over a
 * buffer, and deterministic test values. */
#ifndef XCC_TEST_MEMREF_DESC_H
#define XCC_TEST_MEMREF_DESC_H

#include <stdint.h>

#define DESC(N) struct { void *allocated, *aligned; int64_t offset, sizes[N], strides[N]; }
typedef DESC(1) D1;
typedef DESC(2) D2;
typedef DESC(3) D3;
typedef DESC(4) D4;

static inline D1 d1(void *p, int64_t a) { D1 d = {p, p, 0, {a}, {1}}; return d; }
static inline D2 d2(void *p, int64_t a, int64_t b) { D2 d = {p, p, 0, {a, b}, {b, 1}}; return d; }
static inline D3 d3(void *p, int64_t a, int64_t b, int64_t c) {
  D3 d = {p, p, 0, {a, b, c}, {b * c, c, 1}};
  return d;
}
static inline D4 d4(void *p, int64_t a, int64_t b, int64_t c, int64_t e) {
  D4 d = {p, p, 0, {a, b, c, e}, {b * c * e, c * e, e, 1}};
  return d;
}

/* Deterministic values in [-1, 1). */
static inline float val(int i) { return (float)((i * 37 + 11) % 23) / 11.5f - 1.0f; }

#endif
