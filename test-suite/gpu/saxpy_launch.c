/* Launches the saxpy kernel (test-suite/gpu/saxpy.mlir, compiled to PTX by xcc) through
 * runtime-c's CUDA shim and checks y = a * x + y on the host. Run only where a GPU is present. */
#include "xcc_runtime.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "rb");
  if (!f) return 2;
  static char ptx[1 << 20];
  size_t len = fread(ptx, 1, sizeof ptx - 1, f);
  ptx[len] = 0;
  fclose(f);
  enum { N = 1000 };
  float x[N], y[N], a = 2.5f;
  for (int i = 0; i < N; i++) { x[i] = (float)i; y[i] = 1.0f - (float)i; }
  void *dx, *dy;
  if (xcc_cuda_alloc(&dx, sizeof x) || xcc_cuda_alloc(&dy, sizeof y)) { puts("alloc failed"); return 1; }
  xcc_cuda_copy(dx, x, sizeof x, 0);
  xcc_cuda_copy(dy, y, sizeof y, 0);
  /* Kernel parameters: a, then each memref expanded (allocated, aligned, offset, size, stride), then n. */
  int64_t zero = 0, n = N, one = 1;
  void *args[] = {&a, &dx, &dx, &zero, &n, &one, &dy, &dy, &zero, &n, &one, &n};
  uint32_t grid[3] = {(N + 127) / 128, 1, 1}, block[3] = {128, 1, 1};
  int rc = xcc_cuda_launch(ptx, "saxpy", grid, block, args);
  if (rc) { printf("launch failed: %d\n", rc); return 1; }
  float out[N];
  xcc_cuda_copy(out, dy, sizeof out, 1);
  for (int i = 0; i < N; i++)
    if (out[i] != a * x[i] + y[i]) { printf("y[%d] = %g, expected %g\n", i, out[i], a * x[i] + y[i]); return 1; }
  puts("ok");
  return 0;
}
