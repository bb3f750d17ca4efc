/* xcc's CUDA launch shim: the host side of GPU kernels compiled from MLIR, through the CUDA
 * driver's one loader (xcc_cuda_driver.c). Kept apart from the CPU runtime so that only
 * libraries that launch kernels carry it (and its dlopen, which a `-static` program would warn
 * about). Definitions are weak for the same reason as the runtime's: several libraries may carry
 * a copy. Every call runs on device 0's primary context (the one the CUDA runtime shares), made
 * current on the calling thread, so the shim works from any thread. */
#include "xcc_cuda_driver.h"
#include "xcc_runtime.h"

#include <pthread.h>
#include <stdint.h>

#define XCC_DEF XCC_API __attribute__((weak))

/* What every call returns on a machine without a usable driver or device. */
#define XCC_CUDA_UNAVAILABLE (-1)

static struct {
  pthread_once_t once;
  int status;
  void *context;
} shim = {.once = PTHREAD_ONCE_INIT, .status = XCC_CUDA_UNAVAILABLE};

static void open_device(void) {
  const struct xcc_cuda_driver *cu = xcc_cuda_driver();
  if (!cu->loaded) return;
  int device = 0;
  cu_result rc = cu->device_get(&device, 0);
  if (rc == 0) rc = cu->primary_retain(&shim.context, device);
  shim.status = rc;
}

/* The driver with device 0's context current on this thread, or NULL with *rc set. */
static const struct xcc_cuda_driver *ready(int *rc) {
  pthread_once(&shim.once, open_device);
  *rc = shim.status;
  if (*rc != 0) return NULL;
  const struct xcc_cuda_driver *cu = xcc_cuda_driver();
  *rc = cu->ctx_set_current(shim.context);
  return *rc == 0 ? cu : NULL;
}

XCC_DEF int xcc_cuda_alloc(void **device_ptr, int64_t bytes) {
  int rc;
  const struct xcc_cuda_driver *cu = ready(&rc);
  if (!cu) return rc;
  cu_deviceptr p = 0;
  rc = cu->mem_alloc(&p, (size_t)(bytes > 0 ? bytes : 1));
  if (rc == 0) *device_ptr = (void *)(uintptr_t)p;
  return rc;
}

/* direction 0: host to device, else device to host; done when the call returns. */
XCC_DEF int xcc_cuda_copy(void *dst, const void *src, int64_t bytes, int direction) {
  int rc;
  const struct xcc_cuda_driver *cu = ready(&rc);
  if (!cu) return rc;
  rc = direction == 0 ? cu->memcpy_htod_async((cu_deviceptr)(uintptr_t)dst, src, (size_t)bytes, NULL)
                      : cu->memcpy_dtoh_async(dst, (cu_deviceptr)(uintptr_t)src, (size_t)bytes, NULL);
  return rc ? rc : cu->stream_synchronize(NULL);
}

XCC_DEF int xcc_cuda_free(void *device_ptr) {
  int rc;
  const struct xcc_cuda_driver *cu = ready(&rc);
  return cu ? cu->mem_free((cu_deviceptr)(uintptr_t)device_ptr) : rc;
}

/* Loads `ptx`, launches `kernel` over the grid on the default stream and waits for it. */
XCC_DEF int xcc_cuda_launch(const char *ptx, const char *kernel, const uint32_t grid[3], const uint32_t block[3], void **args) {
  int rc;
  const struct xcc_cuda_driver *cu = ready(&rc);
  if (!cu) return rc;
  void *module = NULL, *function = NULL;
  rc = cu->module_load_data(&module, ptx);
  if (rc != 0) return rc;
  rc = cu->module_get_function(&function, module, kernel);
  if (rc == 0) rc = cu->launch_kernel(function, grid[0], grid[1], grid[2], block[0], block[1], block[2], 0, NULL, args, NULL);
  if (rc == 0) rc = cu->stream_synchronize(NULL);
  cu->module_unload(module);
  return rc;
}
