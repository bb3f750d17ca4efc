/* xcc runtime. Plain C11 + POSIX threads; compiled by runtime-c/build.rs for
 * every CPU target and linked into the programs xcc produces. */
#define _POSIX_C_SOURCE 200809L

#include "xcc_runtime.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory ------------------------------------------------------------ */

XCC_API void *xcc_alloc(int64_t bytes, int64_t alignment) {
  if (bytes < 0)
    return NULL;
  /* 16 covers every scalar/vector type malloc would; posix_memalign also
   * needs a power of two that is a multiple of sizeof(void *), so round an
   * odd request up rather than fail. */
  size_t align = 16;
  while ((int64_t)align < alignment)
    align <<= 1;
  /* Zero bytes must still yield a distinct, freeable pointer. */
  size_t size = bytes == 0 ? align : (size_t)bytes;
  void *p = NULL;
  if (posix_memalign(&p, align, size) != 0)
    return NULL;
  return p;
}

XCC_API void xcc_free(void *p) { free(p); }

/* ---- DMA ----------------------------------------------------------------
 * Each DMA runs on its own detached thread: DMAs are few and large in the
 * code xcc emits, so a pool would buy little and add shutdown problems.
 * One global mutex/condvar pair serves all tags; waiters recheck their own
 * tag, so sharing it costs only spurious wake-ups. */

static pthread_mutex_t dma_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dma_done = PTHREAD_COND_INITIALIZER;

struct dma_job {
  void *dst;
  const void *src;
  size_t bytes;
  int32_t *tag;
};

static void dma_signal(int32_t *tag) {
  /* Decrement under the lock: a waiter that saw a non-zero tag is then
   * guaranteed to be inside pthread_cond_wait before we broadcast, so the
   * wake-up cannot be lost. Release orders the copied bytes before it. */
  pthread_mutex_lock(&dma_lock);
  __atomic_fetch_sub(tag, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&dma_done);
  pthread_mutex_unlock(&dma_lock);
}

static void *dma_worker(void *arg) {
  struct dma_job job = *(struct dma_job *)arg;
  free(arg);
  memcpy(job.dst, job.src, job.bytes);
  dma_signal(job.tag);
  return NULL;
}

XCC_API void xcc_dma_start(void *dst, const void *src, int64_t bytes, int32_t *tag) {
  if (bytes <= 0)
    return;
  if (!tag) {
    /* Nobody can wait for it, so completion must be immediate. */
    memcpy(dst, src, (size_t)bytes);
    return;
  }
  /* Count the DMA before the worker can possibly finish it, so *tag never
   * goes negative and a wait issued right after start sees it in flight. */
  __atomic_fetch_add(tag, 1, __ATOMIC_SEQ_CST);

  struct dma_job *job = malloc(sizeof *job);
  if (job) {
    *job = (struct dma_job){dst, src, (size_t)bytes, tag};
    pthread_attr_t attr;
    pthread_t thread;
    int ok = pthread_attr_init(&attr) == 0;
    if (ok) {
      pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
      /* memcpy needs little stack; a small one keeps many DMAs in flight
       * cheap. Above aarch64's 128 KiB minimum; if refused, the default
       * size is used, which is merely wasteful. */
      pthread_attr_setstacksize(&attr, 256 * 1024);
      ok = pthread_create(&thread, &attr, dma_worker, job) == 0;
      pthread_attr_destroy(&attr);
    }
    if (ok)
      return;
    free(job);
  }
  /* Out of threads or memory: degrade to a synchronous copy, which is
   * still a correct (if slow) implementation of the contract. */
  memcpy(dst, src, (size_t)bytes);
  dma_signal(tag);
}

XCC_API void xcc_dma_wait(int32_t *tag, int64_t num_elements) {
  (void)num_elements;
  if (!tag)
    return;
  pthread_mutex_lock(&dma_lock);
  /* Acquire pairs with the worker's release so the copied bytes are
   * visible once the count reaches zero. */
  while (__atomic_load_n(tag, __ATOMIC_ACQUIRE) != 0)
    pthread_cond_wait(&dma_done, &dma_lock);
  pthread_mutex_unlock(&dma_lock);
}
