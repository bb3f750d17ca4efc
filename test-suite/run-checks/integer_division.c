/* Drives the model tests/run_checks.rs builds for integer division with run-time divisors:
 *   division.h: a, b int32[8], k int32 scalar, c, d uint8[4];
 *               q = Div(a, b), r = Mod(a, b), f = Mod(a, b, fmod=1), s = Div(a, k), u = Div(c, d).
 * ONNX's integer Div truncates toward zero (C's `/`); Mod takes the divisor's sign (Python's %),
 * fmod=1 the dividend's (C's %). INT32_MIN / -1 wraps to INT32_MIN (remainder 0), as two's
 * complement arithmetic and numpy give; in C it is undefined, so it is worked out here by hand.
 * A divisor of 0 in b, k or d must make the run return XCC_ERROR_DIVISION_BY_ZERO (not trap);
 * a good run after a refused one must succeed again. Prints "ok N checks". */
#include "division.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static int32_t quotient(int32_t a, int32_t b) { return b == -1 ? (int32_t)(0u - (uint32_t)a) : a / b; }
static int32_t remainder_c(int32_t a, int32_t b) { return b == -1 ? 0 : a % b; }
static int32_t remainder_py(int32_t a, int32_t b) {
  int32_t r = remainder_c(a, b);
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

struct outputs {
  int32_t q[8], r[8], f[8], s[8];
  uint8_t u[4];
};

static int32_t run(const int32_t a[8], const int32_t b[8], int32_t k, const uint8_t c[4], const uint8_t d[4],
                   struct outputs *o) {
  size_t bytes = division_workspace_size();
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  int32_t rc = division_run(a, b, &k, c, d, o->q, o->r, o->f, o->s, o->u, ws);
  free(ws);
  return rc;
}

static void good(const int32_t a[8], const int32_t b[8], int32_t k, const uint8_t c[4], const uint8_t d[4]) {
  struct outputs o;
  int32_t rc = run(a, b, k, c, d, &o);
  CHECK(rc == XCC_OK, "run = %d (%s)", rc, xcc_status_message(rc));
  for (int i = 0; i < 8; i++) {
    CHECK(o.q[i] == quotient(a[i], b[i]), "%d / %d = %d", a[i], b[i], o.q[i]);
    CHECK(o.r[i] == remainder_py(a[i], b[i]), "%d mod %d = %d", a[i], b[i], o.r[i]);
    CHECK(o.f[i] == remainder_c(a[i], b[i]), "fmod(%d, %d) = %d", a[i], b[i], o.f[i]);
    CHECK(o.s[i] == quotient(a[i], k), "%d / %d = %d", a[i], k, o.s[i]);
  }
  for (int i = 0; i < 4; i++) CHECK(o.u[i] == c[i] / d[i], "uint8 %u / %u = %u", c[i], d[i], o.u[i]);
}

static void refused(const int32_t a[8], const int32_t b[8], int32_t k, const uint8_t c[4], const uint8_t d[4],
                    const char *what) {
  struct outputs o;
  int32_t rc = run(a, b, k, c, d, &o);
  CHECK(rc == XCC_ERROR_DIVISION_BY_ZERO, "%s: run = %d (%s)", what, rc, xcc_status_message(rc));
}

int main(void) {
  const int32_t a[8] = {7, -7, 7, -7, INT32_MIN, INT32_MAX, 0, INT32_MIN};
  const int32_t b[8] = {2, 2, -2, -2, -1, 3, 5, 7};
  const uint8_t c[4] = {200, 7, 255, 0}, d[4] = {3, 2, 255, 9};
  good(a, b, -3, c, d);
  good(a, b, -1, c, d);
  const int32_t b0[8] = {2, 2, -2, 0, -1, 3, 5, 7};
  const uint8_t d0[4] = {3, 2, 0, 9};
  refused(a, b0, -3, c, d, "a 0 in b");
  refused(a, b, 0, c, d, "k = 0");
  refused(a, b, -3, c, d0, "a 0 in d");
  good(a, b, 3, c, d);
  printf("%s %d checks\n", failures ? "FAILED" : "ok", checks);
  return failures != 0;
}
