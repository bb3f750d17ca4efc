/* A wrong stream: a model (tiny_cnn compiled as `m`) run on device memory with a stream that is
   not the model's must be refused with XCC_ERROR_GPU and a sentence about the stream, before
   anything is queued, and the context must run as before afterwards, with the same bytes. On a
   GPU the stream belongs to a CUDA context of our own (cuCtxCreate), not the device's primary
   context the model runs in; emulated (XCC_TEST_EMULATED), any stream but the default ones (NULL,
   CUDA's legacy and per-thread handles) is foreign, since the emulated GPU has no other. The
   per-thread default stream is then accepted. Prints "ok". Usage: wrong_stream input.bin.
   Built by tests/gpu_models.rs, with the library for the GPU or the emulator. */
#include "m.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef XCC_TEST_EMULATED
#include <dlfcn.h>
#endif

#include "program.h"

#ifdef XCC_TEST_EMULATED
static int marker;
static void *foreign_stream(void) { return &marker; }
static void drop_foreign_stream(void) {}
#else
static void *cuda, *own_context, *own_stream;
#define CU(name, ...) ((int (*)(__VA_ARGS__))dlsym(cuda, name))
/* A stream of a CUDA context made here, which is then popped so that the model's is current. */
static void *foreign_stream(void) {
  if (!(cuda = dlopen("libcuda.so.1", RTLD_NOW))) return NULL;
  int device = 0;
  void *popped = NULL;
  if (CU("cuInit", unsigned)(0) || CU("cuDeviceGet", int *, int)(&device, 0) ||
      CU("cuCtxCreate_v2", void **, unsigned, int)(&own_context, 0u, device) ||
      CU("cuStreamCreate", void **, unsigned)(&own_stream, 0u) || CU("cuCtxPopCurrent_v2", void **)(&popped))
    return NULL;
  return own_stream;
}
static void drop_foreign_stream(void) {
  CU("cuCtxPushCurrent_v2", void *)(own_context);
  CU("cuStreamDestroy_v2", void *)(own_stream);
  CU("cuCtxDestroy_v2", void *)(own_context);
}
#endif

int main(int argc, char **argv) {
  static float in[M_INPUT0_SIZE], want[M_OUTPUT0_SIZE], out[M_OUTPUT0_SIZE];
  if (!read_input(argc == 2 ? argv[1] : NULL, in, sizeof in)) return 2;
  m_context *ctx = NULL;
  EXPECT(m_create(&ctx, 0) == XCC_OK, "create");
  EXPECT(m_run(ctx, in, want) == XCC_OK, "the first run");
  void *d_in = NULL, *d_out = NULL;
  EXPECT(xcc_gpu_stage_input(ctx, 0, in, sizeof in, &d_in) == XCC_OK, "staging the input");
  EXPECT(xcc_gpu_stage_output(ctx, 1, sizeof out, &d_out) == XCC_OK, "staging the output");
  void *stream = foreign_stream();
  EXPECT(stream != NULL, "no stream of our own could be made");
  int32_t rc = m_run_device(ctx, (const float *)d_in, (float *)d_out, stream);
  EXPECT(rc == XCC_ERROR_GPU, "a run on a foreign stream returned %d, not XCC_ERROR_GPU", (int)rc);
  EXPECT(strstr(m_last_error(), "stream") != NULL, "the refusal does not speak of the stream");
  EXPECT(m_run(ctx, in, out) == XCC_OK, "the run after the refusal");
  EXPECT(memcmp(out, want, sizeof out) == 0, "the run after the refusal differs from the first");
  EXPECT(m_run_device(ctx, (const float *)d_in, (float *)d_out, NULL) == XCC_OK, "the run on the default stream");
  EXPECT(m_run_device_status(ctx) == XCC_OK, "the status of the run on the default stream");
  /* CUDA's handle of the per-thread default stream (cudaStreamPerThread) is the model's too. */
  EXPECT(m_run_device(ctx, (const float *)d_in, (float *)d_out, (void *)2) == XCC_OK &&
             m_run_device_status(ctx) == XCC_OK,
         "the run on the per-thread default stream");
  m_destroy(&ctx);
  drop_foreign_stream();
  printf("ok\n");
  return 0;
}
