/* The CUDA driver API, loaded at run time: the one table of its entry points that both the GPU
 * models' host runtime (xcc_gpu.c) and the MLIR programs' launch shim (xcc_cuda.c) call through.
 * libcuda is opened with dlopen on first use, so that a library built by xcc never depends on
 * CUDA at link time and reports "unavailable" on a machine without a driver. Internal to
 * runtime-c: the programs xcc's libraries link into do not see it. */
#ifndef XCC_CUDA_DRIVER_H
#define XCC_CUDA_DRIVER_H

#include <stddef.h>

typedef int cu_result;
typedef unsigned long long cu_deviceptr;

#define CU_ERROR_OUT_OF_MEMORY 2

struct xcc_cuda_driver {
  /* Whether libcuda was loaded, has every required entry point and cuInit succeeded; if not,
     `why` says which step failed. */
  int loaded;
  char why[256];
  cu_result (*init)(unsigned);
  cu_result (*device_get_count)(int *);
  cu_result (*device_get)(int *, int);
  cu_result (*primary_retain)(void **, int);
  cu_result (*primary_release)(int);
  cu_result (*ctx_set_current)(void *);
  cu_result (*module_load_data)(void **, const void *);
  cu_result (*module_unload)(void *);
  cu_result (*module_get_function)(void **, void *, const char *);
  cu_result (*launch_kernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void *,
                             void **, void **);
  cu_result (*mem_alloc)(cu_deviceptr *, size_t);
  cu_result (*mem_free)(cu_deviceptr);
  cu_result (*memcpy_htod_async)(cu_deviceptr, const void *, size_t, void *);
  cu_result (*memcpy_dtoh_async)(void *, cu_deviceptr, size_t, void *);
  cu_result (*stream_synchronize)(void *);
  cu_result (*memset_d32_async)(cu_deviceptr, unsigned, size_t, void *);
  cu_result (*get_error_name)(cu_result, const char **);
  /* CUDA graphs, optional: without them every launch goes on its own. */
  cu_result (*stream_create)(void **, unsigned);
  cu_result (*stream_destroy)(void *);
  cu_result (*begin_capture)(void *, int);
  cu_result (*end_capture)(void *, void **);
  cu_result (*graph_instantiate)(void **, void *, unsigned long long);
  cu_result (*graph_launch)(void *, void *);
  cu_result (*graph_exec_destroy)(void *);
  cu_result (*graph_destroy)(void *);
  int has_graphs;
  /* Optional (CUDA 9.2 on): which context a caller's stream belongs to. */
  cu_result (*stream_get_ctx)(void *, void **);
};

/* The driver's entry points, loaded on the first call (from any thread; later calls return the
 * same table). */
const struct xcc_cuda_driver *xcc_cuda_driver(void);

#endif
