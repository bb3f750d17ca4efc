/* runtime-c: aligned allocation and the asynchronous copies (DMA) of MLIR kernels. */
#include "xcc_internal.h"

/* ---- memory ------------------------------------------------------------ */

XCC_DEF void *xcc_alloc(int64_t bytes, int64_t alignment) {
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

XCC_DEF void xcc_free(void *p) { free(p); }

/* ---- DMA ----------------------------------------------------------------
 * A tag names a group of transfers by its address. xcc_dma_start counts a transfer in flight
 * for the tag; xcc_dma_wait returns once none started on the tag are in flight. The counts live
 * here, in a small table keyed by the tag's address, never in the tag's memory: what the tag
 * held before (an alloc never initialized, memory recycled from an earlier buffer) cannot make a
 * wait hang or return early, and the tag's memory is never written. A tag may carry any number
 * of transfers, from any threads, across calls.
 *
 * Each DMA runs on its own detached thread: DMAs are few and large in the code xcc emits, so a
 * pool would buy little and add shutdown problems. One mutex guards the table and one condvar
 * serves all tags; waiters recheck their own tag, so sharing it costs only spurious wake-ups. */

static pthread_mutex_t dma_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t dma_done = PTHREAD_COND_INITIALIZER;

struct dma_count {
  const void *tag;
  int64_t in_flight;
};

/* The tags with transfers in flight (an entry leaves when its count reaches zero). */
static struct dma_count *dma_counts;
static size_t dma_counts_len, dma_counts_cap;

/* The tag's entry, or NULL; with `create`, a new zero entry (NULL if memory runs out). Called
 * with dma_lock held. */
static struct dma_count *dma_entry(const void *tag, int create) {
  for (size_t i = 0; i < dma_counts_len; i++)
    if (dma_counts[i].tag == tag)
      return &dma_counts[i];
  if (!create)
    return NULL;
  if (dma_counts_len == dma_counts_cap) {
    size_t cap = dma_counts_cap ? 2 * dma_counts_cap : 16;
    struct dma_count *grown = realloc(dma_counts, cap * sizeof *grown);
    if (!grown)
      return NULL;
    dma_counts = grown;
    dma_counts_cap = cap;
  }
  dma_counts[dma_counts_len] = (struct dma_count){tag, 0};
  return &dma_counts[dma_counts_len++];
}

struct dma_job {
  void *dst;
  const void *src;
  size_t bytes;
  const void *tag;
};

/* One transfer on `tag` is complete. The lock orders the copied bytes before any waiter that
 * then sees the count at zero, and a waiter that saw it non-zero is inside pthread_cond_wait
 * before the broadcast, so the wake-up cannot be lost. */
static void dma_signal(const void *tag) {
  pthread_mutex_lock(&dma_lock);
  struct dma_count *e = dma_entry(tag, 0);
  if (e && --e->in_flight == 0)
    *e = dma_counts[--dma_counts_len];
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

XCC_DEF void xcc_dma_start(void *dst, const void *src, int64_t bytes, int32_t *tag) {
  if (bytes <= 0)
    return;
  /* Count the DMA before the worker can possibly finish it, so a wait issued right after the
   * start sees it in flight. Without a tag (nobody can wait) or without memory for the count,
   * the copy is done now, which still keeps the contract. */
  int counted = 0;
  if (tag) {
    pthread_mutex_lock(&dma_lock);
    struct dma_count *e = dma_entry(tag, 1);
    if (e) {
      e->in_flight++;
      counted = 1;
    }
    pthread_mutex_unlock(&dma_lock);
  }
  if (!counted) {
    memcpy(dst, src, (size_t)bytes);
    return;
  }
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

/* Waits for every transfer started on `tag` so far; `num_elements` (the original
 * specification's size of the transfer waited on) is not needed for that. */
XCC_DEF void xcc_dma_wait(int32_t *tag, int64_t num_elements) {
  (void)num_elements;
  if (!tag)
    return;
  pthread_mutex_lock(&dma_lock);
  while (dma_entry(tag, 0))
    pthread_cond_wait(&dma_done, &dma_lock);
  pthread_mutex_unlock(&dma_lock);
}
