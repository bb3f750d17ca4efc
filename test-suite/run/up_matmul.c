/* Calls @matmul and @matmul_strided with expanded memref descriptors. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#define MEMREF2D float *, float *, int64_t, int64_t, int64_t, int64_t, int64_t
void matmul(MEMREF2D, MEMREF2D, MEMREF2D);
void matmul_strided(MEMREF2D, MEMREF2D, MEMREF2D);

#define ARGS(p, rows, cols) (p), (p), 0, (rows), (cols), (cols), 1

int main(void) {
  float a[2][3] = {{1, 2, 3}, {4, 5, 6}};
  float b[3][2] = {{7, 8}, {9, 10}, {11, 12}};
  float c[2][2] = {{-1, -1}, {-1, -1}};
  matmul(ARGS(&a[0][0], 2, 3), ARGS(&b[0][0], 3, 2), ARGS(&c[0][0], 2, 2));
  for (int i = 0; i < 2; i++) printf("%g %g\n", c[i][0], c[i][1]);

  enum { M = 5, K = 7, N = 3 };
  float x[M][K], y[K][N], z[M][N], ref[M][N];
  for (int i = 0; i < M; i++)
    for (int k = 0; k < K; k++) x[i][k] = (float)((i * 7 + k * 3) % 11) - 5.0f;
  for (int k = 0; k < K; k++)
    for (int j = 0; j < N; j++) y[k][j] = 0.5f * (float)((k * 5 + j) % 9);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int k = 0; k < K; k++) s += x[i][k] * y[k][j];
      ref[i][j] = s;
    }
  matmul(ARGS(&x[0][0], M, K), ARGS(&y[0][0], K, N), ARGS(&z[0][0], M, N));
  int ok = 1;
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      if (fabsf(z[i][j] - ref[i][j]) > 1e-4f) ok = 0;
  printf("5x7*7x3 %s\n", ok ? "matches" : "MISMATCH");

  /* C is the 2x2 window at [1][1] of a 4x3 buffer: offset 4, strides {3, 1}. */
  float buf[4][3] = {{0}};
  matmul_strided(ARGS(&a[0][0], 2, 3), ARGS(&b[0][0], 3, 2), &buf[0][0], &buf[0][0], 4, 2, 2, 3, 1);
  printf("window:");
  for (int i = 0; i < 4; i++) printf("%s%g %g %g", i ? " | " : " ", buf[i][0], buf[i][1], buf[i][2]);
  printf("\n");
  return 0;
}
