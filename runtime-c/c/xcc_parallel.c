/* runtime-c: the thread pool behind parallel loops, and the run options that choose threads per run. */
#include "xcc_internal.h"

/* ---- parallel loops -----------------------------------------------------------------------
 * A pool runs one loop at a time. The submitting thread publishes the loop, wakes the workers it
 * wants and takes chunks itself; every participant takes chunks from one atomic counter until
 * none are left. Workers spin for a short while after a loop before sleeping, because the loops
 * of one model run come in quick succession. The job word packs the job's sequence number with
 * how many workers it wants, so a worker reads both at once: a worker counted in `pending` holds
 * the submitter back, which keeps the job's fields stable while it reads them. */

#define CHUNKS_PER_THREAD 4
#define SPIN_NANOSECONDS 200000
#define WANT_BITS 16

struct xcc_threadpool {
  int size; /* threads, the submitter's included */
  pthread_t *workers;
  pthread_mutex_t submit; /* held while a loop runs: one loop at a time */
  pthread_mutex_t lock;   /* guards sleeping and the wake-up */
  pthread_cond_t wake;
  int sleeping;
  _Atomic uint64_t job; /* sequence << WANT_BITS | workers wanted; sequence 0 means shut down */
  atomic_int pending;   /* wanted workers still inside the current loop */
  xcc_task_fn task;
  void *context;
  int64_t n;
  int64_t chunks;
  _Atomic int64_t next_chunk;
};

struct worker_arg {
  xcc_threadpool *pool;
  int index; /* 1-based: the submitter is thread 0 */
};

/* Non-zero on a pool's worker threads: a loop they start runs inline (no nested submission). */
static _Thread_local int on_pool_worker;
static _Thread_local const xcc_run_options *current_options;

static void cpu_relax(void) {
#if defined(__x86_64__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static int64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Where chunk c of a loop of n iterations in `chunks` chunks begins. Where each chunk would have
   a few iterations, the chunks shrink linearly, the first about twice the average and the last a
   small fraction of it, so the threads' last chunks end close together with as many calls as
   equal chunks (a decode step's matrix-vector loops, each streaming its weights once, ran 11%
   faster at two threads: with equal chunks, one thread waited for up to an eighth of each loop).
   With fewer iterations (a few heavy tasks) the chunks are equal. */
static int64_t chunk_begin(int64_t c, int64_t chunks, int64_t n) {
  if (c >= chunks)
    return n;
  if (n < 4 * chunks)
    return c * n / chunks;
  double left = (double)(chunks - c) / (double)chunks;
  int64_t begin = (int64_t)((double)n * (1.0 - left * left));
  return begin < n ? begin : n;
}

static void run_chunks(xcc_threadpool *pool) {
  for (;;) {
    int64_t c = atomic_fetch_add_explicit(&pool->next_chunk, 1, memory_order_relaxed);
    if (c >= pool->chunks)
      return;
    int64_t begin = chunk_begin(c, pool->chunks, pool->n), end = chunk_begin(c + 1, pool->chunks, pool->n);
    if (begin < end)
      pool->task(pool->context, begin, end);
  }
}

/* Waits until the job word differs from seen: spins first, then sleeps on the condition. */
static uint64_t wait_for_job(xcc_threadpool *pool, uint64_t seen) {
  int64_t deadline = now_ns() + SPIN_NANOSECONDS;
  for (int i = 0;; i++) {
    uint64_t job = atomic_load_explicit(&pool->job, memory_order_acquire);
    if (job != seen)
      return job;
    cpu_relax();
    if ((i & 255) == 255 && now_ns() > deadline)
      break;
  }
  pthread_mutex_lock(&pool->lock);
  pool->sleeping++;
  uint64_t job;
  while ((job = atomic_load_explicit(&pool->job, memory_order_acquire)) == seen)
    pthread_cond_wait(&pool->wake, &pool->lock);
  pool->sleeping--;
  pthread_mutex_unlock(&pool->lock);
  return job;
}

static void *worker_main(void *p) {
  struct worker_arg arg = *(struct worker_arg *)p;
  free(p);
  xcc_threadpool *pool = arg.pool;
  on_pool_worker = 1;
  /* The word the pool starts with, not a fresh load: a loop may be submitted before this
   * thread first runs, and that loop must not be taken for the starting state. */
  uint64_t seen = (uint64_t)1 << WANT_BITS;
  for (;;) {
    uint64_t job = wait_for_job(pool, seen);
    seen = job;
    if (job >> WANT_BITS == 0)
      return NULL;
    if (arg.index > (int)(job & ((1u << WANT_BITS) - 1)))
      continue;
    run_chunks(pool);
    atomic_fetch_sub_explicit(&pool->pending, 1, memory_order_release);
  }
}

static void stop_workers(xcc_threadpool *pool, int started) {
  pthread_mutex_lock(&pool->lock);
  atomic_store_explicit(&pool->job, 0, memory_order_release);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->lock);
  for (int i = 0; i < started; i++)
    pthread_join(pool->workers[i], NULL);
}

static int usable_cores(void) {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
#endif
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

XCC_DEF xcc_threadpool *xcc_threadpool_create(int num_threads) {
  if (num_threads <= 0)
    num_threads = usable_cores();
  if (num_threads > (1 << WANT_BITS) - 1)
    num_threads = (1 << WANT_BITS) - 1;
  xcc_threadpool *pool = calloc(1, sizeof *pool);
  if (!pool)
    return NULL;
  pool->size = num_threads;
  pool->workers = calloc((size_t)num_threads, sizeof(pthread_t));
  pthread_mutex_init(&pool->submit, NULL);
  pthread_mutex_init(&pool->lock, NULL);
  pthread_cond_init(&pool->wake, NULL);
  atomic_store(&pool->job, (uint64_t)1 << WANT_BITS);
  int started = 0;
  while (pool->workers && started < num_threads - 1) {
    struct worker_arg *arg = malloc(sizeof *arg);
    if (!arg)
      break;
    *arg = (struct worker_arg){pool, started + 1};
    if (pthread_create(&pool->workers[started], NULL, worker_main, arg) != 0) {
      free(arg);
      break;
    }
    started++;
  }
  if (!pool->workers || started < num_threads - 1) {
    stop_workers(pool, started);
    free(pool->workers);
    free(pool);
    return NULL;
  }
  return pool;
}

XCC_DEF void xcc_threadpool_destroy(xcc_threadpool *pool) {
  if (!pool)
    return;
  stop_workers(pool, pool->size - 1);
  pthread_mutex_destroy(&pool->submit);
  pthread_mutex_destroy(&pool->lock);
  pthread_cond_destroy(&pool->wake);
  free(pool->workers);
  free(pool);
}

XCC_DEF int xcc_threadpool_size(const xcc_threadpool *pool) { return pool ? pool->size : 1; }

static xcc_threadpool *default_pool;
static pthread_once_t default_pool_once = PTHREAD_ONCE_INIT;

static void create_default_pool(void) {
  const char *env = getenv("XCC_NUM_THREADS");
  int n = env ? atoi(env) : 0;
  default_pool = xcc_threadpool_create(n);
}

XCC_DEF xcc_threadpool *xcc_default_threadpool(void) {
  pthread_once(&default_pool_once, create_default_pool);
  return default_pool;
}

/* Runs the loop on `threads` of the pool's threads; the caller holds pool->submit. */
static void run_on_pool(xcc_threadpool *pool, int threads, xcc_task_fn task, void *context, int64_t n) {
  int64_t chunks = (int64_t)threads * CHUNKS_PER_THREAD;
  pool->task = task;
  pool->context = context;
  pool->n = n;
  pool->chunks = chunks < n ? chunks : n;
  atomic_store_explicit(&pool->next_chunk, 0, memory_order_relaxed);
  atomic_store_explicit(&pool->pending, threads - 1, memory_order_relaxed);
  uint64_t sequence = (atomic_load_explicit(&pool->job, memory_order_relaxed) >> WANT_BITS) + 1;
  atomic_store_explicit(&pool->job, sequence << WANT_BITS | (uint64_t)(threads - 1), memory_order_release);
  pthread_mutex_lock(&pool->lock);
  if (pool->sleeping > 0)
    pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->lock);
  run_chunks(pool);
  for (int i = 0; atomic_load_explicit(&pool->pending, memory_order_acquire) > 0; i++) {
    cpu_relax();
    if ((i & 1023) == 1023)
      sched_yield();
  }
}

/* The pool a loop of more than one iteration runs on under the run's options o (NULL: the calling
   thread alone), with how many of its threads it takes: o's pool, else the default one unless o
   asks for one thread or this is a pool's worker, capped by o's num_threads. */
static xcc_threadpool *loop_pool(const xcc_run_options *o, int *threads) {
  xcc_threadpool *pool = o && o->pool ? o->pool : NULL;
  if (!pool && !(o && o->num_threads == 1) && !on_pool_worker)
    pool = xcc_default_threadpool();
  *threads = pool ? pool->size : 1;
  if (o && o->num_threads > 0 && o->num_threads < *threads)
    *threads = o->num_threads;
  return pool;
}

XCC_DEF void xcc_parallel_for(xcc_task_fn task, void *context, int64_t n) {
  if (n <= 0)
    return;
  const xcc_run_options *o = current_options;
  if (o && o->parallel_for) {
    o->parallel_for(o->parallel_for_user, task, context, n);
    return;
  }
  int threads = 1;
  xcc_threadpool *pool = n > 1 ? loop_pool(o, &threads) : NULL;
  if ((int64_t)threads > n)
    threads = (int)n;
  if (threads <= 1 || on_pool_worker || pthread_mutex_trylock(&pool->submit) != 0) {
    task(context, 0, n);
    return;
  }
  run_on_pool(pool, threads, task, context, n);
  pthread_mutex_unlock(&pool->submit);
}

/* The threads a parallel loop of many iterations would run on now, for compiled code that
   chooses between a strategy for few threads and one for many (a bidirectional RNN's two
   directions as two tasks, or each step's loops shared): 1 on a pool's worker, in a run of one
   thread or where no pool can start; 0 under a caller's own parallel_for, whose width is not known. */
XCC_DEF int32_t xcc_parallel_threads(void) {
  const xcc_run_options *o = current_options;
  if (o && o->parallel_for)
    return 0;
  if (on_pool_worker)
    return 1;
  int threads;
  loop_pool(o, &threads);
  return threads;
}

XCC_DEF const xcc_run_options *xcc_run_options_enter(const xcc_run_options *options) {
  const xcc_run_options *previous = current_options;
  current_options = options;
  return previous;
}

XCC_DEF void xcc_run_options_leave(const xcc_run_options *previous) { current_options = previous; }

XCC_DEF int32_t xcc_run_options_check_workspace(const xcc_run_options *options, size_t needed) {
  if (options && options->workspace_size != 0 && options->workspace_size < needed)
    return XCC_ERROR_WORKSPACE_TOO_SMALL;
  return XCC_OK;
}
