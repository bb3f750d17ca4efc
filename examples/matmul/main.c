/* Links against libmatmul.a built by xcc and checks the product against a plain C loop. */
#include <stdint.h>
#include <stdio.h>
#include <math.h>

typedef struct { float *allocated, *aligned; int64_t offset, sizes[2], strides[2]; } memref_2d_f32;

void _mlir_ciface_matmul(memref_2d_f32 *a, memref_2d_f32 *b, memref_2d_f32 *c);

static memref_2d_f32 view(float *data, int64_t rows, int64_t cols) {
  memref_2d_f32 m = {data, data, 0, {rows, cols}, {cols, 1}};
  return m;
}

int main(void) {
  enum { M = 3, K = 4, N = 2 };
  float a[M * K], b[K * N], c[M * N], expect[M * N];
  for (int i = 0; i < M * K; i++) a[i] = (float)(i % 5) - 1.5f;
  for (int i = 0; i < K * N; i++) b[i] = 0.25f * (float)i;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int k = 0; k < K; k++) s += a[i * K + k] * b[k * N + j];
      expect[i * N + j] = s;
    }
  memref_2d_f32 A = view(a, M, K), B = view(b, K, N), C = view(c, M, N);
  _mlir_ciface_matmul(&A, &B, &C);
  int bad = 0;
  for (int i = 0; i < M; i++) {
    for (int j = 0; j < N; j++) {
      printf("%8.3f", c[i * N + j]);
      if (fabsf(c[i * N + j] - expect[i * N + j]) > 1e-5f) bad = 1;
    }
    printf("\n");
  }
  printf(bad ? "MISMATCH against the C reference\n" : "matches the C reference\n");
  return bad;
}
