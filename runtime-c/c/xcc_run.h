/* xcc runs: what a run of a compiled model returns, and how its parallel loops reach threads.
 * Shared by xcc_runtime.h and every model header xcc writes (hence the guard macro rather than
 * a file guard: the same declarations may arrive through several headers). */
#ifndef XCC_RUN_DECLARED
#define XCC_RUN_DECLARED

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What NAME_run, NAME_run_with and NAME_run_alloc return. A run checks its arguments before it
 * touches any tensor; an index error is found while the model runs: the run finishes without
 * reading or writing outside any buffer, but the outputs are unspecified. */
typedef enum xcc_status {
  XCC_OK = 0,
  /* A tensor pointer (input or output) is NULL. */
  XCC_ERROR_NULL_TENSOR = 1,
  /* The workspace is NULL although the model needs one (NAME_workspace_size() > 0). */
  XCC_ERROR_NULL_WORKSPACE = 2,
  /* The workspace is not aligned to 64 bytes. */
  XCC_ERROR_WORKSPACE_MISALIGNED = 3,
  /* The run options say the workspace has fewer bytes than NAME_workspace_size(). */
  XCC_ERROR_WORKSPACE_TOO_SMALL = 4,
  /* An index input (Gather, GatherElements: token ids, positions) is outside the indexed
   * dimension, after negative indices count from its end. ONNX Runtime's INVALID_ARGUMENT. */
  XCC_ERROR_INDEX_OUT_OF_RANGE = 5,
  /* NAME_run_alloc could not allocate its workspace. */
  XCC_ERROR_OUT_OF_MEMORY = 6,
  /* A run-time dim (a model's symbolic dim, given to NAME_run) is below 1 or outside the range the
   * model was compiled with (--dim NAME=MIN..MAX), or makes a tensor of more than 2^44 bytes. */
  XCC_ERROR_BAD_DIM = 7,
  /* An input that decides a shape (a Reshape's shape, a reduction's axes, ...) holds values the
   * operator refuses: a negative size, an axis out of range, element counts that differ. */
  XCC_ERROR_BAD_SHAPE_INPUT = 8,
  /* An input holds a value ONNX allows but the compiled model does not support (Dropout's
   * training mode with a nonzero ratio, read at run time). */
  XCC_ERROR_UNSUPPORTED_INPUT = 9,
  /* An integer Div or Mod read a divisor of 0 (found while running; the outputs are unspecified).
   * ONNX Runtime's integer division has no such check: the process traps. */
  XCC_ERROR_DIVISION_BY_ZERO = 10,
  /* A Cast from strings read one that does not start with a number (after whitespace), a real
   * outside the double range or below its normal numbers, or an integer outside int64 (uint64 for
   * the unsigned types and bool). ONNX Runtime fails the run the same way. */
  XCC_ERROR_NOT_A_NUMBER = 11,
  /* An ImageDecoder input is not an image of a kind the model decodes (BMP, PNM, PNG or
   * uncompressed TIFF; see the README), or its bytes end early or do not add up. */
  XCC_ERROR_BAD_IMAGE = 12,
  /* An output was given the same buffer as an input that the model reads while it writes the
   * output (a KV cache's past and its present where the present is Concat(past, new)). Only the
   * pairs a header lists as appended to in place may share a buffer. */
  XCC_ERROR_ALIASED_BUFFERS = 13,
} xcc_status;

/* A sentence for a status code (any int32_t: unknown codes get a sentence too). */
const char *xcc_status_message(int32_t status);

/* One slice of a parallel loop: runs iterations [begin, end) of the loop described by context. */
typedef void (*xcc_task_fn)(void *context, int64_t begin, int64_t end);

/* A caller-provided parallel-for: must run task(context, b, e) over ranges that together cover
 * [0, n) exactly once, possibly concurrently, and return when all have finished. */
typedef void (*xcc_parallel_for_fn)(void *user, xcc_task_fn task, void *context, int64_t n);

/* A pool of worker threads. A parallel loop runs on the calling thread plus the pool's workers;
 * one loop at a time per pool: a loop submitted while the pool is busy (a concurrent run on
 * another application thread) runs on its own calling thread, so concurrent runs stay correct. */
typedef struct xcc_threadpool xcc_threadpool;

/* num_threads counts the calling thread; <= 0 means the number of cores this process may use.
 * Returns NULL when threads cannot be created. */
xcc_threadpool *xcc_threadpool_create(int num_threads);
/* Waits for the workers to exit. The pool must not be running a loop. */
void xcc_threadpool_destroy(xcc_threadpool *pool);
int xcc_threadpool_size(const xcc_threadpool *pool);
/* The process-wide pool that runs use by default, created on first use with XCC_NUM_THREADS
 * threads if that variable is set, else one per core this process may use. */
xcc_threadpool *xcc_default_threadpool(void);

/* How one run uses threads. All-zero (or a NULL pointer) means the process-wide pool. */
typedef struct xcc_run_options {
  /* At most this many threads, the caller's included; 0 means all of the pool's; 1 runs every
   * loop on the calling thread. */
  int32_t num_threads;
  /* The pool to use instead of the process-wide one. */
  xcc_threadpool *pool;
  /* When set, every parallel loop is handed to this function instead of a pool (for
   * applications that own their threads); num_threads and pool are then ignored. */
  xcc_parallel_for_fn parallel_for;
  void *parallel_for_user;
  /* When nonzero, the workspace's size in bytes: a run whose workspace is smaller than the model
   * needs returns XCC_ERROR_WORKSPACE_TOO_SMALL instead of writing past it. */
  size_t workspace_size;
} xcc_run_options;

/* For NAME_run_with: XCC_ERROR_WORKSPACE_TOO_SMALL when options give a workspace size below
 * needed, else XCC_OK. */
int32_t xcc_run_options_check_workspace(const xcc_run_options *options, size_t needed);

#ifdef __cplusplus
}
#endif

#endif /* XCC_RUN_DECLARED */
