/* Drives the models tests/run_checks.rs builds for regions of interest read at run time:
 *   align.h: x float[n, 2, height, width], rois float[r, 4], batch_indices int64[r];
 *            y = RoiAlign(x, rois, batch_indices), 2x2 bins of 2x2 samples, half_pixel;
 *   pool.h:  x float[n, 2, height, width], rois float[r, 5]; y = MaxRoiPool(x, rois), 2x2 bins.
 * The images are ramps along the width (x[b, c, h, w] = w + 100 b + 10 c), which bilinear
 * sampling reproduces exactly, so each bin's average is the ramp at the bin's centre and each
 * bin's maximum the ramp at its last pixel, worked out here. A region past the image samples
 * zeros. A batch outside [0, n) must return XCC_ERROR_INDEX_OUT_OF_RANGE. Prints "ok N checks". */
#include "align.h"
#include "pool.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

#define N 2
#define H 6
#define W 8
#define R 3

static float x[N * 2 * H * W];

static void ramp(void) {
  for (int b = 0; b < N; b++)
    for (int c = 0; c < 2; c++)
      for (int h = 0; h < H; h++)
        for (int w = 0; w < W; w++) x[((b * 2 + c) * H + h) * W + w] = (float)(w + 100 * b + 10 * c);
}

static void *workspace(size_t bytes) { return bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL; }

static void aligned(void) {
  /* Region 0: x 1..5, y 1..3 of batch 1 (bins 2 wide, centres 1.5 and 3.5 after the half-pixel
   * shift); region 1: the same of batch 0; region 2: far past the image, all samples zero. */
  float rois[R * 4] = {1, 1, 5, 3, 1, 1, 5, 3, 40, 40, 48, 44};
  int64_t batches[R] = {1, 0, 1};
  float y[R * 2 * 2 * 2 + 1];
  y[R * 8] = -7.0f;
  void *ws = workspace(align_workspace_size(N, H, W, R));
  CHECK(align_run(N, H, W, R, x, rois, batches, y, ws) == XCC_OK, "align: run");
  for (int r = 0; r < R; r++)
    for (int c = 0; c < 2; c++)
      for (int ph = 0; ph < 2; ph++)
        for (int pw = 0; pw < 2; pw++) {
          float want = r == 2 ? 0.0f : (pw ? 3.5f : 1.5f) + 100.0f * (float)batches[r] + 10.0f * (float)c;
          float got = y[((r * 2 + c) * 2 + ph) * 2 + pw];
          CHECK(fabsf(got - want) <= 1e-4f, "align: y[%d, %d, %d, %d] = %g, expected %g", r, c, ph, pw, got, want);
        }
  CHECK(y[R * 8] == -7.0f, "align: a write past the output");
  for (int bad = 0; bad < 2; bad++) {
    int64_t wrong[R] = {0, bad ? -1 : N, 1};
    CHECK(align_run(N, H, W, R, x, rois, wrong, y, ws) == XCC_ERROR_INDEX_OUT_OF_RANGE, "align: batch %lld",
          (long long)wrong[1]);
  }
  free(ws);
}

static void pooled(void) {
  /* x 1..5 is 5 pixels, bins 2.5 wide: pixels 1..3 and 3..5, maxima the ramp at 3 and 5. */
  float rois[R * 5] = {1, 1, 1, 5, 3, 0, 1, 1, 5, 3, 1, 1, 1, 5, 3};
  float y[R * 2 * 2 * 2 + 1];
  y[R * 8] = -7.0f;
  void *ws = workspace(pool_workspace_size(N, H, W, R));
  CHECK(pool_run(N, H, W, R, x, rois, y, ws) == XCC_OK, "pool: run");
  for (int r = 0; r < R; r++)
    for (int c = 0; c < 2; c++)
      for (int ph = 0; ph < 2; ph++)
        for (int pw = 0; pw < 2; pw++) {
          float want = (pw ? 5.0f : 3.0f) + 100.0f * rois[r * 5] + 10.0f * (float)c;
          float got = y[((r * 2 + c) * 2 + ph) * 2 + pw];
          CHECK(got == want, "pool: y[%d, %d, %d, %d] = %g, expected %g", r, c, ph, pw, got, want);
        }
  CHECK(y[R * 8] == -7.0f, "pool: a write past the output");
  for (int bad = 0; bad < 2; bad++) {
    rois[5] = bad ? -1.0f : (float)N;
    CHECK(pool_run(N, H, W, R, x, rois, y, ws) == XCC_ERROR_INDEX_OUT_OF_RANGE, "pool: batch %g", rois[5]);
  }
  free(ws);
}

int main(void) {
  ramp();
  aligned();
  pooled();
  printf("%s %d checks\n", failures ? "FAILED" : "ok", checks);
  return failures != 0;
}
