/* Drives the model tests/run_checks.rs builds as window.h, over x of dims [4, 5] (distinct
 * values):
 *   sl = Slice(x, starts, ends, axes, steps);  sa, sb = Split(x, split, axis = 1);
 *   p = Pad(x, pads) (constant 0);  t = Tile(x, reps);  tv, ti = TopK(x, k) (largest, last axis);
 *   rz = Resize(x, scales = rscales) (nearest, asymmetric, floor);
 *   fr = Range(rstart, rlimit, rdelta) over floats;  dy = Dropout(x, dratio, dtrain): x itself at
 *   inference; in training, each element 0 or x / (1 - dratio), some of each for 0 < dratio.
 * Every parameter is a graph input. The expected dims and values are worked out here from the
 * ONNX semantics; bad parameters must return XCC_ERROR_BAD_SHAPE_INPUT from every entry, a zero
 * workspace, and leave the outputs as they were. Prints "ok N checks". */
#include "window.h"
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SENTINEL -7.0f
#define R 4
#define C 5
#define CAP 1024

typedef struct {
  int64_t starts[2], ends[2], axes[2], steps[2], split[2], pads[4], reps[2], k;
  float rscales[2], rstart, rlimit, rdelta, dratio;
  bool dtrain;
} params;

static float x[R * C];

typedef struct {
  float sl[CAP], sa[CAP], sb[CAP], p[CAP], t[CAP], tv[CAP], rz[CAP], fr[CAP], dy[CAP];
  int64_t ti[CAP];
} outputs;

static int32_t dims_of(const params *a, int64_t d[10][2]) {
  return window_output_dims(x, a->starts, a->ends, a->axes, a->steps, a->split, a->pads, a->reps, &a->k, a->rscales,
                            &a->rstart, &a->rlimit, &a->rdelta, &a->dratio, &a->dtrain, d[0], d[1], d[2], d[3], d[4],
                            d[5], d[6], d[7], d[8], d[9]);
}

static int32_t run(const params *a, outputs *o, void *ws) {
  return window_run(x, a->starts, a->ends, a->axes, a->steps, a->split, a->pads, a->reps, &a->k, a->rscales,
                    &a->rstart, &a->rlimit, &a->rdelta, &a->dratio, &a->dtrain, o->sl, o->sa, o->sb, o->p, o->t, o->tv,
                    o->ti, o->rz, o->fr, o->dy, ws);
}

static int32_t run_alloc(const params *a, outputs *o) {
  return window_run_alloc(x, a->starts, a->ends, a->axes, a->steps, a->split, a->pads, a->reps, &a->k, a->rscales,
                          &a->rstart, &a->rlimit, &a->rdelta, &a->dratio, &a->dtrain, o->sl, o->sa, o->sb, o->p, o->t,
                          o->tv, o->ti, o->rz, o->fr, o->dy);
}

static size_t ws_size(const params *a) {
  return window_workspace_size(x, a->starts, a->ends, a->axes, a->steps, a->split, a->pads, a->reps, &a->k,
                               a->rscales, &a->rstart, &a->rlimit, &a->rdelta, &a->dratio, &a->dtrain);
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The spec's Slice along one dim of size n: the first index and the count. */
static void slice_dim(int64_t s, int64_t e, int64_t step, int64_t n, int64_t *first, int64_t *count) {
  if (s < 0) s += n;
  if (e < 0) e += n;
  if (step > 0) {
    s = clamp(s, 0, n), e = clamp(e, 0, n);
    *count = e > s ? (e - s + step - 1) / step : 0;
  } else {
    s = clamp(s, -1, n - 1), e = clamp(e, -1, n - 1);
    *count = s > e ? (s - e - step - 1) / -step : 0;
  }
  *first = s;
}

/* Dropout: x at inference; in training, every element dropped (0) or kept and scaled. The mask
 * comes from the seeded stream (the node tests check it against ONNX's reference draws): here,
 * only that both happen. */
static void check_dropout(const params *a, const float *dy) {
  float scale = a->dtrain ? (float)(1.0 / (1.0 - (double)a->dratio)) : 1.0f;
  int dropped = 0, kept = 0;
  for (int k = 0; k < R * C; k++) {
    float scaled = x[k] * scale;
    bool zero = a->dtrain && dy[k] == 0.0f;
    dropped += zero, kept += dy[k] == scaled;
    CHECK(zero || dy[k] == scaled, "dy[%d] = %g, expected 0 or %g", k, dy[k], scaled);
  }
  if (a->dtrain && a->dratio > 0.0f) CHECK(dropped > 0 && kept > 0, "dropout kept %d and dropped %d", kept, dropped);
}

static void good(params a) {
  int64_t d[10][2];
  int32_t rc = dims_of(&a, d);
  CHECK(rc == XCC_OK, "output_dims = %d", rc);
  int64_t first[2] = {0, 0}, count[2] = {R, C}, step[2] = {1, 1}, n[2] = {R, C};
  for (int k = 0; k < 2; k++) {
    int64_t ax = a.axes[k] < 0 ? a.axes[k] + 2 : a.axes[k];
    slice_dim(a.starts[k], a.ends[k], a.steps[k], n[ax], &first[ax], &count[ax]);
    step[ax] = a.steps[k];
  }
  double span = ceil(((double)a.rlimit - (double)a.rstart) / (double)a.rdelta);
  int64_t want[10][2] = {{count[0], count[1]},
                        {R, a.split[0]},
                        {R, a.split[1]},
                        {R + a.pads[0] + a.pads[2], C + a.pads[1] + a.pads[3]},
                        {R * a.reps[0], C * a.reps[1]},
                        {R, a.k},
                        {R, a.k},
                        {(int64_t)floor(R * (double)a.rscales[0]), (int64_t)floor(C * (double)a.rscales[1])},
                        {span > 0 ? (int64_t)span : 0, 0},
                        {R, C}};
  for (int o = 0; o < 10; o++)
    for (int k = 0; k < (o == 8 ? 1 : 2); k++)
      CHECK(d[o][k] == want[o][k], "output %d dim %d = %lld, expected %lld", o, k, (long long)d[o][k],
            (long long)want[o][k]);
  static outputs out;
  for (int k = 0; k < CAP; k++)
    out.sl[k] = out.sa[k] = out.sb[k] = out.p[k] = out.t[k] = out.tv[k] = out.rz[k] = out.fr[k] = out.dy[k] = SENTINEL, out.ti[k] = -5;
  size_t bytes = ws_size(&a);
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  rc = run(&a, &out, ws);
  CHECK(rc == XCC_OK, "run = %d", rc);
  free(ws);
  int m = 0;
  for (int64_t i = 0; i < count[0]; i++)
    for (int64_t j = 0; j < count[1]; j++, m++) {
      float v = x[(first[0] + i * step[0]) * C + first[1] + j * step[1]];
      CHECK(out.sl[m] == v, "sl[%lld][%lld] = %g, expected %g", (long long)i, (long long)j, out.sl[m], v);
    }
  CHECK(out.sl[m] == SENTINEL, "sl wrote past its %d elements", m);
  for (int i = 0; i < R; i++)
    for (int64_t j = 0; j < C; j++) {
      float v = x[i * C + j];
      if (j < a.split[0])
        CHECK(out.sa[i * a.split[0] + j] == v, "sa[%d][%lld]", i, (long long)j);
      else
        CHECK(out.sb[i * a.split[1] + j - a.split[0]] == v, "sb[%d][%lld]", i, (long long)(j - a.split[0]));
    }
  for (int64_t i = 0; i < want[3][0]; i++)
    for (int64_t j = 0; j < want[3][1]; j++) {
      int64_t si = i - a.pads[0], sj = j - a.pads[1];
      float v = si >= 0 && si < R && sj >= 0 && sj < C ? x[si * C + sj] : 0.0f;
      CHECK(out.p[i * want[3][1] + j] == v, "p[%lld][%lld] = %g, expected %g", (long long)i, (long long)j,
            out.p[i * want[3][1] + j], v);
    }
  for (int64_t i = 0; i < want[4][0]; i++)
    for (int64_t j = 0; j < want[4][1]; j++)
      CHECK(out.t[i * want[4][1] + j] == x[(i % R) * C + j % C], "t[%lld][%lld]", (long long)i, (long long)j);
  /* Nearest, asymmetric, floor: output (i, j) reads (floor(i / s0), floor(j / s1)), clamped. */
  for (int64_t i = 0; i < want[7][0]; i++)
    for (int64_t j = 0; j < want[7][1]; j++) {
      int64_t si = (int64_t)floor((double)i / a.rscales[0]), sj = (int64_t)floor((double)j / a.rscales[1]);
      si = clamp(si, 0, R - 1), sj = clamp(sj, 0, C - 1);
      CHECK(out.rz[i * want[7][1] + j] == x[si * C + sj], "rz[%lld][%lld] = %g, expected %g", (long long)i,
            (long long)j, out.rz[i * want[7][1] + j], x[si * C + sj]);
    }
  CHECK(out.rz[want[7][0] * want[7][1]] == SENTINEL, "rz wrote past its elements");
  for (int64_t i = 0; i < want[8][0]; i++) {
    float v = (float)((double)a.rstart + (double)i * (double)a.rdelta);
    CHECK(out.fr[i] == v, "fr[%lld] = %g, expected %g", (long long)i, out.fr[i], v);
  }
  CHECK(out.fr[want[8][0]] == SENTINEL, "fr wrote past its %lld elements", (long long)want[8][0]);
  check_dropout(&a, out.dy);
  for (int i = 0; i < R; i++) {
    int taken[C] = {0};
    for (int64_t q = 0; q < a.k; q++) {
      int best = -1;
      for (int j = 0; j < C; j++)
        if (!taken[j] && (best < 0 || x[i * C + j] > x[i * C + best])) best = j;
      taken[best] = 1;
      CHECK(out.tv[i * a.k + q] == x[i * C + best] && out.ti[i * a.k + q] == best, "topk row %d place %lld: %g at %lld",
            i, (long long)q, out.tv[i * a.k + q], (long long)out.ti[i * a.k + q]);
    }
  }
}

static void refused(params a, const char *why, int32_t want) {
  int64_t d[10][2] = {{-5, -5}};
  int32_t rc = dims_of(&a, d);
  CHECK(rc == want, "%s: output_dims = %d, expected %d", why, rc, want);
  CHECK(d[0][0] == -5, "%s: output_dims wrote dims it refused", why);
  CHECK(ws_size(&a) == 0, "%s: a workspace for refused inputs", why);
  static outputs out;
  for (int k = 0; k < CAP; k++)
    out.sl[k] = out.sa[k] = out.sb[k] = out.p[k] = out.t[k] = out.tv[k] = out.rz[k] = out.fr[k] = out.dy[k] = SENTINEL, out.ti[k] = -5;
  static _Alignas(64) unsigned char ws[1 << 16];
  rc = run(&a, &out, ws);
  CHECK(rc == want, "%s: run = %d", why, rc);
  rc = run_alloc(&a, &out);
  CHECK(rc == want, "%s: run_alloc = %d", why, rc);
  for (int k = 0; k < CAP; k++)
    CHECK(out.sl[k] == SENTINEL && out.sa[k] == SENTINEL && out.sb[k] == SENTINEL && out.p[k] == SENTINEL &&
              out.t[k] == SENTINEL && out.tv[k] == SENTINEL && out.rz[k] == SENTINEL && out.fr[k] == SENTINEL &&
              out.dy[k] == SENTINEL && out.ti[k] == -5,
          "%s: a refused run wrote element %d", why, k);
}

static void bad(params a, const char *why) { refused(a, why, XCC_ERROR_BAD_SHAPE_INPUT); }

int main(void) {
  for (int k = 0; k < R * C; k++) x[k] = (float)((k * 7) % 20) - 5.5f;
  const params base = {{1, 0}, {3, 5}, {0, 1}, {1, 2}, {2, 3}, {1, 0, 0, 2}, {2, 1}, 3, {2.0f, 0.5f}, 1.0f, 4.0f, 0.75f, 0.3f, false};
  good(base);
  /* Backwards with clamped bounds, axes named from the end and swapped; an empty piece; a crop
   * and a pad; no repeats of the rows; K = 0 and K = all. */
  good((params){{-1, 100}, {-100, 1}, {-1, 0}, {-2, -1}, {0, 5}, {-1, 1, 0, -2}, {0, 3}, 0, {1.6f, 3.0f}, 2.5f, -1.0f, -0.5f, 0.0f, true});
  good((params){{0, 2}, {9, 2}, {1, 0}, {1, 1}, {5, 0}, {0, 0, 0, 0}, {1, 1}, 5, {0.1f, 1.0f}, 3.0f, 1.0f, 0.5f, 0.9f, false});
  params a = base;
  a.steps[1] = 0, bad(a, "a step of 0");
  a = base, a.axes[1] = 2, bad(a, "a slice axis out of range");
  a = base, a.axes[1] = -3, bad(a, "a negative slice axis out of range");
  a = base, a.axes[1] = -2, bad(a, "a slice axis named twice");
  a = base, a.split[1] = 2, bad(a, "split sizes short of the dim");
  a = base, a.split[0] = -1, a.split[1] = 6, bad(a, "a negative split size");
  a = base, a.pads[0] = -3, a.pads[2] = -2, bad(a, "a pad cropping below zero");
  a = base, a.reps[0] = -1, bad(a, "negative repeats");
  a = base, a.k = 6, bad(a, "K past the axis");
  a = base, a.k = -1, bad(a, "a negative K");
  a = base, a.rscales[1] = -0.5f, bad(a, "a negative scale");
  a = base, a.rscales[0] = NAN, bad(a, "a NaN scale");
  a = base, a.rscales[0] = INFINITY, bad(a, "an infinite scale");
  a = base, a.rdelta = 0.0f, bad(a, "a Range delta of 0");
  a = base, a.rdelta = NAN, bad(a, "a NaN Range delta");
  a = base, a.dtrain = true, good(a);
  a = base, a.dtrain = true, a.dratio = NAN, bad(a, "Dropout training with a NaN ratio");
  a = base, a.dtrain = true, a.dratio = 1.0f, bad(a, "Dropout training with a ratio of 1");
  a = base, a.dtrain = true, a.dratio = -0.25f, bad(a, "Dropout training with a negative ratio");
  if (failures) {
    printf("%d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("ok %d checks\n", checks);
  return 0;
}
