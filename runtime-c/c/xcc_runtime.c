/* xcc runtime. Plain C11 + POSIX threads; compiled by runtime-c/build.rs for
 * every CPU target and linked into the programs xcc produces. */
#define _GNU_SOURCE /* sched_getaffinity: the cores this process may use */

#include "xcc_runtime.h"

/* Every definition is weak: each library xcc writes carries this runtime, so that one archive links
 * alone, and two models bundled into one program or shared library (`--whole-archive`) must not
 * clash. The linker keeps the first copy of each function; copies of one runtime ABI are
 * interchangeable (see docs/c-abi.md, "Linking several models"). */
#define XCC_DEF XCC_API __attribute__((weak))

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static void run_chunks(xcc_threadpool *pool) {
  for (;;) {
    int64_t c = atomic_fetch_add_explicit(&pool->next_chunk, 1, memory_order_relaxed);
    if (c >= pool->chunks)
      return;
    int64_t begin = c * pool->n / pool->chunks, end = (c + 1) * pool->n / pool->chunks;
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

XCC_DEF void xcc_parallel_for(xcc_task_fn task, void *context, int64_t n) {
  if (n <= 0)
    return;
  const xcc_run_options *o = current_options;
  if (o && o->parallel_for) {
    o->parallel_for(o->parallel_for_user, task, context, n);
    return;
  }
  xcc_threadpool *pool = o && o->pool ? o->pool : NULL;
  if (!pool && !(o && o->num_threads == 1) && n > 1 && !on_pool_worker)
    pool = xcc_default_threadpool();
  int threads = pool ? pool->size : 1;
  if (o && o->num_threads > 0 && o->num_threads < threads)
    threads = o->num_threads;
  if ((int64_t)threads > n)
    threads = (int)n;
  if (threads <= 1 || on_pool_worker || pthread_mutex_trylock(&pool->submit) != 0) {
    task(context, 0, n);
    return;
  }
  run_on_pool(pool, threads, task, context, n);
  pthread_mutex_unlock(&pool->submit);
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

/* ---- Status --------------------------------------------------------------------------------- */

XCC_DEF const char *xcc_status_message(int32_t status) {
  switch (status) {
  case XCC_OK:
    return "success";
  case XCC_ERROR_NULL_TENSOR:
    return "a tensor pointer (input or output) is NULL";
  case XCC_ERROR_NULL_WORKSPACE:
    return "the workspace is NULL, but the model needs one (NAME_workspace_size() bytes)";
  case XCC_ERROR_WORKSPACE_MISALIGNED:
    return "the workspace is not aligned to 64 bytes";
  case XCC_ERROR_WORKSPACE_TOO_SMALL:
    return "the workspace is smaller than the model needs (NAME_workspace_size() bytes)";
  case XCC_ERROR_INDEX_OUT_OF_RANGE:
    return "an index input is out of range for the dimension it indexes; the outputs are unspecified";
  case XCC_ERROR_OUT_OF_MEMORY:
    return "the workspace could not be allocated";
  case XCC_ERROR_BAD_DIM:
    return "a run-time dim is negative, outside the model's range, disagrees with another dim, or makes a tensor too "
           "large (NAME_failed_check names the node and the condition where the model has one)";
  case XCC_ERROR_BAD_SHAPE_INPUT:
    return "an input that decides a shape holds values its operator refuses (a negative size, an axis "
           "out of range, element counts that differ; NAME_failed_check names the node and the condition)";
  case XCC_ERROR_UNSUPPORTED_INPUT:
    return "an input holds a value the compiled model does not support (NAME_failed_check names the "
           "node and the condition)";
  case XCC_ERROR_DIVISION_BY_ZERO:
    return "an integer Div or Mod read a divisor of 0; the outputs are unspecified";
  case XCC_ERROR_NOT_A_NUMBER:
    return "a string cast to a number does not start with one, or is outside the integer type's range; the "
           "outputs are unspecified";
  case XCC_ERROR_BAD_IMAGE:
    return "an ImageDecoder input is not an image the model decodes (BMP, PNM, PNG or uncompressed TIFF), or is "
           "corrupt";
  case XCC_ERROR_ALIASED_BUFFERS:
    return "an output was given the same buffer as an input the model reads while writing it (a KV cache's past "
           "and present in a model that does not append in place: the header lists those that do)";
  default:
    return "unknown xcc status code";
  }
}

/* ---- CPU level ----------------------------------------------------------------------------
 * The x86-64 psABI levels. A feature counts only if the OS saves its registers (XCR0), which is
 * what separates "the CPU has AVX-512" from "AVX-512 code can run here". */

#if defined(__x86_64__)
static uint64_t xcr0(void) {
  uint32_t lo, hi;
  __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t)hi << 32 | lo;
}

static int detect_cpu_level(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    return 1;
  const unsigned sse3 = 1u << 0, ssse3 = 1u << 9, fma = 1u << 12, cx16 = 1u << 13, sse41 = 1u << 19,
                 sse42 = 1u << 20, movbe = 1u << 22, popcnt = 1u << 23, osxsave = 1u << 27, avx = 1u << 28,
                 f16c = 1u << 29;
  unsigned need2 = sse3 | ssse3 | cx16 | sse41 | sse42 | popcnt;
  if ((c & need2) != need2)
    return 1;
  unsigned ext_c = 0, ext_b = 0;
  unsigned ea, eb, ec, ed;
  if (__get_cpuid(0x80000001, &ea, &eb, &ec, &ed))
    ext_c = ec; /* LAHF-SAHF (bit 0), LZCNT (bit 5) */
  if (!(ext_c & 1u))
    return 1;
  unsigned need3 = fma | movbe | osxsave | avx | f16c;
  if ((c & need3) != need3 || (xcr0() & 0x6) != 0x6 || !(ext_c & (1u << 5)))
    return 2;
  if (!__get_cpuid_count(7, 0, &ea, &eb, &ec, &ed))
    return 2;
  ext_b = eb;
  const unsigned bmi1 = 1u << 3, avx2 = 1u << 5, bmi2 = 1u << 8;
  if ((ext_b & (bmi1 | avx2 | bmi2)) != (bmi1 | avx2 | bmi2))
    return 2;
  const unsigned avx512f = 1u << 16, avx512dq = 1u << 17, avx512cd = 1u << 28, avx512bw = 1u << 30,
                 avx512vl = 1u << 31;
  unsigned need4 = avx512f | avx512dq | avx512cd | avx512bw | avx512vl;
  if ((ext_b & need4) != need4 || (xcr0() & 0xe6) != 0xe6)
    return 3;
  return 4;
}
#else
static int detect_cpu_level(void) { return 0; }
#endif

static atomic_int cpu_level = -1;

XCC_DEF int32_t xcc_cpu_level(void) {
  int level = atomic_load_explicit(&cpu_level, memory_order_relaxed);
  if (level >= 0)
    return level;
  level = detect_cpu_level();
  const char *env = getenv("XCC_CPU_LEVEL");
  if (env && *env) {
    int pinned = atoi(env);
    if (pinned >= 1 && pinned < level)
      level = pinned;
  }
  atomic_store_explicit(&cpu_level, level, memory_order_relaxed);
  return level;
}

/* bfloat16 narrowing. LLVM turns some f32 computations on bf16 data into bf16 operations (a
   maximum of two widened bf16 values is exact in bf16), and on CPUs without bf16 arithmetic it
   lowers those with calls to __truncsfbf2 and __truncdfbf2, which compiler-rt and libgcc 13 or
   later define and older libgccs do not. Weak, so a toolchain's own definitions win. Rounds to
   the nearest bf16, ties to even; a NaN stays a quiet NaN. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 13) /* the compilers with __bf16 */
__attribute__((weak)) __bf16 __truncsfbf2(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  uint16_t narrow = x != x ? (uint16_t)((bits >> 16) | 0x40) : (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  __bf16 r;
  memcpy(&r, &narrow, sizeof r);
  return r;
}

__attribute__((weak)) __bf16 __truncdfbf2(double x) { return __truncsfbf2((float)x); }
#endif

/* ---- strings ------------------------------------------------------------
 * A STRING tensor is an array of `const char *`, each a NUL-terminated UTF-8 string. The strings
 * a run makes (concatenations, split parts, case changes) are carved from an arena that is
 * current on the calling thread between xcc_strings_enter and xcc_strings_leave, which frees
 * it: a run makes any number of strings without a free per string, and a failed allocation
 * surfaces once, as the run's status. Before leaving, NAME_run gives each string of its STRING
 * outputs a malloc block of its own (xcc_strings_export), which the caller frees with free().
 * The generated code calls the functions below from serial loops on the thread that entered. */

struct xcc_string_block {
  struct xcc_string_block *next;
  size_t used, size;
  char bytes[];
};

/* An output array xcc_strings_export filled, so that a run failing after it is undone. */
struct xcc_string_export {
  const char **strings;
  int64_t n;
  struct xcc_string_export *next;
};

struct xcc_string_arena {
  struct xcc_string_block *blocks;
  struct xcc_string_export *exports;
  int failed;
};

static _Thread_local struct xcc_string_arena *current_strings;
/* The arena of a thread whose own could not be allocated: every allocation from it fails. */
static _Thread_local struct xcc_string_arena failed_strings = {NULL, NULL, 1};

XCC_DEF void *xcc_strings_enter(void) {
  struct xcc_string_arena *previous = current_strings;
  struct xcc_string_arena *arena = calloc(1, sizeof *arena);
  current_strings = arena ? arena : &failed_strings;
  return previous;
}

XCC_DEF int32_t xcc_strings_leave(void *previous, int32_t rc) {
  struct xcc_string_arena *arena = current_strings;
  if (arena && arena->failed && rc == XCC_OK)
    rc = XCC_ERROR_OUT_OF_MEMORY;
  /* A failed run gives the caller no strings: those already exported go back. */
  for (struct xcc_string_export *x = arena && rc != XCC_OK ? arena->exports : NULL; x; x = x->next) {
    for (int64_t i = 0; i < x->n; i++) {
      free((void *)x->strings[i]);
      x->strings[i] = NULL;
    }
  }
  if (arena && arena != &failed_strings) {
    for (struct xcc_string_block *b = arena->blocks; b;) {
      struct xcc_string_block *next = b->next;
      free(b);
      b = next;
    }
    free(arena);
  }
  current_strings = previous;
  return rc;
}

/* `bytes` bytes from the current arena; "" (a string that is never written) when none is
 * current or the allocation fails, which the arena records for xcc_strings_leave. */
static char *string_bytes(size_t bytes) {
  static const char empty[1];
  struct xcc_string_arena *arena = current_strings;
  if (!arena || arena->failed)
    goto failed;
  /* At a multiple of 8, for the export records among the strings. */
  struct xcc_string_block *b = arena->blocks;
  size_t at = b ? (b->used + 7) & ~(size_t)7 : 0;
  if (!b || at > b->size || b->size - at < bytes) {
    size_t size = bytes > 4096 ? bytes : 4096;
    b = malloc(sizeof *b + size);
    if (!b)
      goto failed;
    b->next = arena->blocks;
    b->size = size;
    arena->blocks = b;
    at = 0;
  }
  b->used = at + bytes;
  return b->bytes + at;
failed:
  if (arena)
    arena->failed = 1;
  return (char *)empty;
}

/* Whether the current arena could not give the last string its bytes (or there is none). */
static int arena_failed(void) { return !current_strings || current_strings->failed; }

/* A copy of `n` bytes at `s`, NUL-terminated, in the arena. */
static const char *string_copy(const char *s, size_t n) {
  char *p = string_bytes(n + 1);
  if (arena_failed())
    return p;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

XCC_DEF int32_t xcc_strings_export(const char **strings, int64_t n, int32_t rc) {
  struct xcc_string_export *record = rc == XCC_OK && !arena_failed() ? (void *)string_bytes(sizeof *record) : NULL;
  if (rc != XCC_OK || arena_failed()) {
    for (int64_t i = 0; i < n; i++)
      strings[i] = NULL;
    return rc != XCC_OK ? rc : XCC_ERROR_OUT_OF_MEMORY;
  }
  for (int64_t i = 0; i < n; i++) {
    size_t len = strlen(strings[i]) + 1;
    char *copy = malloc(len);
    if (!copy) {
      for (int64_t j = 0; j < i; j++) {
        free((void *)strings[j]);
        strings[j] = NULL;
      }
      for (int64_t j = i; j < n; j++)
        strings[j] = NULL;
      return XCC_ERROR_OUT_OF_MEMORY;
    }
    memcpy(copy, strings[i], len);
    strings[i] = copy;
  }
  record->strings = strings;
  record->n = n;
  record->next = current_strings->exports;
  current_strings->exports = record;
  return XCC_OK;
}

XCC_DEF int32_t xcc_strings_check(const char *const *strings, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (!strings[i])
      return XCC_ERROR_NULL_TENSOR;
  return XCC_OK;
}

XCC_DEF const char *xcc_string_concat(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *p = string_bytes(na + nb + 1);
  if (arena_failed())
    return p;
  memcpy(p, a, na);
  memcpy(p + na, b, nb + 1);
  return p;
}

XCC_DEF int32_t xcc_string_equal(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* ---- Cast between strings and numbers ------------------------------------------------------ */

/* Records `code` in a run's status unless an earlier failure is there already. */
static void fail_status(int32_t *status, int32_t code) {
  if (*status == XCC_OK)
    *status = code;
}

/* C's strtod (in the process's LC_NUMERIC locale, "C" unless the program sets one): leading
 * whitespace, then the longest prefix that reads as a number ("3abc" is 3; "inf", "infinity",
 * "nan" and hex in any case). A string with no such prefix, or one past the double range or
 * below its normal numbers (strtod's ERANGE: "1e400", "1e-310"), sets XCC_ERROR_NOT_A_NUMBER, as
 * ONNX Runtime's std::stod fails its run; the narrower float types then round the double. */
XCC_DEF double xcc_string_to_f64(const char *s, int32_t *status) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno == ERANGE)
    fail_status(status, XCC_ERROR_NOT_A_NUMBER);
  return v;
}

/* strtoll in base 10 ("2.7" is 2, "1e3" is 1); no digits or a value outside int64 sets
 * XCC_ERROR_NOT_A_NUMBER. The narrower integer types wrap the result, as Cast between them does. */
XCC_DEF int64_t xcc_string_to_i64(const char *s, int32_t *status) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || errno == ERANGE)
    fail_status(status, XCC_ERROR_NOT_A_NUMBER);
  return (int64_t)v;
}

/* strtoull in base 10, so that "-1" is 2^64 - 1 (as ONNX Runtime's std::stoull). */
XCC_DEF uint64_t xcc_string_to_u64(const char *s, int32_t *status) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || errno == ERANGE)
    fail_status(status, XCC_ERROR_NOT_A_NUMBER);
  return (uint64_t)v;
}

/* `text` copied into the arena. */
static const char *arena_string(const char *text) { return string_copy(text, strlen(text)); }

/* Eight significant digits ("%.8g": "0.33333334", "1e+20", "-0"; the decimal point of the
 * process's LC_NUMERIC locale), "NaN", "INF" and "-INF": what ONNX Runtime writes for every float
 * type. */
XCC_DEF const char *xcc_string_of_f64(double v) {
  char text[40];
  if (isnan(v))
    return arena_string("NaN");
  if (isinf(v))
    return arena_string(v < 0 ? "-INF" : "INF");
  snprintf(text, sizeof text, "%.8g", v);
  return arena_string(text);
}

XCC_DEF const char *xcc_string_of_i64(int64_t v) {
  char text[24];
  snprintf(text, sizeof text, "%" PRId64, v);
  return arena_string(text);
}

XCC_DEF const char *xcc_string_of_u64(uint64_t v) {
  char text[24];
  snprintf(text, sizeof text, "%" PRIu64, v);
  return arena_string(text);
}

/* ---- StringSplit: Python's str.split ---------------------------------------------------- */

static int is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* One part of Python's str.split from `s`: split at `delim`, or, for an empty one, at runs of
 * whitespace (none at either end: *start is NULL where only whitespace is left); `last` takes
 * the rest whole (maxsplit reached). Returns where the next part's text starts, or NULL when the
 * string is done. Each call reads only as far as its part, so a whole split is one pass. */
static const char *next_part(const char *s, const char *delim, int last, const char **start, size_t *len) {
  size_t dn = strlen(delim);
  if (dn == 0) {
    while (is_space(*s))
      s++;
    if (!*s) {
      *start = NULL;
      *len = 0;
      return NULL;
    }
  }
  const char *end = last ? NULL : dn ? strstr(s, delim) : s;
  if (!last && !dn)
    while (*end && !is_space(*end))
      end++;
  if (!end)
    end = s + strlen(s);
  *start = s;
  *len = (size_t)(end - s);
  if (last || !*end)
    return NULL;
  return end + dn;
}

XCC_DEF int64_t xcc_string_split_count(const char *s, const char *delim, int64_t maxsplit) {
  int64_t count = 0;
  while (s) {
    const char *start;
    size_t len;
    s = next_part(s, delim, maxsplit >= 0 && count == maxsplit, &start, &len);
    count += start != NULL;
  }
  return count;
}

XCC_DEF const char *xcc_string_split_next(const char **cursor, const char *delim, int32_t last) {
  const char *start = NULL;
  size_t len = 0;
  if (*cursor)
    *cursor = next_part(*cursor, delim, last, &start, &len);
  return start ? string_copy(start, len) : "";
}

XCC_DEF int64_t xcc_strings_split_max(const char *const *x, int64_t n, const char *delim, int64_t maxsplit) {
  int64_t most = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!x[i])
      return -1;
    int64_t c = xcc_string_split_count(x[i], delim, maxsplit);
    most = c > most ? c : most;
  }
  return most;
}

/* ---- StringNormalizer ---------------------------------------------------------------------- */

/* The code point `c` in the other case, for ASCII, Latin-1, Greek and Cyrillic letters (the
 * changes that keep a UTF-8 sequence's length); any other code point unchanged. */
static unsigned change_case(unsigned c, int upper) {
  struct range {
    unsigned lower, upper, n;
  };
  static const struct range ranges[] = {
      {0x61, 0x41, 26}, {0xE0, 0xC0, 23}, {0xF8, 0xD8, 7}, {0x3B1, 0x391, 17},
      {0x3C3, 0x3A3, 9}, {0x430, 0x410, 32}, {0x450, 0x400, 16},
  };
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
    unsigned from = upper ? ranges[i].lower : ranges[i].upper, to = upper ? ranges[i].upper : ranges[i].lower;
    if (c >= from && c < from + ranges[i].n)
      return c - from + to;
  }
  return c;
}

/* `s` with its letters changed in place (upper or lower case); other bytes untouched. */
static void change_case_in_place(char *s, int upper) {
  unsigned char *p = (unsigned char *)s;
  while (*p) {
    if (*p < 0x80) {
      *p = (unsigned char)change_case(*p, upper);
      p++;
    } else if ((p[0] & 0xE0) == 0xC0 && (p[1] & 0xC0) == 0x80) {
      unsigned c = change_case(((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu), upper);
      if (c >= 0x80 && c < 0x800) {
        p[0] = (unsigned char)(0xC0 | (c >> 6));
        p[1] = (unsigned char)(0x80 | (c & 0x3F));
      }
      p += 2;
    } else {
      p++;
    }
  }
}

XCC_DEF const char *xcc_string_change_case(const char *s, int32_t upper) {
  size_t n = strlen(s);
  const char *copy = string_copy(s, n);
  if (!arena_failed())
    change_case_in_place((char *)copy, upper);
  return copy;
}

/* The code point at *p (one or two UTF-8 bytes; any other byte as itself), *p moved past it. */
static unsigned next_code_point(const unsigned char **p) {
  const unsigned char *q = *p;
  if ((q[0] & 0xE0) == 0xC0 && (q[1] & 0xC0) == 0x80) {
    *p += 2;
    return ((q[0] & 0x1Fu) << 6) | (q[1] & 0x3Fu);
  }
  *p += 1;
  return q[0];
}

/* Whether a and b are one string in lower case (letter by letter, as change_case lowers). */
static int same_in_lower_case(const char *a, const char *b) {
  const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
  while (*p && *q)
    if (change_case(next_code_point(&p), 0) != change_case(next_code_point(&q), 0))
      return 0;
  return !*p && !*q;
}

/* Whether `s` is one of the `count` NUL-separated strings at `list`, compared in lower case
 * unless case_sensitive. */
XCC_DEF int32_t xcc_string_in_list(const char *s, const char *list, int64_t count, int32_t case_sensitive) {
  for (int64_t i = 0; i < count; i++, list += strlen(list) + 1)
    if (case_sensitive ? strcmp(s, list) == 0 : same_in_lower_case(s, list))
      return 1;
  return 0;
}

XCC_DEF int64_t xcc_strings_count_kept(const char *const *x, int64_t n, const char *list, int64_t count,
                                       int32_t case_sensitive) {
  int64_t kept = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!x[i])
      return -1;
    kept += !xcc_string_in_list(x[i], list, count, case_sensitive);
  }
  return kept;
}

/* ---- lookups ------------------------------------------------------------------------------- */

/* The position of `s` among the `count` NUL-separated strings at `list`, or -1. */
XCC_DEF int64_t xcc_string_find(const char *s, const char *list, int64_t count) {
  for (int64_t i = 0; i < count; i++, list += strlen(list) + 1)
    if (strcmp(s, list) == 0)
      return i;
  return -1;
}

/* RegexFullMatch: walks a DFA xcc built at compile time over the bytes of `s`; `next` has 256
 * entries per state, `accepts[state]` says whether the text may end there. */
XCC_DEF int32_t xcc_string_dfa_match(const char *s, const int32_t *next, const uint8_t *accepts, int32_t start) {
  int32_t state = start;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    state = next[(int64_t)state * 256 + *p];
  return accepts[state];
}

/* ---- ImageDecoder --------------------------------------------------------------------------- */

#include "xcc_image.c"
