/* Two models in one program (symbols carry each model's name), each run concurrently from two
   threads with separate workspaces; every run must give the same bytes as a serial run. */
#include "mlp_a.h"
#include "mlp_b.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float input[MLP_A_INPUT0_SIZE];
static float serial[MLP_A_OUTPUT0_SIZE];

struct job { int use_b; float out[MLP_A_OUTPUT0_SIZE]; int rc; };

static void *work(void *p) {
  struct job *j = (struct job *)p;
  void *ws = aligned_alloc(64, (mlp_a_workspace_size() + 64) / 64 * 64 + (mlp_b_workspace_size() + 64) / 64 * 64);
  for (int r = 0; r < 200 && j->rc == 0; r++) {
    j->rc = j->use_b ? mlp_b_run(input, j->out, ws) : mlp_a_run(input, j->out, ws);
    if (memcmp(j->out, serial, sizeof serial) != 0) j->rc = 99;
  }
  free(ws);
  return NULL;
}

int main(void) {
  for (int i = 0; i < MLP_A_INPUT0_SIZE; i++) input[i] = (float)((i * 7919) % 255) / 255.0f - 0.5f;
  if (mlp_a_run_alloc(input, serial) != 0) return 1;
  float other[MLP_B_OUTPUT0_SIZE];
  if (mlp_b_run_alloc(input, other) != 0 || memcmp(other, serial, sizeof serial) != 0) { puts("models differ"); return 1; }
  struct job jobs[4] = {{0}, {1}, {0}, {1}};
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, work, &jobs[i]);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < 4; i++) if (jobs[i].rc) { printf("thread %d failed: %d\n", i, jobs[i].rc); return 1; }
  puts("ok");
  return 0;
}
