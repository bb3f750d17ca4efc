/* Checks the kernel operations of up_kernel_ops.mlir against plain C loops. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "memref_desc.h"

void _mlir_ciface_matmul_f32(D2 *, D2 *, D2 *, D2 *);
void _mlir_ciface_matmul_i32(D2 *, D2 *, D2 *);
void _mlir_ciface_row_sums(D2 *, D1 *);
void _mlir_ciface_conv_f32(D4 *, D4 *, D1 *, D4 *, D4 *);
void _mlir_ciface_conv_i32(D4 *, D4 *, D4 *);
void _mlir_ciface_copy(D3 *, D2 *);

static void report(const char *name, double err) { printf("%s %s\n", name, err < 1e-4 ? "ok" : "MISMATCH"); if (err >= 1e-4) printf("  max error %g\n", err); }

int main(void) {
  double err = 0;
  {
    float a[5][7], b[7][19], bias[19], c[5][19];
    for (int i = 0; i < 35; i++) (&a[0][0])[i] = val(i);
    for (int i = 0; i < 133; i++) (&b[0][0])[i] = val(i + 100);
    for (int i = 0; i < 19; i++) bias[i] = val(i + 300);
    D2 A = d2(a, 5, 7), B = d2(b, 7, 19), BI = d2(bias, 1, 19), C = d2(c, 5, 19);
    _mlir_ciface_matmul_f32(&A, &B, &BI, &C);
    for (int i = 0; i < 5; i++)
      for (int j = 0; j < 19; j++) {
        float s = bias[j];
        for (int k = 0; k < 7; k++) s += a[i][k] * b[k][j];
        if (s < 0) s = 0;
        err = fmax(err, fabs(s - c[i][j]));
      }
    report("matmul_f32", err);
  }
  {
    int32_t a[3][4], b[2][4], c[3][2];
    int bad = 0;
    for (int i = 0; i < 12; i++) (&a[0][0])[i] = i * 3 - 7;
    for (int i = 0; i < 8; i++) (&b[0][0])[i] = 5 - i * 2;
    D2 A = d2(a, 3, 4), B = d2(b, 2, 4), C = d2(c, 3, 2);
    _mlir_ciface_matmul_i32(&A, &B, &C);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 2; j++) {
        int32_t s = 0;
        for (int k = 0; k < 4; k++) s += a[i][k] * b[j][k];
        bad |= s != c[i][j];
      }
    report("matmul_i32", bad ? 1.0 : 0.0);
  }
  {
    float x[3][5], y[3] = {0.5f, -1.0f, 2.0f}, y0[3] = {0.5f, -1.0f, 2.0f};
    err = 0;
    for (int i = 0; i < 15; i++) (&x[0][0])[i] = val(i + 7);
    D2 X = d2(x, 3, 5);
    D1 Y = d1(y, 3);
    _mlir_ciface_row_sums(&X, &Y);
    for (int i = 0; i < 3; i++) {
      float s = y0[i]; /* a reduction starts from the output's value */
      for (int j = 0; j < 5; j++) s += x[i][j];
      err = fmax(err, fabs(s - y[i]));
    }
    report("row_sums", err);
  }
  {
    float x[1][3][7][7], w[4][3][3][3], b[4], r[1][4][4][4], y[1][4][4][4];
    err = 0;
    for (int i = 0; i < 147; i++) (&x[0][0][0][0])[i] = val(i);
    for (int i = 0; i < 108; i++) (&w[0][0][0][0])[i] = val(i + 50);
    for (int i = 0; i < 4; i++) b[i] = val(i + 500);
    for (int i = 0; i < 64; i++) (&r[0][0][0][0])[i] = val(i + 700);
    D4 X = d4(x, 1, 3, 7, 7), W = d4(w, 4, 3, 3, 3), R = d4(r, 1, 4, 4, 4), Y = d4(y, 1, 4, 4, 4);
    D1 B = d1(b, 4);
    _mlir_ciface_conv_f32(&X, &W, &B, &R, &Y);
    for (int o = 0; o < 4; o++)
      for (int p = 0; p < 4; p++)
        for (int q = 0; q < 4; q++) {
          float s = b[o];
          for (int c = 0; c < 3; c++)
            for (int u = 0; u < 3; u++)
              for (int v = 0; v < 3; v++) {
                int h = p * 2 + u - 1, k = q * 2 + v - 1;
                if (h >= 0 && h < 7 && k >= 0 && k < 7) s += x[0][c][h][k] * w[o][c][u][v];
              }
          s += r[0][o][p][q];
          err = fmax(err, fabs(s - y[0][o][p][q]));
        }
    report("conv_f32", err);
  }
  {
    int32_t x[1][2][5][5], w[2][1][3][3], y[1][2][3][3];
    int bad = 0;
    for (int i = 0; i < 50; i++) (&x[0][0][0][0])[i] = (i * 7) % 11 - 5;
    for (int i = 0; i < 18; i++) (&w[0][0][0][0])[i] = (i * 5) % 7 - 3;
    D4 X = d4(x, 1, 2, 5, 5), W = d4(w, 2, 1, 3, 3), Y = d4(y, 1, 2, 3, 3);
    _mlir_ciface_conv_i32(&X, &W, &Y);
    for (int g = 0; g < 2; g++) /* two groups of one channel each */
      for (int p = 0; p < 3; p++)
        for (int q = 0; q < 3; q++) {
          int32_t s = 0;
          for (int u = 0; u < 3; u++)
            for (int v = 0; v < 3; v++) s += x[0][g][p + u][q + v] * w[g][0][u][v];
          bad |= s != y[0][g][p][q];
        }
    report("conv_i32", bad ? 1.0 : 0.0);
  }
  {
    float x[2][3][4], y[6][4];
    int bad = 0;
    for (int i = 0; i < 24; i++) (&x[0][0][0])[i] = (float)i;
    D3 X = d3(x, 2, 3, 4);
    D2 Y = d2(y, 6, 4);
    _mlir_ciface_copy(&X, &Y);
    for (int i = 0; i < 24; i++) bad |= (&y[0][0])[i] != (float)i;
    report("copy", bad ? 1.0 : 0.0);
  }
  return 0;
}
