/* Drives shape.h (tests/run_checks.rs builds it): r = Reshape(x, shape), s = ReduceSum(x, axes,
 * keepdims = 0), x of dims [2, 3, 4] holding 0..23. The expected dims and sums are worked out
 * here from the ONNX semantics; bad shapes and axes must return XCC_ERROR_BAD_SHAPE_INPUT from
 * every entry, a zero workspace, and leave the outputs as they were. Prints "ok N checks". */
#include "shape.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SENTINEL -7.0f

static float x[24];

/* A good shape and axis: the reported dims, then the run's values. */
static void good(int64_t s0, int64_t s1, int64_t s2, int64_t axis, const int64_t want_r[3], const int64_t want_s[2]) {
  int64_t shape[3] = {s0, s1, s2}, axes[1] = {axis}, rd[3] = {0}, sd[2] = {0};
  int32_t rc = shape_output_dims(x, shape, axes, rd, sd);
  CHECK(rc == XCC_OK, "output_dims(%lld %lld %lld, %lld) = %d", (long long)s0, (long long)s1, (long long)s2,
        (long long)axis, rc);
  for (int k = 0; k < 3; k++)
    CHECK(rd[k] == want_r[k], "r dim %d = %lld, expected %lld", k, (long long)rd[k], (long long)want_r[k]);
  for (int k = 0; k < 2; k++)
    CHECK(sd[k] == want_s[k], "s dim %d = %lld, expected %lld", k, (long long)sd[k], (long long)want_s[k]);
  float r[24], s[12];
  size_t bytes = shape_workspace_size(x, shape, axes);
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  rc = shape_run(x, shape, axes, r, s, ws);
  CHECK(rc == XCC_OK, "run = %d", rc);
  for (int k = 0; k < 24; k++) CHECK(r[k] == x[k], "r[%d] = %g, expected %g", k, r[k], x[k]);
  /* s = the sum of x[i][j][k] over the axis, in row-major order of the other two. */
  int dims[3] = {2, 3, 4}, a = (int)(axis < 0 ? axis + 3 : axis), n = 0;
  int other[2], o = 0;
  for (int d = 0; d < 3; d++)
    if (d != a) other[o++] = d;
  for (int p = 0; p < dims[other[0]]; p++)
    for (int q = 0; q < dims[other[1]]; q++, n++) {
      float want = 0;
      for (int t = 0; t < dims[a]; t++) {
        int at[3];
        at[a] = t, at[other[0]] = p, at[other[1]] = q;
        want += x[(at[0] * 3 + at[1]) * 4 + at[2]];
      }
      CHECK(s[n] == want, "axis %d: s[%d] = %g, expected %g", a, n, s[n], want);
    }
  free(ws);
}

/* A bad shape or axis: every entry refuses it, and the outputs stay as they were. */
static void bad(int64_t s0, int64_t s1, int64_t s2, int64_t axis) {
  int64_t shape[3] = {s0, s1, s2}, axes[1] = {axis}, rd[3] = {-5, -5, -5}, sd[2] = {-5, -5};
  int32_t rc = shape_output_dims(x, shape, axes, rd, sd);
  CHECK(rc == XCC_ERROR_BAD_SHAPE_INPUT, "output_dims(%lld %lld %lld, %lld) = %d, expected %d", (long long)s0,
        (long long)s1, (long long)s2, (long long)axis, rc, XCC_ERROR_BAD_SHAPE_INPUT);
  CHECK(rd[0] == -5 && sd[0] == -5, "output_dims wrote dims it refused");
  CHECK(shape_workspace_size(x, shape, axes) == 0, "a workspace for refused inputs");
  static float r[64], s[64];
  for (int k = 0; k < 64; k++) r[k] = s[k] = SENTINEL;
  static _Alignas(64) unsigned char ws[4096];
  rc = shape_run(x, shape, axes, r, s, ws);
  CHECK(rc == XCC_ERROR_BAD_SHAPE_INPUT, "run = %d", rc);
  for (int k = 0; k < 64; k++) CHECK(r[k] == SENTINEL && s[k] == SENTINEL, "a refused run wrote element %d", k);
  rc = shape_run_alloc(x, shape, axes, r, s);
  CHECK(rc == XCC_ERROR_BAD_SHAPE_INPUT, "run_alloc = %d", rc);
  CHECK(strstr(xcc_status_message(rc), "shape") != NULL, "message: %s", xcc_status_message(rc));
}

int main(void) {
  for (int k = 0; k < 24; k++) x[k] = (float)k;
  const int64_t r423[3] = {4, 3, 2}, r262[3] = {2, 6, 2}, r234[3] = {2, 3, 4}, r1242[3] = {12, 2, 1};
  const int64_t s24[2] = {2, 4}, s34[2] = {3, 4}, s23[2] = {2, 3};
  good(4, -1, 2, 1, r423, s24);  /* -1 takes what is left */
  good(0, 6, -1, -3, r262, s34); /* 0 copies the input's dim; a negative axis counts from the end */
  good(0, 0, 0, 2, r234, s23);
  good(12, 2, 1, -2, r1242, s24);
  bad(5, -1, 2, 1);  /* 24 is no multiple of 10 */
  bad(-1, -1, 24, 1); /* two -1 */
  bad(-3, 2, -4, 1);  /* negative sizes whose product is 24 */
  bad(4, 3, 3, 1);    /* 36 elements */
  bad(4, -1, 2, 3);   /* axis out of range */
  bad(4, -1, 2, -4);
  if (failures) {
    printf("%d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("ok %d checks\n", checks);
  return 0;
}
