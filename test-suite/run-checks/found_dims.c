/* Drives the model tests/run_checks.rs builds whose output dims the run finds:
 *   kept.h: x float[n], t float[]; m = Greater(x, t), y = Compress(x, m, axis 0), z = Mul(y, y),
 *           i = NonZero(m), s = ReduceSum(z, keepdims 0).
 * kept_output_dims gives the capacities (z: [n], i: [1, n]); a run writes the dims it found
 * (the count of elements above t) to z_dims and i_dims, the kept elements in order, and
 * nothing past them. A threshold above every element finds none (s = 0); a NULL dims array is
 * XCC_ERROR_NULL_TENSOR. Prints "ok N checks". */
#include "kept.h"
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

#define N 6
#define SENTINEL -7.0f

int main(void) {
  float x[N] = {3, -1, 5, 0, 2, -4}, z[N], s;
  int64_t i[N], z_cap[1] = {-5}, i_cap[2] = {-5, -5}, s_cap[1];
  CHECK(kept_output_dims(N, z_cap, i_cap, s_cap) == XCC_OK, "output_dims");
  CHECK(z_cap[0] == N && i_cap[0] == 1 && i_cap[1] == N, "capacities [%lld] and [%lld, %lld]", (long long)z_cap[0],
        (long long)i_cap[0], (long long)i_cap[1]);
  size_t bytes = kept_workspace_size(N);
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  const float thresholds[2] = {0.0f, 100.0f};
  for (int run = 0; run < 2; run++) {
    float t = thresholds[run];
    for (int k = 0; k < N; k++) {
      z[k] = SENTINEL;
      i[k] = -9;
    }
    int64_t z_dims[1] = {-5}, i_dims[2] = {-5, -5};
    CHECK(kept_run(N, x, &t, z, i, &s, z_dims, i_dims, ws) == XCC_OK, "run above %g", t);
    int64_t count = 0;
    float sum = 0.0f;
    for (int k = 0; k < N; k++) {
      if (x[k] > t) {
        CHECK(z[count] == x[k] * x[k], "z[%lld] = %g, expected %g", (long long)count, z[count], x[k] * x[k]);
        CHECK(i[count] == k, "i[%lld] = %lld, expected %d", (long long)count, (long long)i[count], k);
        sum += x[k] * x[k];
        count++;
      }
    }
    CHECK(z_dims[0] == count, "z's dims [%lld], expected [%lld]", (long long)z_dims[0], (long long)count);
    CHECK(i_dims[0] == 1 && i_dims[1] == count, "i's dims [%lld, %lld]", (long long)i_dims[0], (long long)i_dims[1]);
    CHECK(s == sum, "s = %g, expected %g", s, sum);
    for (int k = (int)count; k < N; k++) CHECK(z[k] == SENTINEL && i[k] == -9, "a write past the count at %d", k);
  }
  float t = 0.0f;
  int64_t z_dims[1];
  CHECK(kept_run(N, x, &t, z, i, &s, z_dims, NULL, ws) == XCC_ERROR_NULL_TENSOR, "a NULL dims array");
  free(ws);
  printf("%s %d checks\n", failures ? "FAILED" : "ok", checks);
  return failures != 0;
}
