/* Two models in one program (tiny_cnn compiled twice, as `a` and `b`), two contexts of `a` and one
   of `b`, run concurrently from three threads, each run checked bitwise against the same context's
   first run: from host memory (each context on its own stream), then on device memory, each
   context's run on a separate stream (its own: NULL where the grid is emulated); then a context
   destroyed while the others keep running. Prints "ok". Usage:
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
  /* The context's staged input and output, for the runs on device memory. */
  void *d_in, *d_out;
  /* Why a run failed: the last error is the failing thread's. */
  char why[256];
};

static void failed(struct job *j) {
  j->failed = 1;
  snprintf(j->why, sizeof j->why, "%s", a_last_error());
}

static int run_once(struct job *j, float *out) {
  return j->is_a ? a_run((a_context *)j->ctx, j->in, out) : b_run((b_context *)j->ctx, j->in, out);
}

/* A run on device memory on the context's own stream, waited for, its output fetched. */
static int run_device_once(struct job *j, float *out) {
  void *stream = xcc_gpu_own_stream(j->ctx);
  int rc = j->is_a ? a_run_device((a_context *)j->ctx, (const float *)j->d_in, (float *)j->d_out, stream)
                   : b_run_device((b_context *)j->ctx, (const float *)j->d_in, (float *)j->d_out, stream);
  if (rc == XCC_OK) rc = j->is_a ? a_run_device_status((a_context *)j->ctx) : b_run_device_status((b_context *)j->ctx);
  return rc != XCC_OK ? rc : xcc_gpu_fetch(j->ctx, out, j->d_out, sizeof(float) * A_OUTPUT0_SIZE);
}

static void *device_worker(void *arg) {
  struct job *j = (struct job *)arg;
  float out[A_OUTPUT0_SIZE];
  for (int i = 0; i < RUNS && !j->failed; i++) {
    if (run_device_once(j, out) != XCC_OK || memcmp(out, j->want, sizeof out) != 0) failed(j);
  }
  return NULL;
}

static void *worker(void *arg) {
  struct job *j = (struct job *)arg;
  float out[A_OUTPUT0_SIZE];
  for (int i = 0; i < RUNS && !j->failed; i++) {
    if (run_once(j, out) != XCC_OK || memcmp(out, j->want, sizeof out) != 0) failed(j);
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
  struct job jobs[3] = {{1, a1, in, {0}, 0, NULL, NULL, ""}, {1, a2, in, {0}, 0, NULL, NULL, ""},
                        {0, b1, in, {0}, 0, NULL, NULL, ""}};
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
      printf("concurrent runs of context %d differ or fail: %s\n", k, jobs[k].why);
      return 1;
    }
  }
  for (int k = 0; k < 3; k++) {
    if (xcc_gpu_stage_input(jobs[k].ctx, 0, in, sizeof in, &jobs[k].d_in) != XCC_OK ||
        xcc_gpu_stage_output(jobs[k].ctx, 1, sizeof(float) * A_OUTPUT0_SIZE, &jobs[k].d_out) != XCC_OK) {
      printf("staging for context %d failed: %s\n", k, a_last_error());
      return 1;
    }
  }
  if ((xcc_gpu_own_stream(a1) == NULL) != (xcc_gpu_is_emulated() != 0) ||
      (xcc_gpu_own_stream(a1) && xcc_gpu_own_stream(a1) == xcc_gpu_own_stream(a2))) {
    printf("the contexts' own streams are missing or shared\n");
    return 1;
  }
  for (int k = 0; k < 3; k++) pthread_create(&threads[k], NULL, device_worker, &jobs[k]);
  for (int k = 0; k < 3; k++) pthread_join(threads[k], NULL);
  for (int k = 0; k < 3; k++) {
    if (jobs[k].failed) {
      printf("concurrent runs on device memory of context %d differ or fail: %s\n", k, jobs[k].why);
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
