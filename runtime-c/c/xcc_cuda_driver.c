/* The CUDA driver's loader (see xcc_cuda_driver.h). Its definitions are weak, as the rest of
 * runtime-c's, and hidden: several libraries may carry a copy, and the programs they link into
 * do not see it. */
#include "xcc_cuda_driver.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define XCC_CUDA_DEF __attribute__((weak, visibility("hidden")))

static struct xcc_cuda_driver driver;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Every required entry point, or the one missing (then `driver.why` names it). */
static int resolve_required(void *lib) {
#define REQUIRE(field, name)                                                                                        \
  if (!(*(void **)&driver.field = dlsym(lib, name))) {                                                             \
    snprintf(driver.why, sizeof driver.why, "the CUDA driver has no %s", name);                                    \
    return 0;                                                                                                       \
  }
  REQUIRE(init, "cuInit")
  REQUIRE(device_get_count, "cuDeviceGetCount")
  REQUIRE(device_get, "cuDeviceGet")
  REQUIRE(primary_retain, "cuDevicePrimaryCtxRetain")
  REQUIRE(primary_release, "cuDevicePrimaryCtxRelease_v2")
  REQUIRE(ctx_set_current, "cuCtxSetCurrent")
  REQUIRE(module_load_data, "cuModuleLoadData")
  REQUIRE(module_unload, "cuModuleUnload")
  REQUIRE(module_get_function, "cuModuleGetFunction")
  REQUIRE(launch_kernel, "cuLaunchKernel")
  REQUIRE(mem_alloc, "cuMemAlloc_v2")
  REQUIRE(mem_free, "cuMemFree_v2")
  REQUIRE(memcpy_htod_async, "cuMemcpyHtoDAsync_v2")
  REQUIRE(memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2")
  REQUIRE(stream_synchronize, "cuStreamSynchronize")
  REQUIRE(memset_d32_async, "cuMemsetD32Async")
  REQUIRE(get_error_name, "cuGetErrorName")
#undef REQUIRE
  return 1;
}

static void resolve_optional(void *lib) {
  *(void **)&driver.stream_get_ctx = dlsym(lib, "cuStreamGetCtx");
  *(void **)&driver.stream_create = dlsym(lib, "cuStreamCreate");
  *(void **)&driver.stream_destroy = dlsym(lib, "cuStreamDestroy_v2");
  *(void **)&driver.begin_capture = dlsym(lib, "cuStreamBeginCapture_v2");
  *(void **)&driver.end_capture = dlsym(lib, "cuStreamEndCapture");
  *(void **)&driver.graph_instantiate = dlsym(lib, "cuGraphInstantiateWithFlags");
  *(void **)&driver.graph_launch = dlsym(lib, "cuGraphLaunch");
  *(void **)&driver.graph_exec_destroy = dlsym(lib, "cuGraphExecDestroy");
  *(void **)&driver.graph_destroy = dlsym(lib, "cuGraphDestroy");
  driver.has_graphs = driver.stream_create && driver.stream_destroy && driver.begin_capture && driver.end_capture &&
                      driver.graph_instantiate && driver.graph_launch && driver.graph_exec_destroy &&
                      driver.graph_destroy;
}

static void load(void) {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *why = dlerror();
    snprintf(driver.why, sizeof driver.why, "the CUDA driver (libcuda.so.1) could not be loaded: %s",
             why ? why : "not found");
    return;
  }
  if (!resolve_required(lib)) return;
  resolve_optional(lib);
  cu_result rc = driver.init(0);
  if (rc != 0) {
    snprintf(driver.why, sizeof driver.why, "cuInit failed (CUDA error %d): no usable GPU or driver", rc);
    return;
  }
  driver.loaded = 1;
}

XCC_CUDA_DEF const struct xcc_cuda_driver *xcc_cuda_driver(void) {
  pthread_once(&once, load);
  return &driver;
}
