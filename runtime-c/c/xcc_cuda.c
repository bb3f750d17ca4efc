/* xcc's CUDA launch shim: the host side of GPU kernels compiled from MLIR. Kept apart from
 * xcc_runtime.c so that only libraries that launch kernels carry it (and its dlopen, which a
 * `-static` program would warn about). Definitions are weak for the same reason as the
 * runtime's: several libraries may carry a copy. */
#include "xcc_runtime.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#define XCC_DEF XCC_API __attribute__((weak))

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

XCC_DEF int xcc_cuda_alloc(void **device_ptr, int64_t bytes) {
  int rc = cuda_ready();
  return rc ? rc : cuda.mem_alloc(device_ptr, (size_t)(bytes > 0 ? bytes : 1));
}

XCC_DEF int xcc_cuda_copy(void *dst, const void *src, int64_t bytes, int direction) {
  int rc = cuda_ready();
  if (rc) return rc;
  return direction == 0 ? cuda.memcpy_htod(dst, src, (size_t)bytes) : cuda.memcpy_dtoh(dst, src, (size_t)bytes);
}

XCC_DEF int xcc_cuda_free(void *device_ptr) {
  int rc = cuda_ready();
  return rc ? rc : cuda.mem_free(device_ptr);
}

XCC_DEF int xcc_cuda_launch(const char *ptx, const char *kernel, const uint32_t grid[3], const uint32_t block[3], void **args) {
  int rc = cuda_ready();
  if (rc) return rc;
  void *module = NULL, *function = NULL;
  rc = cuda.module_load_data(&module, ptx);
  if (rc == 0) rc = cuda.module_get_function(&function, module, kernel);
  if (rc == 0) rc = cuda.launch_kernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0, NULL, args, NULL);
  if (rc == 0) rc = cuda.ctx_synchronize();
  return rc;
}
