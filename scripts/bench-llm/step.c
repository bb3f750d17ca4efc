/* One decode step of the benchmark's Llama compiled by xcc (as m): reads DIR/in_K.bin (written by
 * ort_step.py), runs m_run RUNS times after 5 and prints the median milliseconds.
 * usage: step PAST RUNS DIR */
#include "m.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static void *slurp(const char *p, size_t n) { void *b = aligned_alloc(64, (n + 63) / 64 * 64); FILE *f = fopen(p, "rb"); if (!f || fread(b, 1, n, f) != n) { perror(p); exit(2); } fclose(f); return b; }
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
  if (argc != 4) return 2;
  int64_t past = atoll(argv[1]);
  int runs = atoi(argv[2]);
  const char *dir = argv[3];
  char path[4096];
  size_t cache = (size_t)2 * past * 64 * 4, present = (size_t)2 * (past + 1) * 64 * 4;
  snprintf(path, sizeof path, "%s/in_0.bin", dir);
  int64_t *ids = slurp(path, 8);
  snprintf(path, sizeof path, "%s/in_1.bin", dir);
  int64_t *mask = slurp(path, 8 * (past + 1));
  float *in[8], *out[8];
  for (int k = 0; k < 8; k++) { snprintf(path, sizeof path, "%s/in_%d.bin", dir, k + 2); in[k] = slurp(path, cache); out[k] = aligned_alloc(64, (present + 63) / 64 * 64); }
  float *logits = malloc(2048 * 4);
  size_t ws = m_workspace_size(1, 1, past + 1, past, 64);
  void *w = aligned_alloc(64, (ws + 63) / 64 * 64 + 64);
  double *t = malloc(sizeof(double) * runs);
  for (int r = 0; r < runs + 5; r++) {
    struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
    int rc = m_run(1, 1, past + 1, past, 64, ids, mask, in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], logits, out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7], w);
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (rc) { printf("rc %d\n", rc); return 1; }
    if (r >= 5) t[r - 5] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
  }
  qsort(t, runs, sizeof t[0], cmp);
  printf("%.3f\n", t[runs / 2]);
  return 0;
}
