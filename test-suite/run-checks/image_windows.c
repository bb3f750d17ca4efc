/* Drives the models tests/run_checks.rs builds for dims the run checks in windows and scatters:
 *   pools.h:   x float[1, 1, height, width]; y = MaxPool(x, 3x3, stride 2), whose output is
 *              floor((height - 3) / 2) + 1 by floor((width - 3) / 2) + 1, dims the run computes,
 *              and which needs 3 rows and columns at least;
 *   scatter.h: data float[rows, 4], indices int64[n, cols], updates float[n, cols];
 *              y = ScatterElements(data, indices, updates, axis 0), which needs cols <= 4.
 * For good dims the dims and values are checked against max pooling and the scatter worked out
 * here; a height of 2 and 5 columns must return XCC_ERROR_BAD_DIM from every entry, a zero
 * workspace, and leave the outputs as they were. Prints "ok N checks". */
#include "pools.h"
#include "scatter.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SENTINEL -7.0f
#define MAX 16

static float input(int64_t r, int64_t c) { return (float)((r * 7 + c * 13) % 17) - 8.0f; }

static void pooled(int64_t h, int64_t w) {
  float x[MAX * MAX], y[MAX * MAX];
  for (int64_t r = 0; r < h; r++)
    for (int64_t c = 0; c < w; c++) x[r * w + c] = input(r, c);
  for (int k = 0; k < MAX * MAX; k++) y[k] = SENTINEL;
  int64_t dims[4] = {-5, -5, -5, -5};
  CHECK(pools_output_dims(h, w, dims) == XCC_OK, "%lldx%lld: output_dims", (long long)h, (long long)w);
  int64_t oh = (h - 3) / 2 + 1, ow = (w - 3) / 2 + 1;
  CHECK(dims[0] == 1 && dims[1] == 1 && dims[2] == oh && dims[3] == ow, "%lldx%lld: dims %lld x %lld, expected %lld x %lld",
        (long long)h, (long long)w, (long long)dims[2], (long long)dims[3], (long long)oh, (long long)ow);
  size_t bytes = pools_workspace_size(h, w);
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  CHECK(pools_run(h, w, x, y, ws) == XCC_OK, "%lldx%lld: run", (long long)h, (long long)w);
  for (int64_t i = 0; i < oh; i++)
    for (int64_t j = 0; j < ow; j++) {
      float best = x[2 * i * w + 2 * j];
      for (int64_t a = 0; a < 3; a++)
        for (int64_t b = 0; b < 3; b++)
          if (x[(2 * i + a) * w + 2 * j + b] > best) best = x[(2 * i + a) * w + 2 * j + b];
      CHECK(y[i * ow + j] == best, "%lldx%lld: y[%lld, %lld] = %g, expected %g", (long long)h, (long long)w, (long long)i,
            (long long)j, y[i * ow + j], best);
    }
  CHECK(y[oh * ow] == SENTINEL, "%lldx%lld: a write past the output", (long long)h, (long long)w);
  free(ws);
}

static void pool_refused(int64_t h, int64_t w) {
  float x[MAX * MAX] = {0}, y[MAX * MAX];
  for (int k = 0; k < MAX * MAX; k++) y[k] = SENTINEL;
  int64_t dims[4] = {-5, -5, -5, -5};
  CHECK(pools_output_dims(h, w, dims) == XCC_ERROR_BAD_DIM, "%lldx%lld: output_dims", (long long)h, (long long)w);
  CHECK(dims[2] == -5, "%lldx%lld: refused dims were written", (long long)h, (long long)w);
  CHECK(pools_workspace_size(h, w) == 0, "%lldx%lld: a workspace for refused dims", (long long)h, (long long)w);
  static _Alignas(64) unsigned char ws[1 << 16];
  CHECK(pools_run(h, w, x, y, ws) == XCC_ERROR_BAD_DIM, "%lldx%lld: run", (long long)h, (long long)w);
  for (int k = 0; k < MAX * MAX; k++) CHECK(y[k] == SENTINEL, "%lldx%lld: a refused run wrote %d", (long long)h, (long long)w, k);
}

static void scattered(int64_t rows, int64_t n, int64_t cols) {
  float data[MAX * 4], updates[MAX * 4], y[MAX * 4 + 1], want[MAX * 4];
  int64_t indices[MAX * 4];
  for (int64_t k = 0; k < rows * 4; k++) want[k] = data[k] = (float)k;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < cols; j++) {
      /* Distinct rows per column (no two updates meet), negative indices counted from the end. */
      int64_t row = (i * 3 + j) % rows;
      indices[i * cols + j] = (i + j) % 2 ? row - rows : row;
      updates[i * cols + j] = 100.0f + (float)(i * cols + j);
    }
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = 0; i < n; i++) want[((i * 3 + j) % rows) * 4 + j] = updates[i * cols + j];
  for (int k = 0; k <= MAX * 4; k++) y[k] = SENTINEL;
  size_t bytes = scatter_workspace_size(rows, n, cols);
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  CHECK(scatter_run(rows, n, cols, data, indices, updates, y, ws) == XCC_OK, "%lld/%lld/%lld: run", (long long)rows,
        (long long)n, (long long)cols);
  for (int64_t k = 0; k < rows * 4; k++)
    CHECK(y[k] == want[k], "%lld/%lld/%lld: y[%lld] = %g, expected %g", (long long)rows, (long long)n, (long long)cols,
          (long long)k, y[k], want[k]);
  CHECK(y[rows * 4] == SENTINEL, "%lld/%lld/%lld: a write past the output", (long long)rows, (long long)n, (long long)cols);
  free(ws);
}

static void scatter_refused(int64_t rows, int64_t n, int64_t cols) {
  float data[MAX * 8] = {0}, updates[MAX * 8] = {0}, y[MAX * 4];
  int64_t indices[MAX * 8] = {0};
  for (int k = 0; k < MAX * 4; k++) y[k] = SENTINEL;
  CHECK(scatter_workspace_size(rows, n, cols) == 0, "cols %lld: a workspace for refused dims", (long long)cols);
  static _Alignas(64) unsigned char ws[1 << 16];
  CHECK(scatter_run(rows, n, cols, data, indices, updates, y, ws) == XCC_ERROR_BAD_DIM, "cols %lld: run",
        (long long)cols);
  for (int k = 0; k < MAX * 4; k++) CHECK(y[k] == SENTINEL, "cols %lld: a refused run wrote %d", (long long)cols, k);
}

int main(void) {
  for (int64_t h = 3; h <= 9; h += 3)
    for (int64_t w = 3; w <= 16; w += 4) pooled(h, w);
  pool_refused(2, 8);
  pool_refused(8, 1);
  for (int64_t cols = 1; cols <= 4; cols++) scattered(6, 2, cols);
  scatter_refused(6, 2, 5);
  printf("%s %d checks\n", failures ? "FAILED" : "ok", checks);
  return failures != 0;
}
