/* Sweeps f32 inputs through xcc's exp, erf and tanh and checks them against the C library in
   double precision (see up_approximations.mlir for the bounds). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void kernel(float *, float *, int64_t, int64_t, int64_t, float *, float *, int64_t, int64_t, int64_t);
kernel exp_all, erf_all, tanh_all;

static float from_bits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* Distance in units in the last place of the f32 result nearest to `want`. */
static double ulps(float got, double want) {
  float w = (float)want;
  if (got == w) return 0;
  int e;
  frexpf(w == 0 ? FLT_MIN : w, &e);
  double ulp = ldexp(1.0, (fabsf(w) < FLT_MIN ? -126 : e - 1) - 23);
  return fabs((double)got - want) / ulp;
}

static int check(const char *name, kernel *f, double (*ref)(double), int is_exp) {
  const int64_t n = (1LL << 32) / 4099 / 4 * 4 + 8;
  float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
  int64_t k = 0;
  for (uint64_t u = 0; u < (1ULL << 32) && k < n - 8; u += 4099) x[k++] = from_bits((uint32_t)u);
  const float specials[8] = {INFINITY, -INFINITY, NAN, 0.0f, -0.0f, 88.0f, -87.0f, 1e-30f};
  for (int i = 0; i < 8; i++) x[k++] = specials[i];
  f(x, x, 0, k, 1, y, y, 0, k, 1);
  double worst_ulp = 0, worst_abs = 0;
  float worst_at = 0;
  int bad = 0;
  for (int64_t i = 0; i < k; i++) {
    double want = ref((double)x[i]);
    float got = y[i];
    if (isnan(x[i])) { if (!isnan(got)) { bad = 1; fprintf(stderr, "%s(nan) = %g\n", name, got); } continue; }
    if (isinf(want) || (is_exp && fabs(want) < FLT_MIN)) {
      int ok = is_exp && fabs(want) < FLT_MIN ? (got >= 0 && got <= FLT_MIN) : got == (float)want;
      if (!ok) { bad = 1; fprintf(stderr, "%s(%g) = %g, want %g\n", name, x[i], got, want); }
      continue;
    }
    double u = ulps(got, want), a = fabs((double)got - want);
    int ok = u <= 4 || (!is_exp && fabs(want) >= 0.5 && a <= 2e-7);
    if (!ok && !bad) fprintf(stderr, "%s(%.9g) = %.9g, want %.9g (%.1f ulp)\n", name, x[i], got, want, u);
    if (!ok) bad = 1;
    if (u > worst_ulp && (is_exp || fabs(want) < 0.5)) { worst_ulp = u; worst_at = x[i]; }
    if (!is_exp && fabs(want) >= 0.5 && a > worst_abs) worst_abs = a;
  }
  fprintf(stderr, "%s: %lld inputs, worst %.2f ulp (at %.9g), worst absolute error %.2e where |f| >= 0.5\n", name,
          (long long)k, worst_ulp, worst_at, worst_abs);
  printf("%s: %s\n", name, bad ? "FAILED" : "ok");
  free(x);
  free(y);
  return bad;
}

int main(void) {
  int bad = check("exp", exp_all, exp, 1);
  bad |= check("erf", erf_all, erf, 0);
  bad |= check("tanh", tanh_all, tanh, 0);
  return bad;
}
