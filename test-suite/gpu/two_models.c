/* Two models in one program (tiny_cnn compiled twice, as `a` and `b`), two contexts of `a` and one
   of `b`, run concurrently from three threads, each run checked bitwise against the same context's
   first run; then a context destroyed while the others keep running. Prints "ok". Usage:
   two_models input.bin. Built by tests/gpu_models.rs, with the libraries for the GPU or the
   emulator. */
#include "a.h"
#include "b.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUNS 20

struct job {
  int is_a;
  void *ctx;
  const float *in;
  float want[A_OUTPUT0_SIZE];
  int failed;
};

static int run_once(struct job *j, float *out) {
  return j->is_a ? a_run((a_context *)j->ctx, j->in, out) : b_run((b_context *)j->ctx, j->in, out);
}

static void *worker(void *arg) {
  struct job *j = (struct job *)arg;
  float out[A_OUTPUT0_SIZE];
  for (int i = 0; i < RUNS && !j->failed; i++) {
    if (run_once(j, out) != XCC_OK || memcmp(out, j->want, sizeof out) != 0) j->failed = 1;
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  static float in[A_INPUT0_SIZE];
  FILE *f = fopen(argv[1], "rb");
  if (!f || fread(in, sizeof(float), A_INPUT0_SIZE, f) != A_INPUT0_SIZE) return 2;
  fclose(f);
  a_context *a1 = NULL, *a2 = NULL;
  b_context *b1 = NULL;
  if (a_create(&a1, 0) || a_create(&a2, 0) || b_create(&b1, 0)) {
    printf("create failed: %s\n", a_last_error());
    return 1;
  }
  struct job jobs[3] = {{1, a1, in, {0}, 0}, {1, a2, in, {0}, 0}, {0, b1, in, {0}, 0}};
  for (int k = 0; k < 3; k++) {
    if (run_once(&jobs[k], jobs[k].want) != XCC_OK) {
      printf("first run of context %d failed: %s\n", k, a_last_error());
      return 1;
    }
  }
  if (memcmp(jobs[0].want, jobs[1].want, sizeof jobs[0].want) || memcmp(jobs[0].want, jobs[2].want, sizeof jobs[0].want)) {
    printf("the contexts disagree\n");
    return 1;
  }
  pthread_t threads[3];
  for (int k = 0; k < 3; k++) pthread_create(&threads[k], NULL, worker, &jobs[k]);
  for (int k = 0; k < 3; k++) pthread_join(threads[k], NULL);
  for (int k = 0; k < 3; k++) {
    if (jobs[k].failed) {
      printf("concurrent runs of context %d differ or fail\n", k);
      return 1;
    }
  }
  a_destroy(&a2);
  float out[A_OUTPUT0_SIZE];
  if (a_run(a2, in, out) != XCC_ERROR_BAD_CONTEXT || a_run(a1, in, out) != XCC_OK ||
      memcmp(out, jobs[0].want, sizeof out) || b_run(b1, in, out) != XCC_OK) {
    printf("after destroying one context, the others do not run\n");
    return 1;
  }
  a_destroy(&a1);
  b_destroy(&b1);
  printf("ok\n");
  return 0;
}
