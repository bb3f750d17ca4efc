/* Drives the model tests/run_checks.rs builds where dims the run computes meet others:
 *   meet.h: x float[6], shape int64[2], b float[2, 3]; r = Reshape(x, shape), y = Add(r, b),
 *           c = Concat(r, b, axis 0).
 * r's dims are read from `shape`, so only the run can see that they equal b's: shape [2, 3]
 * must give y = r + b and c = [r; b], dims [2, 3] and [4, 3]; shape [3, 2], which Reshape
 * accepts but whose dims neither Add nor Concat does, must return XCC_ERROR_BAD_DIM from every
 * entry, a zero workspace, and leave the outputs untouched. Prints "ok N checks". */
#include "meet.h"
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

#define SENTINEL -7.0f

int main(void) {
  float x[6], b[6], y[7], c[13];
  for (int k = 0; k < 6; k++) {
    x[k] = (float)k;
    b[k] = 10.0f * (float)(k + 1);
  }
  for (int k = 0; k < 13; k++) c[k] = y[k % 7] = SENTINEL;
  int64_t good[2] = {2, 3}, y_dims[2] = {-5, -5}, c_dims[2] = {-5, -5};
  CHECK(meet_output_dims(x, good, b, y_dims, c_dims) == XCC_OK, "output_dims");
  CHECK(y_dims[0] == 2 && y_dims[1] == 3 && c_dims[0] == 4 && c_dims[1] == 3, "dims %lldx%lld and %lldx%lld",
        (long long)y_dims[0], (long long)y_dims[1], (long long)c_dims[0], (long long)c_dims[1]);
  size_t bytes = meet_workspace_size(x, good, b);
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  CHECK(meet_run(x, good, b, y, c, ws) == XCC_OK, "run");
  for (int k = 0; k < 6; k++) {
    CHECK(y[k] == x[k] + b[k], "y[%d] = %g, expected %g", k, y[k], x[k] + b[k]);
    CHECK(c[k] == x[k] && c[6 + k] == b[k], "c[%d] = %g and c[%d] = %g", k, c[k], 6 + k, c[6 + k]);
  }
  CHECK(y[6] == SENTINEL && c[12] == SENTINEL, "a write past an output");
  for (int k = 0; k < 13; k++) c[k] = y[k % 7] = SENTINEL;
  int64_t bad[2] = {3, 2};
  CHECK(meet_output_dims(x, bad, b, y_dims, c_dims) == XCC_ERROR_BAD_DIM, "output_dims of [3, 2]");
  CHECK(meet_workspace_size(x, bad, b) == 0, "a workspace for [3, 2]");
  static _Alignas(64) unsigned char scratch[1 << 12];
  CHECK(meet_run(x, bad, b, y, c, scratch) == XCC_ERROR_BAD_DIM, "run of [3, 2]");
  for (int k = 0; k < 13; k++) CHECK(c[k] == SENTINEL && y[k % 7] == SENTINEL, "a refused run wrote %d", k);
  free(ws);
  printf("%s %d checks\n", failures ? "FAILED" : "ok", checks);
  return failures != 0;
}
