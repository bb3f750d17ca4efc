/* Drives the models tests/run_checks.rs builds:
 *   shape.h: r = Reshape(x, shape), s = ReduceSum(x, axes, keepdims = 0), x of dims [2, 3, 4]
 *            holding 0..23;
 *   more.h:  e = Expand(col, eshape), q = Range(start, limit, delta), z = Squeeze(col, saxes),
 *            u = Unsqueeze(col, uaxes), c = ConstantOfShape(cshape), col of dims [3, 1];
 *   fixed.h: f = Expand(mat, fshape), mat of dims [3, 4]: the output dims are fixed, the shape
 *            input only checked.
 * The expected dims and values are worked out here from the ONNX semantics; bad shapes and axes
 * must return XCC_ERROR_BAD_SHAPE_INPUT from every entry, a zero workspace, and leave the
 * outputs as they were. Prints "ok N checks". */
#include "fixed.h"
#include "more.h"
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

/* ---- more.h -------------------------------------------------------------------------------- */

typedef struct {
  int64_t eshape[2], start, limit, delta, saxes, uaxes, cshape[2];
} more_inputs;

static const float col[3] = {1.5f, -2.0f, 4.0f};

static int32_t more_dims(const more_inputs *a, int64_t d[5][3]) {
  return more_output_dims(col, a->eshape, &a->start, &a->limit, &a->delta, &a->saxes, &a->uaxes, a->cshape, d[0],
                          d[1], d[2], d[3], d[4]);
}

static int32_t more_go(const more_inputs *a, float *e, int64_t *q, float *z, float *u, float *c, void *ws) {
  return more_run(col, a->eshape, &a->start, &a->limit, &a->delta, &a->saxes, &a->uaxes, a->cshape, e, q, z, u, c,
                  ws);
}

static size_t more_ws(const more_inputs *a) {
  return more_workspace_size(col, a->eshape, &a->start, &a->limit, &a->delta, &a->saxes, &a->uaxes, a->cshape);
}

static void more_good(more_inputs a) {
  int64_t d[5][3] = {{0}};
  int32_t rc = more_dims(&a, d);
  CHECK(rc == XCC_OK, "more_output_dims = %d", rc);
  /* Expand: [3, 1] with eshape broadcasts to [3, eshape[1]] (eshape[0] is 1 or 3). */
  CHECK(d[0][0] == 3 && d[0][1] == a.eshape[1], "e dims %lld %lld", (long long)d[0][0], (long long)d[0][1]);
  int64_t n = 0;
  for (int64_t v = a.start; a.delta > 0 ? v < a.limit : v > a.limit; v += a.delta) n++;
  CHECK(d[1][0] == n, "q has %lld elements, expected %lld", (long long)d[1][0], (long long)n);
  CHECK(d[2][0] == 3, "z dims %lld", (long long)d[2][0]);
  int64_t uaxis = a.uaxes < 0 ? a.uaxes + 3 : a.uaxes;
  for (int k = 0; k < 3; k++) {
    int64_t want = k == uaxis ? 1 : (k == (uaxis == 0 ? 1 : 0) ? 3 : 1);
    CHECK(d[3][k] == want, "u dim %d = %lld, expected %lld", k, (long long)d[3][k], (long long)want);
  }
  CHECK(d[4][0] == a.cshape[0] && d[4][1] == a.cshape[1], "c dims %lld %lld", (long long)d[4][0], (long long)d[4][1]);
  float e[64], z[3], u[3], c[64];
  int64_t q[64];
  for (int k = 0; k < 64; k++) c[k] = SENTINEL;
  size_t bytes = more_ws(&a);
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  rc = more_go(&a, e, q, z, u, c, ws);
  CHECK(rc == XCC_OK, "more_run = %d", rc);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < a.eshape[1]; j++)
      CHECK(e[i * a.eshape[1] + j] == col[i], "e[%d][%d] = %g, expected %g", i, j, e[i * a.eshape[1] + j], col[i]);
  for (int64_t k = 0; k < n; k++)
    CHECK(q[k] == a.start + k * a.delta, "q[%lld] = %lld", (long long)k, (long long)q[k]);
  for (int k = 0; k < 3; k++) CHECK(z[k] == col[k] && u[k] == col[k], "z/u[%d] = %g/%g", k, z[k], u[k]);
  int64_t cn = a.cshape[0] * a.cshape[1];
  for (int k = 0; k < 64; k++) CHECK(c[k] == (k < cn ? 0.0f : SENTINEL), "c[%d] = %g", k, c[k]);
  free(ws);
}

static void more_bad(more_inputs a, const char *why) {
  int64_t d[5][3] = {{-5}};
  int32_t rc = more_dims(&a, d);
  CHECK(rc == XCC_ERROR_BAD_SHAPE_INPUT, "%s: more_output_dims = %d", why, rc);
  CHECK(d[0][0] == -5, "%s: output_dims wrote dims it refused", why);
  CHECK(more_ws(&a) == 0, "%s: a workspace for refused inputs", why);
  static float e[64], z[64], u[64], c[64];
  static int64_t q[64];
  for (int k = 0; k < 64; k++) e[k] = z[k] = u[k] = c[k] = SENTINEL, q[k] = -5;
  static _Alignas(64) unsigned char ws[4096];
  rc = more_go(&a, e, q, z, u, c, ws);
  CHECK(rc == XCC_ERROR_BAD_SHAPE_INPUT, "%s: more_run = %d", why, rc);
  for (int k = 0; k < 64; k++)
    CHECK(e[k] == SENTINEL && z[k] == SENTINEL && u[k] == SENTINEL && c[k] == SENTINEL && q[k] == -5,
          "%s: a refused run wrote element %d", why, k);
}

/* ---- fixed.h ------------------------------------------------------------------------------- */

static void fixed_case(int64_t s0, int64_t s1, int32_t want) {
  float mat[12], f[12];
  for (int k = 0; k < 12; k++) mat[k] = (float)(k * k) - 3.0f, f[k] = SENTINEL;
  int64_t fshape[2] = {s0, s1}, dims[2] = {-5, -5};
  int32_t rc = fixed_output_dims(mat, fshape, dims);
  CHECK(rc == want, "fixed_output_dims(%lld, %lld) = %d, expected %d", (long long)s0, (long long)s1, rc, want);
  CHECK(want != XCC_OK || (dims[0] == 3 && dims[1] == 4), "fixed dims %lld %lld", (long long)dims[0],
        (long long)dims[1]);
  CHECK((fixed_workspace_size(mat, fshape) == 0) || want == XCC_OK, "a workspace for refused inputs");
  static _Alignas(64) unsigned char ws[4096];
  rc = fixed_run(mat, fshape, f, ws);
  CHECK(rc == want, "fixed_run = %d, expected %d", rc, want);
  for (int k = 0; k < 12; k++) CHECK(f[k] == (want == XCC_OK ? mat[k] : SENTINEL), "f[%d] = %g", k, f[k]);
}

int main(void) {
  const more_inputs base = {{3, 4}, 2, 11, 3, 1, 0, {2, 3}};
  more_good(base);
  more_good((more_inputs){{1, 2}, 5, 0, -2, -1, -1, {0, 4}}); /* a 1 broadcasts; counting down; empty c */
  more_inputs a = base;
  a.eshape[0] = 2, more_bad(a, "eshape 2 against dim 3");
  a = base, a.delta = 0, more_bad(a, "delta 0");
  a = base, a.saxes = 0, more_bad(a, "squeezing a dim of 3");
  a = base, a.saxes = 2, more_bad(a, "squeeze axis out of range");
  a = base, a.uaxes = 3, more_bad(a, "unsqueeze axis out of range");
  a = base, a.cshape[1] = -1, more_bad(a, "negative size");
  fixed_case(3, 4, XCC_OK);
  fixed_case(1, 4, XCC_OK);
  fixed_case(3, 5, XCC_ERROR_BAD_SHAPE_INPUT);
  fixed_case(2, 4, XCC_ERROR_BAD_SHAPE_INPUT);
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
