/* SEQ tokens after PAST cached ones through the benchmark's Llama compiled by xcc (as m): a decode
 * step (SEQ 1) or a prefill (PAST 0). Reads DIR/in_K.bin (written by ort_step.py), runs m_run
 * RUNS times after 2 and prints the median milliseconds. Compiled with the model's sizes:
 * -DKV_HEADS, -DHEAD, -DVOCAB, and the run's cache arguments as -DPASTS="in[0], ..." and
 * -DPRESENTS="out[0], ..." (bench-llm.sh writes them).
 * With LOGITS, also writes the last run's logits there (SEQ x VOCAB float32), for agreement.py.
 * With STEP_CAPACITY=L in the environment, each cache is one buffer of L positions given as both
 * past and present, appended in place (ONNX Runtime GenAI's past_present_share_buffer).
 * usage: step SEQ PAST RUNS DIR [LOGITS] */
#include "m.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static void *slurp(const char *p, size_t n) { void *b = aligned_alloc(64, (n + 63) / 64 * 64 + 64); FILE *f = fopen(p, "rb"); if (!f || (n && fread(b, 1, n, f) != n)) { perror(p); exit(2); } fclose(f); return b; }
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
  if (argc != 5 && argc != 6) return 2;
  int64_t seq = atoll(argv[1]), past = atoll(argv[2]);
  int runs = atoi(argv[3]);
  const char *dir = argv[4];
  char path[4096];
  size_t cache = (size_t)KV_HEADS * past * HEAD * 4, present = (size_t)KV_HEADS * (past + seq) * HEAD * 4;
  snprintf(path, sizeof path, "%s/in_0.bin", dir);
  int64_t *ids = slurp(path, 8 * seq);
  snprintf(path, sizeof path, "%s/in_1.bin", dir);
  int64_t *mask = slurp(path, 8 * (past + seq));
  enum { CACHES = M_NUM_INPUTS - 2 };
  float *in[CACHES], *out[CACHES];
  const char *capacity = getenv("STEP_CAPACITY");
  int64_t length = capacity ? atoll(capacity) : past; /* the past dim the run is given */
  if (capacity && length < past + seq) { fprintf(stderr, "STEP_CAPACITY below PAST + SEQ\n"); return 2; }
  for (int k = 0; k < CACHES; k++) {
    snprintf(path, sizeof path, "%s/in_%d.bin", dir, k + 2);
    in[k] = slurp(path, cache);
    if (!capacity) { out[k] = aligned_alloc(64, (present + 63) / 64 * 64 + 64); continue; }
    /* The past's rows at the start of each head's L positions, zeros after. */
    float *shared = calloc((size_t)KV_HEADS * length * HEAD + 16, 4);
    for (int h = 0; h < KV_HEADS; h++) memcpy(shared + (size_t)h * length * HEAD, in[k] + (size_t)h * past * HEAD, (size_t)past * HEAD * 4);
    free(in[k]);
    in[k] = out[k] = shared;
  }
  float *logits = malloc((size_t)seq * VOCAB * 4);
  size_t ws = m_workspace_size(1, seq, past + seq, length, HEAD);
  void *w = aligned_alloc(64, (ws + 63) / 64 * 64 + 64);
  double *t = malloc(sizeof(double) * runs);
  for (int r = 0; r < runs + 2; r++) {
    struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
    int rc = m_run(1, seq, past + seq, length, HEAD, ids, mask, PASTS, logits, PRESENTS, w);
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (rc) { printf("rc %d\n", rc); return 1; }
    if (r >= 2) t[r - 2] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
  }
  if (argc == 6) {
    FILE *f = fopen(argv[5], "wb");
    if (!f || fwrite(logits, 4, (size_t)seq * VOCAB, f) != (size_t)seq * VOCAB) { perror(argv[5]); return 2; }
    fclose(f);
  }
  qsort(t, runs, sizeof t[0], cmp);
  printf("%.3f\n", t[runs / 2]);
  return 0;
}
