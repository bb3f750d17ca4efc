/* The host side of models compiled with --target=nvptx64: contexts, weights, staging buffers
 * and kernel launches through the CUDA driver API, which is loaded with dlopen so that a library
 * links and reports XCC_ERROR_GPU_UNAVAILABLE on machines without CUDA.
 *
 * Compiled a second time with XCC_GPU_EMULATE defined (build.rs) for libraries built with
 * --emulate-gpu: the same calls, with "device" memory in host memory and each launch running
 * the kernels, compiled for the CPU, over the whole grid on the calling thread: thread by
 * thread for kernels without shared memory (which have no barriers either, so any order of
 * threads is a valid schedule); for the others, block by block, each of the block's threads a
 * coroutine that hands over to the next at a barrier. Definitions are weak, as the
 * rest of runtime-c's. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "xcc_gpu.h"
#include "xcc_runtime.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef XCC_GPU_EMULATE
#include <ucontext.h>
#endif

#define XCC_DEF XCC_API __attribute__((weak))

/* The most staged inputs and outputs of one model. */
#define MAX_SLOTS 64
/* The most pointer parameters a kernel takes (the lowering's MAX_KERNEL_BUFFERS). */
#define MAX_PARAMS 16
/* The most blocks a launch asks for (the lowering's MAX_BLOCKS: its kernels loop past it), within
   every GPU's grid limit in any dimension. */
#define MAX_BLOCKS 65535

struct buffer {
  void *device;
  int64_t bytes;
};

struct launch {
  int32_t kernel, threads, shared_bytes, count;
  int64_t blocks;
  void *pointers[MAX_PARAMS];
};

struct launch_list {
  struct launch *items;
  int32_t count, capacity;
};

struct xcc_gpu_context {
  int32_t status;
  void *stream;
  /* The context's own stream (see xcc_gpu_own_stream). */
  void *own_stream;
  void *cu_context;
  int32_t device;
  void *module;
  /* Whether the module came from the library's cubin (else from its PTX, JIT-compiled). */
  int from_cubin;
  char prefix[128];
  int32_t kernel_count, global_count;
  void **kernels;
  struct buffer *globals;
  struct buffer workspace;
  /* The run's status word, which kernels set when an index input is out of range. */
  struct buffer status_word;
  struct buffer slots[MAX_SLOTS];
  /* Device memory the context holds (weights, workspace, staging buffers). */
  int64_t device_bytes;
  /* XCC_GPU_PROFILE set: each launch waited for and timed, a table printed at destroy. */
  struct kernel_time *times;
  /* CUDA graphs (see xcc_gpu_end): this run's launches, held until the run's end; the launches
     the graph was made from, or that the last run made; the graph, and the stream it was
     captured on. */
  int graphs;
  struct launch_list pending, recorded;
  int recorded_once;
  void *graph, *graph_exec, *capture_stream;
};

struct kernel_time {
  double ms;
  int64_t calls, blocks;
  int32_t threads;
};

static __thread char last_error[512];

static int32_t fail(xcc_gpu_context *ctx, int32_t status, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(last_error, sizeof last_error, format, args);
  va_end(args);
  if (ctx && ctx->status == XCC_OK) ctx->status = status;
  return status;
}

XCC_DEF const char *xcc_gpu_last_error(void) { return last_error; }

/* The live contexts. valid() looks a pointer up here rather than reading through it, so that a
   copy of a pointer whose context was destroyed is refused (XCC_ERROR_BAD_CONTEXT) instead of
   read after its memory was freed, as long as no new context took that address (then the copy
   reaches the new one). Every call looks up, a create or destroy changes the list: a read-write
   lock lets concurrent runs look up together. A program has a few contexts: a list will do. */
static pthread_rwlock_t live_lock = PTHREAD_RWLOCK_INITIALIZER;
static const xcc_gpu_context **live;
static size_t live_count, live_capacity;

static int valid(const xcc_gpu_context *ctx) {
  if (!ctx) return 0;
  pthread_rwlock_rdlock(&live_lock);
  size_t i = 0;
  while (i < live_count && live[i] != ctx) i++;
  int found = i < live_count;
  pthread_rwlock_unlock(&live_lock);
  return found;
}

/* 0 when the list cannot grow. */
static int add_live(const xcc_gpu_context *ctx) {
  pthread_rwlock_wrlock(&live_lock);
  if (live_count == live_capacity) {
    size_t capacity = live_capacity ? 2 * live_capacity : 8;
    const xcc_gpu_context **grown = realloc(live, capacity * sizeof *live);
    if (!grown) {
      pthread_rwlock_unlock(&live_lock);
      return 0;
    }
    live = grown;
    live_capacity = capacity;
  }
  live[live_count++] = ctx;
  pthread_rwlock_unlock(&live_lock);
  return 1;
}

/* Whether the context was live: of two threads destroying one context, one takes it out. */
static int remove_live(const xcc_gpu_context *ctx) {
  int found = 0;
  pthread_rwlock_wrlock(&live_lock);
  for (size_t i = 0; i < live_count && !found; i++) {
    if (live[i] == ctx) {
      live[i] = live[--live_count];
      found = 1;
    }
  }
  pthread_rwlock_unlock(&live_lock);
  return found;
}

#ifndef XCC_GPU_EMULATE
/* ---- the CUDA driver (xcc_cuda_driver.c) ------------------------------------------------------ */
#include "xcc_cuda_driver.h"

/* Its entry points, loaded by the first use (device_open's). */
#define cu (*xcc_cuda_driver())

static const char *cu_name(cu_result rc) {
  const char *name = NULL;
  if (cu.get_error_name && cu.get_error_name(rc, &name) == 0 && name) return name;
  return "an unknown CUDA error";
}

/* A failed driver call: out of memory keeps its own code, the rest are XCC_ERROR_GPU. */
static int32_t cu_fail(xcc_gpu_context *ctx, cu_result rc, const char *what) {
  int32_t status = rc == CU_ERROR_OUT_OF_MEMORY ? XCC_ERROR_OUT_OF_MEMORY : XCC_ERROR_GPU;
  return fail(ctx, status, "%s: %s (CUDA error %d)", what, cu_name(rc), rc);
}

static int32_t device_open(xcc_gpu_context *ctx, int32_t device) {
  if (!cu.loaded) return fail(NULL, XCC_ERROR_GPU_UNAVAILABLE, "%s", cu.why);
  int count = 0;
  cu_result rc = cu.device_get_count(&count);
  if (rc != 0) return cu_fail(NULL, rc, "cuDeviceGetCount");
  if (device < 0 || device >= count)
    return fail(NULL, XCC_ERROR_GPU_UNAVAILABLE, "there is no CUDA device %d (this machine has %d)", device, count);
  int handle = 0;
  if ((rc = cu.device_get(&handle, device)) != 0) return cu_fail(NULL, rc, "cuDeviceGet");
  if ((rc = cu.primary_retain(&ctx->cu_context, handle)) != 0) return cu_fail(NULL, rc, "cuDevicePrimaryCtxRetain");
  ctx->device = handle;
  if ((rc = cu.ctx_set_current(ctx->cu_context)) != 0) {
    cu.primary_release(handle);
    ctx->cu_context = NULL;
    return cu_fail(NULL, rc, "cuCtxSetCurrent");
  }
  /* Blocking (flag 0): ordered with the default stream both ways, as NAME_run was when it ran
     there, so that a caller's work on the default stream and this context's runs cannot race on
     its buffers; the streams of separate contexts still run side by side. Without one (an old
     driver), NAME_run works on the default stream. */
  if (cu.stream_create && cu.stream_create(&ctx->own_stream, 0) != 0) ctx->own_stream = NULL;
  return XCC_OK;
}

static void drop_graph(xcc_gpu_context *ctx) {
  if (ctx->graph_exec) cu.graph_exec_destroy(ctx->graph_exec);
  if (ctx->graph) cu.graph_destroy(ctx->graph);
  ctx->graph_exec = ctx->graph = NULL;
}

static void device_close(xcc_gpu_context *ctx) {
  if (!ctx->cu_context) return;
  cu.ctx_set_current(ctx->cu_context);
  drop_graph(ctx);
  if (ctx->capture_stream) cu.stream_destroy(ctx->capture_stream);
  if (ctx->own_stream && cu.stream_destroy) cu.stream_destroy(ctx->own_stream);
  if (ctx->module) cu.module_unload(ctx->module);
  cu.primary_release(ctx->device);
}

static int32_t device_current(xcc_gpu_context *ctx) {
  cu_result rc = cu.ctx_set_current(ctx->cu_context);
  return rc == 0 ? XCC_OK : cu_fail(ctx, rc, "cuCtxSetCurrent");
}

/* A caller's stream must belong to the model's CUDA context (its device's primary context, which
   the CUDA runtime shares): one of another context or device is refused before anything is queued
   on it, where a launch would fail halfway through the run. NULL and the legacy and per-thread
   default streams (handles 1 and 2) are the current context's. Without cuStreamGetCtx the driver
   alone judges. */
static int32_t device_accepts_stream(xcc_gpu_context *ctx, void *stream) {
  if ((uintptr_t)stream <= 2 || !cu.stream_get_ctx) return XCC_OK;
  void *owner = NULL;
  cu_result rc = cu.stream_get_ctx(stream, &owner);
  if (rc != 0) return cu_fail(ctx, rc, "the stream given (cuStreamGetCtx)");
  if (owner != ctx->cu_context)
    return fail(ctx, XCC_ERROR_GPU, "the stream given belongs to another CUDA context than the model's (the primary context of device %d)",
                (int)ctx->device);
  return XCC_OK;
}

static int32_t device_alloc(xcc_gpu_context *ctx, void **out, int64_t bytes, const char *what) {
  cu_deviceptr p = 0;
  cu_result rc = cu.mem_alloc(&p, (size_t)(bytes > 0 ? bytes : 1));
  if (rc != 0) {
    char text[160];
    snprintf(text, sizeof text, "allocating %lld bytes of device memory for %s", (long long)bytes, what);
    return cu_fail(ctx, rc, text);
  }
  *out = (void *)(uintptr_t)p;
  return XCC_OK;
}

static void device_free(void *p) {
  if (p) cu.mem_free((cu_deviceptr)(uintptr_t)p);
}

static int32_t device_upload(xcc_gpu_context *ctx, void *device, const void *host, int64_t bytes) {
  if (bytes <= 0) return XCC_OK;
  cu_result rc = cu.memcpy_htod_async((cu_deviceptr)(uintptr_t)device, host, (size_t)bytes, ctx->stream);
  return rc == 0 ? XCC_OK : cu_fail(ctx, rc, "copying to the device");
}

static int32_t device_download(xcc_gpu_context *ctx, void *host, const void *device, int64_t bytes) {
  if (bytes <= 0) return XCC_OK;
  cu_result rc = cu.memcpy_dtoh_async(host, (cu_deviceptr)(uintptr_t)device, (size_t)bytes, ctx->stream);
  return rc == 0 ? XCC_OK : cu_fail(ctx, rc, "copying from the device");
}

static int32_t device_zero_word(xcc_gpu_context *ctx, void *device) {
  cu_result rc = cu.memset_d32_async((cu_deviceptr)(uintptr_t)device, 0, 1, ctx->stream);
  return rc == 0 ? XCC_OK : cu_fail(ctx, rc, "clearing the run's status");
}

static int32_t device_synchronize(xcc_gpu_context *ctx) {
  cu_result rc = cu.stream_synchronize(ctx->stream);
  return rc == 0 ? XCC_OK : cu_fail(ctx, rc, "waiting for the stream (a kernel failed, or the stream is invalid)");
}

/* The kernels' module: the cubin where the library has one for this device (XCC_GPU_JIT=1 skips
   it), else the PTX, which the driver compiles for the device. A cubin for another architecture
   is refused by the driver, and the PTX is loaded instead. */
static int32_t device_load(xcc_gpu_context *ctx, const char *ptx, const uint8_t *cubin) {
  /* The size is little-endian: the hosts (x86_64, aarch64 Linux) are too. */
  uint64_t cubin_bytes = 0;
  if (cubin) memcpy(&cubin_bytes, cubin, sizeof cubin_bytes);
  const char *jit = getenv("XCC_GPU_JIT");
  int use_cubin = cubin_bytes > 0 && !(jit && strcmp(jit, "1") == 0);
  cu_result rc = use_cubin ? cu.module_load_data(&ctx->module, cubin + 8) : 1;
  ctx->from_cubin = rc == 0;
  if (rc != 0) rc = cu.module_load_data(&ctx->module, ptx);
  if (rc != 0) return cu_fail(ctx, rc, "loading the kernels' PTX (cuModuleLoadData)");
  for (int32_t k = 0; k < ctx->kernel_count; k++) {
    char name[160];
    snprintf(name, sizeof name, "%s%d", ctx->prefix, (int)k);
    if ((rc = cu.module_get_function(&ctx->kernels[k], ctx->module, name)) != 0) {
      char text[200];
      snprintf(text, sizeof text, "finding kernel %s", name);
      return cu_fail(ctx, rc, text);
    }
  }
  return XCC_OK;
}

static int32_t launch_on(xcc_gpu_context *ctx, void *stream, const struct launch *l) {
  void *params[MAX_PARAMS];
  void *values[MAX_PARAMS];
  for (int32_t i = 0; i < l->count; i++) {
    values[i] = l->pointers[i];
    params[i] = &values[i];
  }
  cu_result rc = cu.launch_kernel(ctx->kernels[l->kernel], (unsigned)l->blocks, 1, 1, (unsigned)l->threads, 1, 1,
                                  (unsigned)l->shared_bytes, stream, params, NULL);
  if (rc != 0) {
    char text[200];
    snprintf(text, sizeof text, "launching kernel %s%d", ctx->prefix, (int)l->kernel);
    return cu_fail(ctx, rc, text);
  }
  return XCC_OK;
}

static int32_t device_launch(xcc_gpu_context *ctx, const struct launch *l) { return launch_on(ctx, ctx->stream, l); }

/* The pending launches captured into a graph on the context's own stream (capture records, it
   does not run) and instantiated; 0 if the driver refuses, which turns graphs off. */
static int capture(xcc_gpu_context *ctx) {
  drop_graph(ctx);
  if (!ctx->capture_stream && cu.stream_create(&ctx->capture_stream, 1 /* non-blocking */) != 0) return 0;
  if (cu.begin_capture(ctx->capture_stream, 1 /* thread-local */) != 0) return 0;
  int ok = 1;
  for (int32_t i = 0; i < ctx->pending.count && ok; i++) ok = launch_on(ctx, ctx->capture_stream, &ctx->pending.items[i]) == XCC_OK;
  void *graph = NULL;
  if (cu.end_capture(ctx->capture_stream, &graph) != 0 || !ok) {
    if (graph) cu.graph_destroy(graph);
    ctx->status = XCC_OK;
    return 0;
  }
  ctx->graph = graph;
  if (cu.graph_instantiate(&ctx->graph_exec, graph, 0) != 0) {
    drop_graph(ctx);
    return 0;
  }
  return 1;
}

/* Runs the launches held since the run began. The same launches as the run before (the same
   kernels, grids and buffers: a model run again on the same memory) are captured into a CUDA
   graph once, and from then on replayed with one call, which saves most of the launches' cost
   on the host; other launches go one by one. */
static int32_t device_flush(xcc_gpu_context *ctx) {
  struct launch_list *p = &ctx->pending, *r = &ctx->recorded;
  int same = p->count == r->count && memcmp(p->items, r->items, sizeof *p->items * (size_t)p->count) == 0;
  if (same && !ctx->graph_exec && ctx->recorded_once && ctx->graphs && !capture(ctx)) ctx->graphs = 0;
  if (same && ctx->graph_exec) {
    cu_result rc = cu.graph_launch(ctx->graph_exec, ctx->stream);
    return rc == 0 ? XCC_OK : cu_fail(ctx, rc, "launching the model's graph");
  }
  for (int32_t i = 0; i < p->count; i++) {
    int32_t rc = launch_on(ctx, ctx->stream, &p->items[i]);
    if (rc != XCC_OK) return rc;
  }
  if (!same) {
    drop_graph(ctx);
    struct launch_list swap = *r;
    *r = *p;
    *p = swap;
    ctx->recorded_once = 1;
  }
  return XCC_OK;
}

static int graphs_available(void) { return cu.has_graphs; }

XCC_DEF int32_t xcc_gpu_is_emulated(void) { return 0; }

#else
/* ---- the emulator: host memory, and the grid run on the calling thread ---------------------- */

static __thread uint32_t coordinates[12];

/* Thread id, block id, block size, grid size, each x, y, z (the lowering's code order). */
XCC_DEF uint32_t xcc_gpu_emulated_coordinate(int32_t code) { return code >= 0 && code < 12 ? coordinates[code] : 0; }

static int32_t device_open(xcc_gpu_context *ctx, int32_t device) {
  (void)ctx;
  if (device != 0) return fail(NULL, XCC_ERROR_GPU_UNAVAILABLE, "the emulated GPU is device 0, not %d", device);
  return XCC_OK;
}

static void device_close(xcc_gpu_context *ctx) { (void)ctx; }

static int32_t device_current(xcc_gpu_context *ctx) {
  (void)ctx;
  return XCC_OK;
}

/* The emulated GPU has one stream, the default: NULL, or CUDA's handles for the legacy and the
   per-thread default stream (1 and 2), which the GPU takes too. */
static int32_t device_accepts_stream(xcc_gpu_context *ctx, void *stream) {
  if ((uintptr_t)stream <= 2) return XCC_OK;
  return fail(ctx, XCC_ERROR_GPU, "the emulated GPU has one stream, the default (NULL): %p is not one of its streams", stream);
}

static int32_t device_alloc(xcc_gpu_context *ctx, void **out, int64_t bytes, const char *what) {
  *out = xcc_alloc(bytes > 0 ? bytes : 1, 256);
  if (!*out) return fail(ctx, XCC_ERROR_OUT_OF_MEMORY, "allocating %lld bytes for %s", (long long)bytes, what);
  return XCC_OK;
}

static void device_free(void *p) { xcc_free(p); }

static int32_t device_upload(xcc_gpu_context *ctx, void *device, const void *host, int64_t bytes) {
  (void)ctx;
  if (bytes > 0) memcpy(device, host, (size_t)bytes);
  return XCC_OK;
}

static int32_t device_download(xcc_gpu_context *ctx, void *host, const void *device, int64_t bytes) {
  (void)ctx;
  if (bytes > 0) memcpy(host, device, (size_t)bytes);
  return XCC_OK;
}

static int32_t device_zero_word(xcc_gpu_context *ctx, void *device) {
  (void)ctx;
  memset(device, 0, 4);
  return XCC_OK;
}

static int32_t device_synchronize(xcc_gpu_context *ctx) {
  (void)ctx;
  return XCC_OK;
}

static int32_t device_load(xcc_gpu_context *ctx, const char *ptx, const uint8_t *cubin) {
  (void)ptx;
  (void)cubin;
  (void)ctx;
  return XCC_OK;
}

typedef void *p;
static void call_kernel(void *f, void **a, int32_t n) {
  switch (n) {
  case 0: ((void (*)(void))f)(); break;
  case 1: ((void (*)(p))f)(a[0]); break;
  case 2: ((void (*)(p, p))f)(a[0], a[1]); break;
  case 3: ((void (*)(p, p, p))f)(a[0], a[1], a[2]); break;
  case 4: ((void (*)(p, p, p, p))f)(a[0], a[1], a[2], a[3]); break;
  case 5: ((void (*)(p, p, p, p, p))f)(a[0], a[1], a[2], a[3], a[4]); break;
  case 6: ((void (*)(p, p, p, p, p, p))f)(a[0], a[1], a[2], a[3], a[4], a[5]); break;
  case 7: ((void (*)(p, p, p, p, p, p, p))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6]); break;
  case 8: ((void (*)(p, p, p, p, p, p, p, p))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]); break;
  case 9: ((void (*)(p, p, p, p, p, p, p, p, p))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]); break;
  case 10: ((void (*)(p, p, p, p, p, p, p, p, p, p))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]); break;
  case 11: ((void (*)(p, p, p, p, p, p, p, p, p, p, p))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]); break;
  case 12: ((void (*)(p, p, p, p, p, p, p, p, p, p, p, p))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11]); break;
  case 13: ((void (*)(p, p, p, p, p, p, p, p, p, p, p, p, p))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12]); break;
  case 14: ((void (*)(p, p, p, p, p, p, p, p, p, p, p, p, p, p))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13]); break;
  case 15: ((void (*)(p, p, p, p, p, p, p, p, p, p, p, p, p, p, p))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14]); break;
  case 16: ((void (*)(p, p, p, p, p, p, p, p, p, p, p, p, p, p, p, p))f)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]); break;
  }
}

/* ---- coroutines: a stack each, switched at barriers ----
   On x86-64 a switch saves the callee-saved registers on the running stack and moves to the
   other's: a few nanoseconds, where swapcontext also saves the signal mask with a system call
   (about 240 ns on a Zen 4), and a tiled kernel switches twice per barrier and thread. The
   floating-point control words are not saved: kernels do not change them. Other hosts use
   ucontext. All the libraries linked into one program come from one xcc: the emulator's
   definitions are weak, and the first one linked serves every model. */
#if defined(__x86_64__) && defined(__LP64__) && defined(__ELF__)
struct coroutine {
  void *sp;
};

/* void xcc_coroutine_switch(void **save_sp, void *load_sp) */
void xcc_coroutine_switch(void **save_sp, void *load_sp);
__asm__(".pushsection .text\n"
        ".p2align 4\n"
        ".type xcc_coroutine_switch,@function\n"
        "xcc_coroutine_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size xcc_coroutine_switch, .-xcc_coroutine_switch\n"
        ".popsection\n");

/* A coroutine that starts in entry (which never returns) on [stack, stack + size): the six
   registers the switch pops, entry as its return address, and below the top a null return
   address for entry, so that entry starts with the stack as after a call. */
static void coroutine_start(struct coroutine *c, char *stack, size_t size, void (*entry)(void)) {
  uintptr_t top = ((uintptr_t)stack + size) & ~(uintptr_t)15;
  void **sp = (void **)top;
  *--sp = NULL;
  *--sp = (void *)entry;
  for (int i = 0; i < 6; i++) *--sp = NULL;
  c->sp = sp;
}

static void coroutine_switch(struct coroutine *from, struct coroutine *to) { xcc_coroutine_switch(&from->sp, to->sp); }
#else
struct coroutine {
  ucontext_t context;
};

static void coroutine_start(struct coroutine *c, char *stack, size_t size, void (*entry)(void)) {
  getcontext(&c->context);
  c->context.uc_stack.ss_sp = stack;
  c->context.uc_stack.ss_size = size;
  c->context.uc_link = NULL;
  makecontext(&c->context, entry, 0);
}

static void coroutine_switch(struct coroutine *from, struct coroutine *to) { swapcontext(&from->context, &to->context); }
#endif

/* A block run as coroutines: each thread runs the kernel on its own stack until a barrier, where
   it hands over to the next thread that has not finished (the last to arrive hands back to the
   first), so that every thread's code before a barrier runs before any thread's code after it. */
struct emulated_block {
  struct coroutine host;
  struct coroutine *threads;
  char *stacks;
  uint8_t *finished;
  int32_t count, current;
  void *shared;
  float *mma; /* each warp's operands of its matrix multiply: MMA_WARP_FLOATS a warp */
  void *kernel;
  void **pointers;
  int32_t parameters;
};

/* A kernel's frame is small (its sums and indices); the emulated math calls need little more. */
#define EMULATED_STACK (128 * 1024)

static __thread struct emulated_block *running_block;

XCC_DEF void *xcc_gpu_emulated_shared(void) { return running_block ? running_block->shared : NULL; }

/* ---- a warp's matrix multiply-accumulate (gpu.subgroup_mma_*, TF32 m16n16k8) ----
   A fragment (A 16 x 8, B 8 x 16, C 16 x 16) is spread over the warp's 32 threads: element
   lane + 32 i of the row-major matrix is element i of thread lane's part. A product is
   collective: each thread puts its parts of A, B and C into its warp's buffer, the block meets at
   a barrier, and each takes its part of D = A B + C. */
#define MMA_WARP 32
#define MMA_WARP_FLOATS (16 * 8 + 8 * 16 + 16 * 16)
static const int32_t mma_columns[3] = {8, 16, 16};
static const int32_t mma_at[3] = {0, 16 * 8, 16 * 8 + 8 * 16};

/* What a kernel did that a GPU would not have run (a misaligned fragment), reported by the launch. */
static __thread const char *emulated_fault;

static int32_t emulated_thread_index(void) { return running_block ? running_block->current : (int32_t)coordinates[0]; }

/* To TF32 (10 bits of mantissa) by rounding to nearest, ties away from zero, as
   cvt.rna.tf32.f32; infinities and NaNs are kept. */
static float tf32_rounded(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  if ((u & 0x7f800000u) != 0x7f800000u) u = (u + 0x1000u) & 0xffffe000u;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* wmma.load and wmma.store need a fragment's first element 32-byte aligned. */
static int fragment_aligned(const float *p) {
  if (((uintptr_t)p & 31u) == 0) return 1;
  if (!emulated_fault) emulated_fault = "a tensor-core fragment's address is not 32-byte aligned";
  return 0;
}

XCC_DEF float xcc_gpu_emulated_mma_load(const float *p, int64_t ld, int32_t code, int32_t i) {
  int32_t operand = code & 3, transposed = code >> 2;
  if (operand > 2 || !fragment_aligned(p)) return 0.0f;
  int32_t e = emulated_thread_index() % MMA_WARP + MMA_WARP * i;
  int64_t row = e / mma_columns[operand], column = e % mma_columns[operand];
  float v = transposed ? p[column * ld + row] : p[row * ld + column];
  return operand == 2 ? v : tf32_rounded(v);
}

XCC_DEF void xcc_gpu_emulated_mma_store(float *p, int64_t ld, int32_t i, float v) {
  if (!fragment_aligned(p)) return;
  int32_t e = emulated_thread_index() % MMA_WARP + MMA_WARP * i;
  p[(int64_t)(e / 16) * ld + e % 16] = v;
}

/* This thread's warp's operands, or NULL (and a fault) outside a block run as coroutines. */
static float *warp_operands(void) {
  struct emulated_block *b = running_block;
  if (b && b->mma) return b->mma + (size_t)(b->current / MMA_WARP) * MMA_WARP_FLOATS;
  if (!emulated_fault) emulated_fault = "a warp's matrix multiply outside a block with shared memory";
  return NULL;
}

XCC_DEF void xcc_gpu_emulated_mma_put(int32_t slot, float v) {
  float *w = warp_operands();
  if (!w || slot < 0 || slot >= 16) return;
  int32_t operand = slot < 4 ? 0 : slot < 8 ? 1 : 2, i = slot - (operand == 0 ? 0 : operand == 1 ? 4 : 8);
  w[mma_at[operand] + emulated_thread_index() % MMA_WARP + MMA_WARP * i] = v;
}

XCC_DEF float xcc_gpu_emulated_mma_result(int32_t i) {
  const float *w = warp_operands();
  if (!w) return 0.0f;
  int32_t e = emulated_thread_index() % MMA_WARP + MMA_WARP * i, row = e / 16, column = e % 16;
  const float *a = w + mma_at[0], *b = w + mma_at[1];
  float sum = w[mma_at[2] + e];
  for (int32_t k = 0; k < 8; k++) sum += a[row * 8 + k] * b[k * 16 + column];
  return sum;
}

/* The next thread after the current one that has not finished, or -1. */
static int32_t next_thread(const struct emulated_block *b) {
  for (int32_t i = 1; i <= b->count; i++) {
    int32_t t = (b->current + i) % b->count;
    if (!b->finished[t]) return t;
  }
  return -1;
}

static void switch_to(struct emulated_block *b, int32_t t, struct coroutine *from) {
  int32_t was = b->current;
  b->current = t;
  coordinates[0] = (uint32_t)t;
  if (t != was) coroutine_switch(from, &b->threads[t]);
}

XCC_DEF void xcc_gpu_emulated_barrier(void) {
  struct emulated_block *b = running_block;
  if (!b) return; /* a kernel without shared memory runs thread by thread: nothing to wait for */
  int32_t me = b->current, next = next_thread(b);
  if (next >= 0) switch_to(b, next, &b->threads[me]);
  coordinates[0] = (uint32_t)me;
}

static void emulated_thread(void) {
  struct emulated_block *b = running_block;
  call_kernel(b->kernel, b->pointers, b->parameters);
  int32_t me = b->current, next;
  b->finished[me] = 1;
  next = next_thread(b);
  if (next >= 0) {
    b->current = next;
    coordinates[0] = (uint32_t)next;
    coroutine_switch(&b->threads[me], &b->threads[next]);
  }
  coroutine_switch(&b->threads[me], &b->host);
  abort(); /* a finished thread is never switched back to */
}

static int32_t run_blocks_as_coroutines(xcc_gpu_context *ctx, const struct launch *l) {
  struct emulated_block b;
  memset(&b, 0, sizeof b);
  b.count = l->threads;
  b.kernel = ctx->kernels[l->kernel];
  b.pointers = (void **)l->pointers;
  b.parameters = l->count;
  b.threads = calloc((size_t)b.count, sizeof *b.threads);
  b.finished = calloc((size_t)b.count, 1);
  b.stacks = malloc((size_t)b.count * EMULATED_STACK);
  b.shared = xcc_alloc(l->shared_bytes > 0 ? l->shared_bytes : 1, 64);
  b.mma = calloc((size_t)(b.count + MMA_WARP - 1) / MMA_WARP * MMA_WARP_FLOATS, sizeof *b.mma);
  int32_t rc = XCC_OK;
  if (!b.threads || !b.finished || !b.stacks || !b.shared || !b.mma) {
    rc = fail(ctx, XCC_ERROR_OUT_OF_MEMORY, "the emulated block of %d threads", (int)b.count);
  }
  running_block = &b;
  for (int64_t block = 0; block < l->blocks && rc == XCC_OK; block++) {
    coordinates[3] = (uint32_t)block;
    for (int32_t t = 0; t < b.count; t++) {
      /* Stack tops staggered by 3 cache lines a thread (24 KiB at most): 128 KiB apart, every thread's frame
         would fall in the same cache sets. */
      size_t stagger = (size_t)(t % 128) * 192;
      coroutine_start(&b.threads[t], b.stacks + (size_t)t * EMULATED_STACK, EMULATED_STACK - stagger, emulated_thread);
    }
    memset(b.finished, 0, (size_t)b.count);
    b.current = 0;
    coordinates[0] = 0;
    coroutine_switch(&b.host, &b.threads[0]);
  }
  running_block = NULL;
  free(b.threads);
  free(b.finished);
  free(b.stacks);
  free(b.mma);
  xcc_free(b.shared);
  return rc;
}

static int32_t device_launch(xcc_gpu_context *ctx, const struct launch *l) {
  if (!ctx->kernels[l->kernel])
    return fail(ctx, XCC_ERROR_GPU, "kernel %s%d has no emulated function", ctx->prefix, (int)l->kernel);
  memset(coordinates, 0, sizeof coordinates);
  coordinates[6] = (uint32_t)l->threads;
  coordinates[7] = coordinates[8] = 1;
  coordinates[9] = (uint32_t)l->blocks;
  coordinates[10] = coordinates[11] = 1;
  emulated_fault = NULL;
  int32_t rc = XCC_OK;
  if (l->shared_bytes > 0) {
    rc = run_blocks_as_coroutines(ctx, l);
  } else {
    for (int64_t b = 0; b < l->blocks; b++) {
      coordinates[3] = (uint32_t)b;
      for (int32_t t = 0; t < l->threads; t++) {
        coordinates[0] = (uint32_t)t;
        call_kernel(ctx->kernels[l->kernel], (void **)l->pointers, l->count);
      }
    }
  }
  if (rc == XCC_OK && emulated_fault)
    rc = fail(ctx, XCC_ERROR_GPU, "kernel %s%d: %s", ctx->prefix, (int)l->kernel, emulated_fault);
  return rc;
}

static int32_t device_flush(xcc_gpu_context *ctx) {
  (void)ctx;
  return XCC_OK;
}

static int graphs_available(void) { return 0; }

XCC_DEF int32_t xcc_gpu_is_emulated(void) { return 1; }
#endif

/* Whether the kernels run in the emulator (this file compiled with XCC_GPU_EMULATE). */
static int is_emulated(void) {
#ifdef XCC_GPU_EMULATE
  return 1;
#else
  return 0;
#endif
}

/* ---- XCC_GPU_PROFILE --------------------------------------------------------------------------- */

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int by_time(const void *a, const void *b) {
  const struct kernel_time *x = *(const struct kernel_time *const *)a, *y = *(const struct kernel_time *const *)b;
  return (x->ms < y->ms) - (x->ms > y->ms);
}

/* The kernels by time taken, launch and wait included, on standard error. */

static void print_profile(const xcc_gpu_context *ctx) {
  const struct kernel_time **order = malloc(sizeof *order * (size_t)ctx->kernel_count);
  if (!order) return;
  double total = 0;
  for (int32_t k = 0; k < ctx->kernel_count; k++) {
    order[k] = &ctx->times[k];
    total += ctx->times[k].ms;
  }
  qsort(order, (size_t)ctx->kernel_count, sizeof *order, by_time);
  const char *origin = is_emulated() ? "emulated" : ctx->from_cubin ? "the cubin" : "the PTX";
  fprintf(stderr, "xcc GPU profile (%s*, %s): %.3f ms in %d kernels\n  %-28s %8s %10s %10s %16s\n", ctx->prefix,
          origin, total, (int)ctx->kernel_count, "kernel", "calls", "total ms", "mean us", "blocks x threads");
  for (int32_t i = 0; i < ctx->kernel_count; i++) {
    const struct kernel_time *t = order[i];
    if (!t->calls) continue;
    fprintf(stderr, "  %s%-*d %8lld %10.3f %10.1f %9lld x %-5d\n", ctx->prefix, (int)(28 - strlen(ctx->prefix)),
            (int)(t - ctx->times), (long long)t->calls, t->ms, 1e3 * t->ms / (double)t->calls, (long long)t->blocks,
            (int)t->threads);
  }
  free(order);
}

/* ---- device memory ------------------------------------------------------------------------------ */

/* XCC_GPU_MEMORY_LIMIT=BYTES caps the device memory one context may hold (weights, workspace,
   staging buffers, status word): an allocation past it fails as the device's own would, with
   XCC_ERROR_OUT_OF_MEMORY. It keeps a model within a budget on a shared GPU, and it reaches the
   out-of-memory paths, emulated or on a GPU, without filling a device. Read at each allocation;
   INT64_MAX when unset. */
static int32_t memory_limit(xcc_gpu_context *ctx, int64_t *limit) {
  const char *text = getenv("XCC_GPU_MEMORY_LIMIT");
  *limit = INT64_MAX;
  if (!text || !*text) return XCC_OK;
  char *end = NULL;
  long long bytes = strtoll(text, &end, 10);
  if (*end || bytes < 0) return fail(ctx, XCC_ERROR_GPU, "XCC_GPU_MEMORY_LIMIT=%s is not a number of bytes", text);
  *limit = (int64_t)bytes;
  return XCC_OK;
}

/* `b` allocated with `bytes` bytes of device memory, counted in the context's. */
static int32_t context_alloc(xcc_gpu_context *ctx, struct buffer *b, int64_t bytes, const char *what) {
  int64_t limit = 0;
  int32_t rc = memory_limit(ctx, &limit);
  if (rc != XCC_OK) return rc;
  if (bytes > limit - ctx->device_bytes)
    return fail(ctx, XCC_ERROR_OUT_OF_MEMORY,
                "allocating %lld bytes of device memory for %s: the context holds %lld, and XCC_GPU_MEMORY_LIMIT is %lld",
                (long long)bytes, what, (long long)ctx->device_bytes, (long long)limit);
  rc = device_alloc(ctx, &b->device, bytes, what);
  if (rc != XCC_OK) return rc;
  b->bytes = bytes;
  ctx->device_bytes += bytes;
  return XCC_OK;
}

/* ---- contexts --------------------------------------------------------------------------------- */

XCC_DEF int32_t xcc_gpu_context_create(xcc_gpu_context **context, int32_t device) {
  last_error[0] = 0;
  if (!context) return fail(NULL, XCC_ERROR_BAD_CONTEXT, "the context pointer is NULL");
  *context = NULL;
  xcc_gpu_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) return fail(NULL, XCC_ERROR_OUT_OF_MEMORY, "allocating a GPU context");
  int32_t rc = device_open(ctx, device);
  if (rc != XCC_OK) {
    free(ctx);
    return rc;
  }
  if (!add_live(ctx)) {
    device_close(ctx);
    free(ctx);
    return fail(NULL, XCC_ERROR_OUT_OF_MEMORY, "allocating the list of GPU contexts");
  }
  *context = ctx;
  return XCC_OK;
}

XCC_DEF void xcc_gpu_context_destroy(xcc_gpu_context **context) {
  if (!context || !remove_live(*context)) return;
  xcc_gpu_context *ctx = *context;
  if (device_current(ctx) == XCC_OK) {
    for (int32_t g = 0; g < ctx->global_count; g++) device_free(ctx->globals[g].device);
    for (int i = 0; i < MAX_SLOTS; i++) device_free(ctx->slots[i].device);
    device_free(ctx->workspace.device);
    device_free(ctx->status_word.device);
  }
  if (ctx->times) print_profile(ctx);
  device_close(ctx);
  free(ctx->times);
  free(ctx->pending.items);
  free(ctx->recorded.items);
  free(ctx->kernels);
  free(ctx->globals);
  free(ctx);
  *context = NULL;
}

XCC_DEF int32_t xcc_gpu_begin(xcc_gpu_context *ctx, void *stream) {
  last_error[0] = 0;
  if (!valid(ctx)) return fail(NULL, XCC_ERROR_BAD_CONTEXT, "the GPU context is NULL or was destroyed");
  ctx->status = XCC_OK;
  ctx->stream = NULL;
  int32_t rc = device_current(ctx);
  if (rc == XCC_OK) rc = device_accepts_stream(ctx, stream);
  if (rc == XCC_OK) ctx->stream = stream;
  if (rc == XCC_OK && ctx->status_word.device) rc = device_zero_word(ctx, ctx->status_word.device);
  return rc;
}

XCC_DEF int32_t xcc_gpu_read_status(xcc_gpu_context *ctx) {
  if (!valid(ctx)) return fail(NULL, XCC_ERROR_BAD_CONTEXT, "the GPU context is NULL or was destroyed");
  if (ctx->status != XCC_OK || !ctx->status_word.device) return ctx->status;
  int32_t word = 0;
  int32_t rc = xcc_gpu_fetch(ctx, &word, ctx->status_word.device, 4);
  return rc != XCC_OK ? rc : word;
}

XCC_DEF void *xcc_gpu_status_word(xcc_gpu_context *ctx) { return valid(ctx) ? ctx->status_word.device : NULL; }

XCC_DEF int64_t xcc_gpu_device_bytes(xcc_gpu_context *ctx) { return valid(ctx) ? ctx->device_bytes : 0; }

XCC_DEF int32_t xcc_gpu_status(xcc_gpu_context *ctx) { return valid(ctx) ? ctx->status : XCC_ERROR_BAD_CONTEXT; }

XCC_DEF void *xcc_gpu_own_stream(xcc_gpu_context *ctx) { return valid(ctx) ? ctx->own_stream : NULL; }

XCC_DEF void *xcc_gpu_workspace_pointer(xcc_gpu_context *ctx) { return valid(ctx) ? ctx->workspace.device : NULL; }

/* Slot `slot`'s buffer, grown to at least `bytes`. */
static int32_t slot_buffer(xcc_gpu_context *ctx, int32_t slot, int64_t bytes, void **device) {
  if (slot < 0 || slot >= MAX_SLOTS) return fail(ctx, XCC_ERROR_GPU, "staging slot %d is out of range", (int)slot);
  struct buffer *b = &ctx->slots[slot];
  if (!b->device || b->bytes < bytes) {
    device_free(b->device);
    ctx->device_bytes -= b->bytes;
    b->device = NULL;
    b->bytes = 0;
    int32_t rc = context_alloc(ctx, b, bytes, "an input or output");
    if (rc != XCC_OK) return rc;
  }
  *device = b->device;
  return XCC_OK;
}

XCC_DEF int32_t xcc_gpu_stage_input(xcc_gpu_context *ctx, int32_t slot, const void *host, int64_t bytes,
                                    void **device) {
  int32_t rc = slot_buffer(ctx, slot, bytes, device);
  return rc != XCC_OK ? rc : device_upload(ctx, *device, host, bytes);
}

XCC_DEF int32_t xcc_gpu_stage_output(xcc_gpu_context *ctx, int32_t slot, int64_t bytes, void **device) {
  return slot_buffer(ctx, slot, bytes, device);
}

XCC_DEF int32_t xcc_gpu_fetch(xcc_gpu_context *ctx, void *host, const void *device, int64_t bytes) {
  int32_t rc = device_download(ctx, host, device, bytes);
  return rc != XCC_OK ? rc : device_synchronize(ctx);
}

XCC_DEF int32_t xcc_gpu_synchronize(xcc_gpu_context *ctx) {
  if (!valid(ctx)) return fail(NULL, XCC_ERROR_BAD_CONTEXT, "the GPU context is NULL or was destroyed");
  return device_synchronize(ctx);
}

/* ---- what the generated host code calls --------------------------------------------------------- */

XCC_DEF int32_t xcc_gpu_load(xcc_gpu_context *ctx, const char *ptx, const uint8_t *cubin, const char *prefix,
                             int32_t kernels, int32_t globals) {
  if (!valid(ctx)) return fail(NULL, XCC_ERROR_BAD_CONTEXT, "the GPU context is NULL or was destroyed");
  if (ctx->kernels) return fail(ctx, XCC_ERROR_GPU, "the context already holds a model");
  snprintf(ctx->prefix, sizeof ctx->prefix, "%s", prefix);
  ctx->kernels = calloc((size_t)(kernels > 0 ? kernels : 1), sizeof *ctx->kernels);
  ctx->globals = calloc((size_t)(globals > 0 ? globals : 1), sizeof *ctx->globals);
  if (!ctx->kernels || !ctx->globals) return fail(ctx, XCC_ERROR_OUT_OF_MEMORY, "allocating the kernel tables");
  ctx->kernel_count = kernels;
  ctx->global_count = globals;
  if (getenv("XCC_GPU_PROFILE") && !(ctx->times = calloc((size_t)(kernels > 0 ? kernels : 1), sizeof *ctx->times)))
    return fail(ctx, XCC_ERROR_OUT_OF_MEMORY, "allocating the profile");
  const char *graphs = getenv("XCC_GPU_GRAPHS");
  ctx->graphs = graphs_available() && !ctx->times && !(graphs && strcmp(graphs, "0") == 0);
  int32_t rc = context_alloc(ctx, &ctx->status_word, 4, "the run's status");
  if (rc == XCC_OK) rc = device_zero_word(ctx, ctx->status_word.device);
  return rc != XCC_OK ? rc : device_load(ctx, ptx, cubin);
}

XCC_DEF int32_t xcc_gpu_kernel_function(xcc_gpu_context *ctx, int32_t kernel, void *function) {
  if (!valid(ctx) || kernel < 0 || kernel >= ctx->kernel_count) return XCC_ERROR_BAD_CONTEXT;
  ctx->kernels[kernel] = function;
  return XCC_OK;
}

XCC_DEF int32_t xcc_gpu_upload(xcc_gpu_context *ctx, int32_t global, const void *host, int64_t bytes) {
  if (!valid(ctx) || ctx->status != XCC_OK) return xcc_gpu_status(ctx);
  if (global < 0 || global >= ctx->global_count) return fail(ctx, XCC_ERROR_GPU, "weight %d is out of range", (int)global);
  struct buffer *b = &ctx->globals[global];
  int32_t rc = context_alloc(ctx, b, bytes, "the weights");
  if (rc != XCC_OK) return rc;
  rc = device_upload(ctx, b->device, host, bytes);
  return rc != XCC_OK ? rc : device_synchronize(ctx);
}

XCC_DEF int32_t xcc_gpu_workspace(xcc_gpu_context *ctx, int64_t bytes) {
  if (!valid(ctx) || ctx->status != XCC_OK) return xcc_gpu_status(ctx);
  return context_alloc(ctx, &ctx->workspace, bytes, "the workspace");
}

XCC_DEF void *xcc_gpu_global(xcc_gpu_context *ctx, int32_t global) {
  return valid(ctx) && global >= 0 && global < ctx->global_count ? ctx->globals[global].device : NULL;
}

/* A launch held until the run's end (xcc_gpu_end). */
static int32_t hold(xcc_gpu_context *ctx, const struct launch *l) {
  struct launch_list *p = &ctx->pending;
  if (p->count == p->capacity) {
    int32_t capacity = p->capacity ? 2 * p->capacity : 64;
    struct launch *items = realloc(p->items, sizeof *items * (size_t)capacity);
    if (!items) return fail(ctx, XCC_ERROR_OUT_OF_MEMORY, "holding the run's launches");
    p->items = items;
    p->capacity = capacity;
  }
  p->items[p->count++] = *l;
  return XCC_OK;
}

/* The end of a run's launches (the compute function calls it last): the held launches go to the
   stream, through a CUDA graph when the run repeats the last one. */
XCC_DEF int32_t xcc_gpu_end(xcc_gpu_context *ctx) {
  if (!valid(ctx)) return XCC_ERROR_BAD_CONTEXT;
  int32_t rc = ctx->status == XCC_OK && ctx->pending.count ? device_flush(ctx) : ctx->status;
  ctx->pending.count = 0;
  return rc;
}

XCC_DEF int32_t xcc_gpu_launch(xcc_gpu_context *ctx, int32_t kernel, int64_t blocks, int32_t threads,
                               int32_t shared_bytes, void **pointers, int32_t count) {
  if (!valid(ctx) || ctx->status != XCC_OK) return xcc_gpu_status(ctx);
  if (kernel < 0 || kernel >= ctx->kernel_count || count < 0 || count > MAX_PARAMS || blocks < 1 || blocks > MAX_BLOCKS || threads < 1 ||
      threads > 1024 || shared_bytes < 0 || shared_bytes > 48 * 1024)
    return fail(ctx, XCC_ERROR_GPU,
                "launch of kernel %d with a bad grid or parameters (%lld blocks of %d threads, %d bytes of shared "
                "memory, %d parameters)",
                (int)kernel, (long long)blocks, (int)threads, (int)shared_bytes, (int)count);
  struct launch l;
  memset(&l, 0, sizeof l); /* padding too: held launches are compared as bytes */
  l.kernel = kernel;
  l.blocks = blocks;
  l.threads = threads;
  l.shared_bytes = shared_bytes;
  l.count = count;
  memcpy(l.pointers, pointers, sizeof(void *) * (size_t)count);
  if (ctx->graphs) return hold(ctx, &l);
  if (!ctx->times) return device_launch(ctx, &l);
  int32_t rc = device_synchronize(ctx);
  double start = now_ms();
  if (rc == XCC_OK) rc = device_launch(ctx, &l);
  if (rc == XCC_OK) rc = device_synchronize(ctx);
  struct kernel_time *t = &ctx->times[kernel];
  t->ms += now_ms() - start;
  t->calls++;
  t->blocks = blocks;
  t->threads = threads;
  return rc;
}
