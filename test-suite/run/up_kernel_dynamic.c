/* Checks the kernels of up_kernel_dynamic.mlir, whose dims are known only at run time, against
 * plain C loops at several sizes (ragged and empty ones included). The workspace function runs
 * in a buffer of exactly the size it asks for, with guard bytes after it that must survive. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memref_desc.h"

void _mlir_ciface_scale(D2 *, D2 *);
void _mlir_ciface_row_sums(D2 *, D1 *);
void _mlir_ciface_copy(D3 *, D2 *);
void _mlir_ciface_matmul_rows(D2 *, D2 *, D2 *, D2 *);
void _mlir_ciface_matmul_batch(D3 *, D2 *, D3 *);
void _mlir_ciface_matmul_general(D2 *, D2 *, D2 *);
void _mlir_ciface_two_steps(int64_t, D2 *, D2 *, D2 *, void *);
int64_t _mlir_ciface_two_steps_workspace(int64_t);
void _mlir_ciface_conv_batch(D4 *, D4 *, D4 *);

static double diff(double a, double b) { return a > b ? a - b : b - a; }

static int failures = 0;
static void report(const char *name, double err) {
  if (err >= 1e-4) failures++;
  printf("%s %s\n", name, err < 1e-4 ? "ok" : "MISMATCH");
  if (err >= 1e-4) printf("  max error %g\n", err);
}

static const int64_t ROWS[] = {0, 1, 5, 6, 7, 13, 40};
#define NROWS (sizeof ROWS / sizeof ROWS[0])
#define MAXR 40

static double scale(void) {
  static float x[MAXR * 5], y[MAXR * 5 + 1];
  double err = 0;
  for (size_t t = 0; t < NROWS; t++) {
    int64_t n = ROWS[t];
    for (int i = 0; i < n * 5; i++) x[i] = val(i + t);
    y[n * 5] = 42.0f;
    D2 X = d2(x, n, 5), Y = d2(y, n, 5);
    _mlir_ciface_scale(&X, &Y);
    for (int i = 0; i < n * 5; i++) err += diff(y[i], x[i] * 2.0f + 1.0f);
    err += diff(y[n * 5], 42.0f); /* nothing written past the n rows */
  }
  return err;
}

static double row_sums(void) {
  static float x[9 * 11], y[9];
  double err = 0;
  for (int64_t r = 0; r <= 9; r += 3)
    for (int64_t c = 0; c <= 11; c += 4) {
      for (int i = 0; i < r * c; i++) x[i] = val(i);
      for (int i = 0; i < r; i++) y[i] = 0.5f;
      D2 X = d2(x, r, c);
      D1 Y = d1(y, r);
      _mlir_ciface_row_sums(&X, &Y);
      for (int i = 0; i < r; i++) {
        float s = 0.5f;
        for (int j = 0; j < c; j++) s += x[i * c + j];
        err += diff(y[i], s);
      }
    }
  return err;
}

static double copy(void) {
  static float x[5 * 12], y[5 * 12];
  double err = 0;
  for (int64_t n = 0; n <= 5; n += 2) {
    for (int i = 0; i < n * 12; i++) { x[i] = val(i); y[i] = -9.0f; }
    D3 X = d3(x, n, 3, 4);
    D2 Y = d2(y, n, 12);
    _mlir_ciface_copy(&X, &Y);
    for (int i = 0; i < n * 12; i++) err += diff(y[i], x[i]);
  }
  return err;
}

static void reference(const float *a, const float *b, const float *bias, float *c, int m, int k, int n, int relu) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float s = bias ? bias[j] : 0.0f;
      for (int q = 0; q < k; q++) s += a[i * k + q] * b[q * n + j];
      c[i * n + j] = relu && s < 0 ? 0.0f : s;
    }
}

static double matmul_rows(void) {
  static float a[MAXR * 7], b[7 * 19], bias[19], c[MAXR * 19 + 1], want[MAXR * 19];
  double err = 0;
  for (int i = 0; i < 133; i++) b[i] = val(i + 100);
  for (int i = 0; i < 19; i++) bias[i] = val(i + 300);
  for (size_t t = 0; t < NROWS; t++) {
    int64_t m = ROWS[t];
    for (int i = 0; i < m * 7; i++) a[i] = val(i + 7 * t);
    c[m * 19] = 42.0f;
    D2 A = d2(a, m, 7), B = d2(b, 7, 19), BI = d2(bias, 1, 19), C = d2(c, m, 19);
    _mlir_ciface_matmul_rows(&A, &B, &BI, &C);
    reference(a, b, bias, want, m, 7, 19, 1);
    for (int i = 0; i < m * 19; i++) err += diff(c[i], want[i]);
    err += diff(c[m * 19], 42.0f);
  }
  return err;
}

static double matmul_batch(void) {
  static float a[5 * 3 * 7], b[7 * 16], c[5 * 3 * 16], want[5 * 3 * 16];
  double err = 0;
  for (int i = 0; i < 7 * 16; i++) b[i] = val(i + 50);
  for (int64_t n = 1; n <= 5; n += 2) {
    for (int i = 0; i < n * 21; i++) a[i] = val(i + 3);
    D3 A = d3(a, n, 3, 7), C = d3(c, n, 3, 16);
    D2 B = d2(b, 7, 16);
    _mlir_ciface_matmul_batch(&A, &B, &C);
    reference(a, b, NULL, want, n * 3, 7, 16, 0);
    for (int i = 0; i < n * 48; i++) err += diff(c[i], want[i]);
  }
  return err;
}

static double matmul_general(void) {
  static int32_t a[9 * 8], b[10 * 8], c[9 * 10];
  double err = 0;
  for (int m = 1; m <= 9; m += 4)
    for (int k = 1; k <= 8; k += 3)
      for (int n = 2; n <= 10; n += 4) {
        for (int i = 0; i < m * k; i++) a[i] = (i * 7) % 11 - 5;
        for (int i = 0; i < n * k; i++) b[i] = (i * 5) % 9 - 4;
        D2 A = d2(a, m, k), B = d2(b, n, k), C = d2(c, m, n);
        _mlir_ciface_matmul_general(&A, &B, &C);
        for (int i = 0; i < m; i++)
          for (int j = 0; j < n; j++) {
            int32_t s = 0;
            for (int q = 0; q < k; q++) s += a[i * k + q] * b[j * k + q];
            err += diff(c[i * n + j], s);
          }
      }
  return err;
}

static double workspace(void) {
  static float x[MAXR * 7], w[7 * 19], y[MAXR * 19], want[MAXR * 19];
  double err = 0;
  int64_t previous = -1;
  for (int i = 0; i < 133; i++) w[i] = val(i + 200);
  for (size_t t = 0; t < NROWS; t++) {
    int64_t n = ROWS[t];
    int64_t need = _mlir_ciface_two_steps_workspace(n);
    /* Two n-row buffers live at once: at least their bytes, and more rows need more. */
    if (need < 2 * n * 19 * 4 || need < previous) {
      printf("  workspace of %lld bytes for %lld rows\n", (long long)need, (long long)n);
      err += 1;
    }
    previous = need;
    unsigned char *ws = aligned_alloc(64, (size_t)need + 64 + 64);
    memset(ws + need, 0xA5, 64);
    for (int i = 0; i < n * 7; i++) x[i] = val(i + 11);
    D2 X = d2(x, n, 7), W = d2(w, 7, 19), Y = d2(y, n, 19);
    _mlir_ciface_two_steps(n, &X, &W, &Y, ws);
    reference(x, w, NULL, want, n, 7, 19, 1);
    for (int i = 0; i < n * 19; i++) err += diff(y[i], want[i] + 1.0f);
    for (int i = 0; i < 64; i++) err += ws[need + i] != 0xA5;
    free(ws);
  }
  return err;
}

/* y[n, o, i, j] = sum over c, ki, kj of x[n, c, i + ki - 1, j + kj - 1] * w[o, c, ki, kj], zero padded. */
static double conv_batch(void) {
  static float x[4 * 2 * 25], w[3 * 2 * 9], y[4 * 3 * 25 + 1];
  double err = 0;
  for (int i = 0; i < 54; i++) w[i] = val(i + 3);
  for (int64_t n = 0; n <= 4; n++) {
    for (int i = 0; i < n * 50; i++) x[i] = val(i + 7 * n);
    y[n * 75] = 42.0f;
    D4 X = d4(x, n, 2, 5, 5), W = d4(w, 3, 2, 3, 3), Y = d4(y, n, 3, 5, 5);
    _mlir_ciface_conv_batch(&X, &W, &Y);
    for (int b = 0; b < n; b++)
      for (int o = 0; o < 3; o++)
        for (int i = 0; i < 5; i++)
          for (int j = 0; j < 5; j++) {
            double s = 0;
            for (int c = 0; c < 2; c++)
              for (int ki = 0; ki < 3; ki++)
                for (int kj = 0; kj < 3; kj++) {
                  int r = i + ki - 1, q = j + kj - 1;
                  if (r >= 0 && r < 5 && q >= 0 && q < 5) s += x[((b * 2 + c) * 5 + r) * 5 + q] * w[((o * 2 + c) * 3 + ki) * 3 + kj];
                }
            err += diff(y[((b * 3 + o) * 5 + i) * 5 + j], s);
          }
    err += diff(y[n * 75], 42.0f); /* nothing written past the n images */
  }
  return err;
}

int main(void) {
  report("scale", scale());
  report("row_sums", row_sums());
  report("copy", copy());
  report("matmul_rows", matmul_rows());
  report("matmul_batch", matmul_batch());
  report("matmul_general", matmul_general());
  report("workspace", workspace());
  report("conv_batch", conv_batch());
  return failures != 0;
}
