/* Checks up_kernel_clamps.mlir's epilogues bit by bit against maximumf / minimumf as MLIR's arith
 * defines them (NaN if either operand is NaN; of two zeros, +0 for the maximum, -0 for the
 * minimum), written out here: C's fmaxf drops NaNs. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "memref_desc.h"

void _mlir_ciface_relu6(D4 *, D4 *, D1 *, D4 *);
void _mlir_ciface_below_negative_zero(D4 *, D4 *, D1 *, D4 *);

static float maximumf(float a, float b) {
  if (isnan(a) || isnan(b)) return NAN;
  if (a == 0 && b == 0) return signbit(a) ? b : a;
  return a > b ? a : b;
}

static float minimumf(float a, float b) {
  if (isnan(a) || isnan(b)) return NAN;
  if (a == 0 && b == 0) return signbit(a) ? a : b;
  return a < b ? a : b;
}

static int same(float a, float b) { return (isnan(a) && isnan(b)) || memcmp(&a, &b, 4) == 0; }

int main(void) {
  const float inputs[19] = {0.0f, -0.0f, NAN, INFINITY, -INFINITY, 3.0f, -3.0f, 6.0f, 7.5f, -6.0f,
                            0.5f, -0.5f, 100.0f, -100.0f, 5.999f, 6.001f, 1e-30f, -1e-30f, 2.0f};
  float x[2][19], w[2] = {-1.0f, 1.0f}, b[2] = {-0.0f, -0.0f}, y[2][19];
  for (int c = 0; c < 2; c++) memcpy(x[c], inputs, sizeof inputs);
  D4 X = d4(x, 1, 2, 1, 19), W = d4(w, 2, 1, 1, 1), Y = d4(y, 1, 2, 1, 19);
  D1 B = d1(b, 2);
  const char *names[2] = {"relu6", "below_negative_zero"};
  for (int f = 0; f < 2; f++) {
    if (f == 0) _mlir_ciface_relu6(&X, &W, &B, &Y);
    else _mlir_ciface_below_negative_zero(&X, &W, &B, &Y);
    int bad = 0;
    for (int c = 0; c < 2; c++)
      for (int i = 0; i < 19; i++) {
        float v = fmaf(w[c], x[c][i], b[c]);
        float want = f == 0 ? minimumf(maximumf(v, 0.0f), 6.0f) : minimumf(v, -0.0f);
        if (!same(y[c][i], want)) {
          if (!bad) printf("  channel %d column %d: %g (sign %d), want %g (sign %d)\n", c, i, y[c][i],
                           signbit(y[c][i]) != 0, want, signbit(want) != 0);
          bad = 1;
        }
      }
    printf("%s %s\n", names[f], bad ? "MISMATCH" : "ok");
  }
  return 0;
}
