/* xcc GPU runs: the context a model compiled with --target=nvptx64 runs in, and the calls its
 * generated host code makes. Repeated in every GPU model header under its own guard, as
 * xcc_run.h is. The same calls exist in the emulator (runtime-c's xcc_gpu.c built emulated, in libraries
 * built with --emulate-gpu), where "device" memory is host memory and a launch runs the kernels'
 * grid on the calling thread. */
#ifndef XCC_GPU_DECLARED
#define XCC_GPU_DECLARED

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One model's state on one device: its kernels loaded, its weights uploaded once, its workspace
 * and staging buffers. One run at a time per context; use one context per concurrent stream. */
typedef struct xcc_gpu_context xcc_gpu_context;

/* Codes beyond xcc_status's: */
/* No CUDA driver (libcuda.so.1 could not be loaded), or no such device. */
#define XCC_ERROR_GPU_UNAVAILABLE 11
/* A CUDA call failed (a launch, a copy, loading the kernels); xcc_gpu_last_error() says which. */
#define XCC_ERROR_GPU 12
/* The context is NULL or was destroyed. */
#define XCC_ERROR_BAD_CONTEXT 13

/* Opens the driver and the device (its primary context, which the CUDA runtime shares).
 * On failure *context is NULL. */
int32_t xcc_gpu_context_create(xcc_gpu_context **context, int32_t device);
/* Frees everything the context holds and sets *context to NULL (a NULL context is ignored). */
void xcc_gpu_context_destroy(xcc_gpu_context **context);
/* The last failure on the calling thread, as a sentence ("" when none). */
const char *xcc_gpu_last_error(void);
/* Bytes of device memory the context holds: weights, workspace, staging buffers. */
int64_t xcc_gpu_device_bytes(xcc_gpu_context *context);
/* The context's own stream (in its device's primary context, ordered with the default stream),
 * on which NAME_run works, so that runs of separate contexts overlap on the device; NULL where the
 * driver could not make one, and emulated. */
void *xcc_gpu_own_stream(xcc_gpu_context *context);
/* Whether this library runs its kernels on the CPU (built with --emulate-gpu). */
int32_t xcc_gpu_is_emulated(void);

/* The calls the model header's run functions make. */
int32_t xcc_gpu_begin(xcc_gpu_context *context, void *stream);
void *xcc_gpu_workspace_pointer(xcc_gpu_context *context);
int32_t xcc_gpu_stage_input(xcc_gpu_context *context, int32_t slot, const void *host, int64_t bytes, void **device);
int32_t xcc_gpu_stage_output(xcc_gpu_context *context, int32_t slot, int64_t bytes, void **device);
int32_t xcc_gpu_fetch(xcc_gpu_context *context, void *host, const void *device, int64_t bytes);
int32_t xcc_gpu_synchronize(xcc_gpu_context *context);
int32_t xcc_gpu_status(xcc_gpu_context *context);
/* Waits for the stream, then returns the status the kernels left (XCC_ERROR_INDEX_OUT_OF_RANGE when
 * an index input was out of range), or the context's own error. */
int32_t xcc_gpu_read_status(xcc_gpu_context *context);

/* The calls the generated host code makes. */
/* cubin: its size as 8 little-endian bytes, then the cubin (a size of 0: none). */
int32_t xcc_gpu_load(xcc_gpu_context *context, const char *ptx, const uint8_t *cubin, const char *kernel_prefix,
                     int32_t kernels, int32_t globals);
int32_t xcc_gpu_kernel_function(xcc_gpu_context *context, int32_t kernel, void *function);
int32_t xcc_gpu_upload(xcc_gpu_context *context, int32_t global, const void *host, int64_t bytes);
int32_t xcc_gpu_workspace(xcc_gpu_context *context, int64_t bytes);
void *xcc_gpu_global(xcc_gpu_context *context, int32_t global);
void *xcc_gpu_status_word(xcc_gpu_context *context);
/* shared_bytes: the block's shared memory (the kernels' `extern .shared` array). */
int32_t xcc_gpu_launch(xcc_gpu_context *context, int32_t kernel, int64_t blocks, int32_t threads, int32_t shared_bytes,
                       void **pointers, int32_t count);
/* The end of a run's launches: on CUDA they are held until here, and a run that repeats the last
   one's launches (same kernels, grids and buffers) replays them as a CUDA graph (XCC_GPU_GRAPHS=0
   turns that off). */
int32_t xcc_gpu_end(xcc_gpu_context *context);

#ifdef __cplusplus
}
#endif

#endif /* XCC_GPU_DECLARED */
