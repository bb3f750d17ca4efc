/* Benchmark driver for a model with run-time dims and the same model specialized: warm-up, then
   the median wall time of many runs. Built by scripts/bench-dynamic.sh with HEADER (the model's
   header), RUN (the call, over in[k], out and ws), WS (the workspace-size call) and OUT_BYTES.
   Usage: prog BUDGET_MS INPUT.bin... Prints "median_ms runs". */
#include HEADER
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) exit(2);
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc(size ? size : 1);
  if (fread(p, 1, size, f) != (size_t)size) exit(2);
  fclose(f);
  return p;
}

int main(int argc, char **argv) {
  double budget_ms = atof(argv[1]);
  void *in[8];
  for (int k = 2; k < argc && k < 10; k++) in[k - 2] = slurp(argv[k]);
  void *out = malloc(OUT_BYTES);
  void *ws = aligned_alloc(64, (WS + 64) / 64 * 64);
  for (int i = 0; i < 3; i++)
    if (RUN != XCC_OK) return 3;
  static double t[2000];
  int n = 0;
  double start = now_ms();
  while (n < 2000 && (n < 10 || now_ms() - start < budget_ms)) {
    double a = now_ms();
    (void)RUN;
    t[n++] = now_ms() - a;
  }
  qsort(t, n, sizeof(double), cmp);
  printf("%.4f %d\n", t[n / 2], n);
  return 0;
}
