/* Out of device memory: a model (tiny_cnn compiled as `m`) whose context may hold one byte less
   than it needs (runtime-c's XCC_GPU_MEMORY_LIMIT, read at each allocation), first at creation
   (the weights and workspace), then at a run (the staging buffers of its input and output). Each
   refusal must be XCC_ERROR_OUT_OF_MEMORY with a sentence naming what was being allocated, leave
   no context behind, and leak nothing (the program is built with AddressSanitizer's leak check
   where the grid is emulated); a context refused a run runs once the limit allows it, with the
   same bytes as an unlimited one. Prints "ok". Usage: out_of_memory input.bin. Built by
   tests/gpu_models.rs, with the library for the GPU or the emulator. */
#include "m.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"

static void limit(long long bytes) {
  char text[32];
  snprintf(text, sizeof text, "%lld", bytes);
  setenv("XCC_GPU_MEMORY_LIMIT", text, 1);
}

int main(int argc, char **argv) {
  static float in[M_INPUT0_SIZE], want[M_OUTPUT0_SIZE], out[M_OUTPUT0_SIZE];
  if (!read_input(argc == 2 ? argv[1] : NULL, in, sizeof in)) return 2;

  /* Unlimited: what creation holds, and what a run from host memory adds. */
  unsetenv("XCC_GPU_MEMORY_LIMIT");
  m_context *ctx = NULL;
  EXPECT(m_create(&ctx, 0) == XCC_OK, "create without a limit");
  long long created = (long long)xcc_gpu_device_bytes(ctx);
  EXPECT(m_run(ctx, in, want) == XCC_OK, "run without a limit");
  long long staged = (long long)xcc_gpu_device_bytes(ctx);
  EXPECT(staged == created + (long long)(sizeof in + sizeof want), "staging held %lld bytes, not %zu",
         staged - created, sizeof in + sizeof want);
  m_destroy(&ctx);

  /* A byte short of creation. */
  limit(created - 1);
  EXPECT(m_create(&ctx, 0) == XCC_ERROR_OUT_OF_MEMORY, "create with a byte too few was not refused");
  EXPECT(ctx == NULL, "a refused create left a context");
  EXPECT(strstr(m_last_error(), "XCC_GPU_MEMORY_LIMIT") != NULL, "the refusal does not name the limit");

  /* Enough to create, a byte short of the run's staging buffers: the run is refused, and the
     context runs once the limit allows it. */
  limit(staged - 1);
  EXPECT(m_create(&ctx, 0) == XCC_OK, "create at its own size");
  EXPECT(m_run(ctx, in, out) == XCC_ERROR_OUT_OF_MEMORY, "a run with a byte too few was not refused");
  EXPECT(strstr(m_last_error(), "an input or output") != NULL, "the refusal does not say what it allocated");
  limit(staged);
  EXPECT(m_run(ctx, in, out) == XCC_OK, "the run after the limit was raised");
  EXPECT(memcmp(out, want, sizeof out) == 0, "the run under a limit differs from the unlimited one");
  m_destroy(&ctx);

  /* A limit that is not a number is refused, not ignored. */
  setenv("XCC_GPU_MEMORY_LIMIT", "2GB", 1);
  EXPECT(m_create(&ctx, 0) == XCC_ERROR_GPU && ctx == NULL, "a malformed limit was not refused");
  EXPECT(strstr(m_last_error(), "2GB") != NULL, "the refusal does not quote the limit");
  printf("ok: %lld bytes to create, %lld to run\n", created, staged);
  return 0;
}
