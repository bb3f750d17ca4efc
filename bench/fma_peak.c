/* One core's peak f32 multiply-add rate, to report a kernel's GFLOP/s against: twelve
 * independent chains of 64-byte vector FMAs (enough to cover the FMA units' latency), compiled
 * with -O2 -march=native, so the widest vectors this CPU has (two 32-byte halves with AVX2).
 * Prints GFLOP/s. usage: fma_peak */
#include <stdio.h>
#include <time.h>

typedef float lanes __attribute__((vector_size(64)));

int main(void) {
  lanes c[12], a, b;
  for (int i = 0; i < 16; i++) a[i] = 0.9999f, b[i] = 0.0001f;
  for (int k = 0; k < 12; k++)
    for (int i = 0; i < 16; i++) c[k][i] = 0.001f * k;
  long iterations = 100000000;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long n = 0; n < iterations; n++) {
    /* Written out, so that the compiler keeps the twelve in registers. */
    c[0] = c[0] * a + b, c[1] = c[1] * a + b, c[2] = c[2] * a + b, c[3] = c[3] * a + b;
    c[4] = c[4] * a + b, c[5] = c[5] * a + b, c[6] = c[6] * a + b, c[7] = c[7] * a + b;
    c[8] = c[8] * a + b, c[9] = c[9] * a + b, c[10] = c[10] * a + b, c[11] = c[11] * a + b;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
  float sum = 0;
  for (int k = 0; k < 12; k++)
    for (int i = 0; i < 16; i++) sum += c[k][i];
  printf("%.1f\n", iterations * 12.0 * 16 * 2 / seconds / 1e9 + 0 * sum);
  return sum != sum; /* the sums used, so the loop stays */
}
