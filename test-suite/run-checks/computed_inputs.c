/* Drives the model tests/run_checks.rs builds for shape inputs computed by other nodes:
 *   computed.h: y = Pad(x, Div(p, d)) (constant 0), x of dims [2, 3] holding 1..6, p int64[4],
 *               d int64[1]: the pads are an integer Div of two inputs, which rounds toward zero
 *               (C's `/`, not a floor: -3 / 2 is -1).
 * The expected dims and values are worked out here from the ONNX semantics; a divisor of 0 and
 * pads that crop below zero must return XCC_ERROR_BAD_SHAPE_INPUT from every entry, a zero
 * workspace, and leave the output as it was. Prints "ok N checks". */
#include "computed.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SENTINEL -7.0f
#define R 2
#define C 3

static float x[R * C];

static void good(const int64_t p[4], int64_t d) {
  int64_t pads[4], div[1] = {d}, dims[2] = {-5, -5};
  for (int k = 0; k < 4; k++) pads[k] = p[k] / d;
  int64_t rows = R + pads[0] + pads[2], cols = C + pads[1] + pads[3];
  int32_t rc = computed_output_dims(x, p, div, dims);
  CHECK(rc == XCC_OK, "output_dims(p / %lld) = %d", (long long)d, rc);
  CHECK(dims[0] == rows && dims[1] == cols, "p / %lld: dims %lld x %lld, expected %lld x %lld", (long long)d,
        (long long)dims[0], (long long)dims[1], (long long)rows, (long long)cols);
  float y[64];
  size_t bytes = computed_workspace_size(x, p, div);
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  rc = computed_run(x, p, div, y, ws);
  CHECK(rc == XCC_OK, "p / %lld: run = %d", (long long)d, rc);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      int64_t si = i - pads[0], sj = j - pads[1];
      float want = si >= 0 && si < R && sj >= 0 && sj < C ? x[si * C + sj] : 0.0f;
      CHECK(y[i * cols + j] == want, "p / %lld: y[%lld][%lld] = %g, expected %g", (long long)d, (long long)i,
            (long long)j, y[i * cols + j], want);
    }
  free(ws);
}

static void bad(const int64_t p[4], int64_t d, const char *why) {
  int64_t div[1] = {d}, dims[2] = {-5, -5};
  float y[64];
  for (int k = 0; k < 64; k++) y[k] = SENTINEL;
  CHECK(computed_output_dims(x, p, div, dims) == XCC_ERROR_BAD_SHAPE_INPUT, "%s: output_dims", why);
  CHECK(dims[0] == -5 && dims[1] == -5, "%s: refused dims were written", why);
  CHECK(computed_workspace_size(x, p, div) == 0, "%s: a workspace for refused inputs", why);
  static _Alignas(64) unsigned char ws[4096];
  CHECK(computed_run(x, p, div, y, ws) == XCC_ERROR_BAD_SHAPE_INPUT, "%s: run", why);
  for (int k = 0; k < 64; k++) CHECK(y[k] == SENTINEL, "%s: a refused run wrote element %d", why, k);
}

int main(void) {
  for (int k = 0; k < R * C; k++) x[k] = (float)(k + 1);
  good((int64_t[4]){2, 0, 2, 0}, 2);   /* a row of zeros above and below */
  good((int64_t[4]){-3, 2, 0, 5}, 2);  /* -3 / 2 = -1 crops one row (a floor would crop both) */
  good((int64_t[4]){3, -3, -3, 0}, -3); /* negative divisor: -1, 1, 1, 0 */
  good((int64_t[4]){1, 1, 1, 1}, 5);   /* all zero: a copy */
  bad((int64_t[4]){2, 0, 2, 0}, 0, "a divisor of 0");
  bad((int64_t[4]){-6, 0, 0, 0}, 2, "a crop of 3 rows out of 2");
  printf("%s %d checks\n", failures ? "FAILED" : "ok", checks);
  return failures != 0;
}
