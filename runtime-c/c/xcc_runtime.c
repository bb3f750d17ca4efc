/* xcc runtime. Plain C11 + POSIX threads; compiled by runtime-c/build.rs for
 * every CPU target and linked into the programs xcc produces. */
#define _POSIX_C_SOURCE 200809L

#include "xcc_runtime.h"

#include <dlfcn.h>
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

/* ---- CUDA launch shim --------------------------------------------------------------------
 * libcuda is opened with dlopen on first use so that a library built by xcc never depends on
 * CUDA at link time; machines without a driver get XCC_CUDA_UNAVAILABLE. Only the handful of
 * driver entry points needed to load a module and launch a kernel are resolved. */
#define XCC_CUDA_UNAVAILABLE (-1)

typedef int (*cu_init_t)(unsigned);
typedef int (*cu_device_get_t)(int *, int);
typedef int (*cu_ctx_create_t)(void **, unsigned, int);
typedef int (*cu_module_load_data_t)(void **, const void *);
typedef int (*cu_module_get_function_t)(void **, void *, const char *);
typedef int (*cu_launch_kernel_t)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *, void **, void **);
typedef int (*cu_ctx_synchronize_t)(void);
typedef int (*cu_mem_alloc_t)(void **, size_t);
typedef int (*cu_mem_free_t)(void *);
typedef int (*cu_memcpy_htod_t)(void *, const void *, size_t);
typedef int (*cu_memcpy_dtoh_t)(void *, const void *, size_t);

static struct {
  pthread_once_t once;
  int status;
  cu_module_load_data_t module_load_data;
  cu_module_get_function_t module_get_function;
  cu_launch_kernel_t launch_kernel;
  cu_ctx_synchronize_t ctx_synchronize;
  cu_mem_alloc_t mem_alloc;
  cu_mem_free_t mem_free;
  cu_memcpy_htod_t memcpy_htod;
  cu_memcpy_dtoh_t memcpy_dtoh;
} cuda = {.once = PTHREAD_ONCE_INIT, .status = XCC_CUDA_UNAVAILABLE};

static void cuda_open(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return;
  cu_init_t init = (cu_init_t)dlsym(lib, "cuInit");
  cu_device_get_t device_get = (cu_device_get_t)dlsym(lib, "cuDeviceGet");
  cu_ctx_create_t ctx_create = (cu_ctx_create_t)dlsym(lib, "cuCtxCreate_v2");
  cuda.module_load_data = (cu_module_load_data_t)dlsym(lib, "cuModuleLoadData");
  cuda.module_get_function = (cu_module_get_function_t)dlsym(lib, "cuModuleGetFunction");
  cuda.launch_kernel = (cu_launch_kernel_t)dlsym(lib, "cuLaunchKernel");
  cuda.ctx_synchronize = (cu_ctx_synchronize_t)dlsym(lib, "cuCtxSynchronize");
  cuda.mem_alloc = (cu_mem_alloc_t)dlsym(lib, "cuMemAlloc_v2");
  cuda.mem_free = (cu_mem_free_t)dlsym(lib, "cuMemFree_v2");
  cuda.memcpy_htod = (cu_memcpy_htod_t)dlsym(lib, "cuMemcpyHtoD_v2");
  cuda.memcpy_dtoh = (cu_memcpy_dtoh_t)dlsym(lib, "cuMemcpyDtoH_v2");
  if (!init || !device_get || !ctx_create || !cuda.module_load_data || !cuda.module_get_function || !cuda.launch_kernel ||
      !cuda.ctx_synchronize || !cuda.mem_alloc || !cuda.mem_free || !cuda.memcpy_htod || !cuda.memcpy_dtoh)
    return;
  int device = 0;
  void *context = NULL;
  int rc = init(0);
  if (rc == 0) rc = device_get(&device, 0);
  if (rc == 0) rc = ctx_create(&context, 0, device);
  cuda.status = rc;
}

static int cuda_ready(void) {
  pthread_once(&cuda.once, cuda_open);
  return cuda.status;
}

int xcc_cuda_alloc(void **device_ptr, int64_t bytes) {
  int rc = cuda_ready();
  return rc ? rc : cuda.mem_alloc(device_ptr, (size_t)(bytes > 0 ? bytes : 1));
}

int xcc_cuda_copy(void *dst, const void *src, int64_t bytes, int direction) {
  int rc = cuda_ready();
  if (rc) return rc;
  return direction == 0 ? cuda.memcpy_htod(dst, src, (size_t)bytes) : cuda.memcpy_dtoh(dst, src, (size_t)bytes);
}

int xcc_cuda_free(void *device_ptr) {
  int rc = cuda_ready();
  return rc ? rc : cuda.mem_free(device_ptr);
}

int xcc_cuda_launch(const char *ptx, const char *kernel, const uint32_t grid[3], const uint32_t block[3], void **args) {
  int rc = cuda_ready();
  if (rc) return rc;
  void *module = NULL, *function = NULL;
  rc = cuda.module_load_data(&module, ptx);
  if (rc == 0) rc = cuda.module_get_function(&function, module, kernel);
  if (rc == 0) rc = cuda.launch_kernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0, NULL, args, NULL);
  if (rc == 0) rc = cuda.ctx_synchronize();
  return rc;
}
