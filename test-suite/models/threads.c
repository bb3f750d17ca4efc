/* Threaded runs of one model compiled twice (as tm_a and tm_b): every way of running it must give
   the bytes of a one-thread run (the parallel loops split only independent iterations, so the
   arithmetic is the same): pools of 2, 3 and 8 threads, the default pool (NULL options too), a
   thread limit, a caller's parallel-for, and both models running concurrently from four application threads on
   the shared default pool. A run must not allocate: malloc, calloc and posix_memalign are wrapped
   at link time (-Wl,--wrap=...) and counted while runs are in flight. Prints "ok". */
#include "tm_a.h"
#include "tm_b.h"
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IN TM_A_INPUT0_SIZE
#define OUT TM_A_OUTPUT0_SIZE

static atomic_int counting, allocations;
void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
int __real_posix_memalign(void **, size_t, size_t);
void *__wrap_malloc(size_t n) {
  if (atomic_load(&counting)) atomic_fetch_add(&allocations, 1);
  return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t s) {
  if (atomic_load(&counting)) atomic_fetch_add(&allocations, 1);
  return __real_calloc(n, s);
}
int __wrap_posix_memalign(void **p, size_t a, size_t n) {
  if (atomic_load(&counting)) atomic_fetch_add(&allocations, 1);
  return __real_posix_memalign(p, a, n);
}

static float input[IN], serial[OUT];
static atomic_int callbacks;

/* A caller's parallel-for: the slices in reverse order on the calling thread, in uneven pieces. */
static void reverse_slices(void *user, xcc_task_fn task, void *context, int64_t n) {
  atomic_fetch_add((atomic_int *)user, 1);
  for (int64_t end = n; end > 0;) {
    int64_t begin = end > 3 ? end - 3 : 0;
    task(context, begin, end);
    end = begin;
  }
}

/* Before each checked run: output and workspace filled with NaNs, so a slice of a loop that did not
   run cannot pass for one that did by leaving an earlier run's values. */
static void poison(float *out, void *ws, size_t ws_bytes) {
  memset(out, 0xff, sizeof(float) * OUT);
  memset(ws, 0xff, ws_bytes);
}

static int check(const char *what, const float *out) {
  if (memcmp(out, serial, sizeof serial) == 0) return 0;
  for (int i = 0; i < OUT; i++)
    if (memcmp(&out[i], &serial[i], sizeof(float)) != 0) {
      printf("%s: output %d is %.9g, one thread gives %.9g\n", what, i, out[i], serial[i]);
      break;
    }
  return 1;
}

struct job { int use_b; int rc; void *ws; size_t ws_bytes; float out[OUT]; };

static void *concurrent(void *p) {
  struct job *j = (struct job *)p;
  for (int r = 0; r < 8 && j->rc == 0; r++) {
    poison(j->out, j->ws, j->ws_bytes);
    j->rc = j->use_b ? tm_b_run(input, j->out, j->ws) : tm_a_run(input, j->out, j->ws);
    if (j->rc == 0 && check(j->use_b ? "concurrent tm_b" : "concurrent tm_a", j->out)) j->rc = 99;
  }
  return NULL;
}

int main(void) {
  for (int i = 0; i < IN; i++) input[i] = (float)((i * 7919) % 255) / 255.0f - 0.5f;
  size_t ws_bytes = (tm_a_workspace_size() + 64) / 64 * 64;
  void *ws = aligned_alloc(64, ws_bytes);
  static float out[OUT];
  xcc_run_options one = {.num_threads = 1};
  if (tm_a_run_with(input, serial, ws, &one) != 0) { puts("one-thread run failed"); return 1; }
  int bad = 0;
  int sizes[] = {2, 3, 8};
  for (int k = 0; k < 3; k++) {
    xcc_threadpool *pool = xcc_threadpool_create(sizes[k]);
    if (!pool || xcc_threadpool_size(pool) != sizes[k]) { printf("pool of %d\n", sizes[k]); return 1; }
    xcc_run_options o = {.pool = pool};
    char what[32];
    snprintf(what, sizeof what, "pool of %d", sizes[k]);
    for (int r = 0; r < 3; r++) {
      poison(out, ws, ws_bytes);
      atomic_store(&counting, 1);
      int rc = tm_a_run_with(input, out, ws, &o);
      atomic_store(&counting, 0);
      bad |= rc != 0 || check(what, out);
    }
    xcc_threadpool_destroy(pool);
  }
  poison(out, ws, ws_bytes);
  bad |= tm_a_run(input, out, ws) != 0 || check("default pool", out);
  poison(out, ws, ws_bytes);
  atomic_store(&counting, 1);
  bad |= tm_a_run(input, out, ws) != 0 || check("default pool", out);
  atomic_store(&counting, 0);
  poison(out, ws, ws_bytes);
  bad |= tm_a_run_with(input, out, ws, NULL) != 0 || check("no options (NULL)", out);
  xcc_run_options two = {.num_threads = 2};
  poison(out, ws, ws_bytes);
  bad |= tm_a_run_with(input, out, ws, &two) != 0 || check("two threads of the default pool", out);
  xcc_run_options mine = {.parallel_for = reverse_slices, .parallel_for_user = &callbacks};
  poison(out, ws, ws_bytes);
  bad |= tm_a_run_with(input, out, ws, &mine) != 0 || check("caller's parallel-for", out);
  if (atomic_load(&callbacks) == 0) { puts("the caller's parallel-for was never called"); bad = 1; }
  struct job jobs[4] = {{0}, {1}, {0}, {1}};
  pthread_t t[4];
  for (int i = 0; i < 4; i++) {
    jobs[i].ws_bytes = ws_bytes + (tm_b_workspace_size() + 64) / 64 * 64;
    jobs[i].ws = aligned_alloc(64, jobs[i].ws_bytes);
  }
  atomic_store(&counting, 1);
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, concurrent, &jobs[i]);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  atomic_store(&counting, 0);
  for (int i = 0; i < 4; i++)
    if (jobs[i].rc) { printf("application thread %d: %d\n", i, jobs[i].rc); bad = 1; }
  if (atomic_load(&allocations) != 0) { printf("%d allocations during runs\n", atomic_load(&allocations)); bad = 1; }
  if (!bad) printf("ok (%d calls to the caller's parallel-for)\n", atomic_load(&callbacks));
  return bad;
}
