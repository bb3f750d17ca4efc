/* Two models, and with WITH_MATMUL an MLIR kernel, in one program, each checked against values
 * computed here. relu.h and square.h each carry xcc_run.h; the runtime behind both is whichever
 * copy the link kept. The matrix product runs on a pool of 2 threads made through the runtime's
 * own entry point, so a library that fails to export the runtime fails here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "relu.h"
#include "square.h"

enum { N = 48 };

#ifdef WITH_MATMUL
typedef struct { float *allocated, *aligned; int64_t offset, sizes[2], strides[2]; } memref_2d_f32;
void _mlir_ciface_matmul(memref_2d_f32 *a, memref_2d_f32 *b, memref_2d_f32 *c);

static int check_matmul(void) {
  float a[3 * 4], b[4 * 2], c[3 * 2];
  for (int i = 0; i < 12; i++) a[i] = (float)(i % 5) - 1.5f;
  for (int i = 0; i < 8; i++) b[i] = 0.25f * (float)i;
  memref_2d_f32 A = {a, a, 0, {3, 4}, {4, 1}}, B = {b, b, 0, {4, 2}, {2, 1}}, C = {c, c, 0, {3, 2}, {2, 1}};
  _mlir_ciface_matmul(&A, &B, &C);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 2; j++) {
      float s = 0;
      for (int k = 0; k < 4; k++) s += a[i * 4 + k] * b[k * 2 + j];
      if (fabsf(c[i * 2 + j] - s) > 1e-5f) {
        printf("matmul[%d][%d] = %g, expected %g\n", i, j, c[i * 2 + j], s);
        return 1;
      }
    }
  return 0;
}
#endif

static float x[N * N], relu_y[N * N], square_y[N * N];

int main(void) {
  for (int i = 0; i < N * N; i++) x[i] = (float)((i * 37) % 23) / 8.0f - 1.25f;
  xcc_threadpool *pool = xcc_threadpool_create(2);
  xcc_run_options options = {0};
  options.pool = pool;
  int32_t status = relu_run(x, relu_y, NULL);
  if (status == XCC_OK) status = square_run_alloc(x, square_y);
  size_t bytes = (square_workspace_size() + 63) / 64 * 64;
  void *workspace = bytes ? aligned_alloc(64, bytes) : NULL;
  if (status == XCC_OK) status = square_run_with(x, square_y, workspace, &options);
  free(workspace);
  xcc_threadpool_destroy(pool);
  if (status != XCC_OK) {
    printf("run failed: %s\n", xcc_status_message(status));
    return 1;
  }
  for (int i = 0; i < N * N; i++) {
    float relu = x[i] > 0 ? x[i] : 0.0f;
    if (relu_y[i] != relu) {
      printf("relu[%d] = %g, expected %g\n", i, relu_y[i], relu);
      return 1;
    }
  }
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int k = 0; k < N; k++) s += (double)x[i * N + k] * x[k * N + j];
      if (fabs(square_y[i * N + j] - s) > 1e-4 * (1 + fabs(s))) {
        printf("square[%d][%d] = %g, expected %g\n", i, j, square_y[i * N + j], s);
        return 1;
      }
    }
#ifdef WITH_MATMUL
  if (check_matmul()) return 1;
#endif
  printf("ok\n");
  return 0;
}
