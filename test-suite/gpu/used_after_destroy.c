/* A context used after it was destroyed, through a copy of its pointer (NAME_destroy clears only
   the pointer it is given): every call through the copy is refused with XCC_ERROR_BAD_CONTEXT,
   or ignored for a second destroy, and none reads the freed context (the emulated program is
   built with AddressSanitizer, which would report the read); a context created afterwards runs.
   Prints "ok". Usage: used_after_destroy input.bin. Built by tests/gpu_models.rs, with the
   library for the GPU or the emulator (tiny_cnn compiled as `m`). */
#include "m.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"

int main(int argc, char **argv) {
  static float in[M_INPUT0_SIZE], want[M_OUTPUT0_SIZE], out[M_OUTPUT0_SIZE];
  if (!read_input(argc == 2 ? argv[1] : NULL, in, sizeof in)) return 2;
  m_context *ctx = NULL;
  EXPECT(m_create(&ctx, 0) == XCC_OK, "create");
  EXPECT(m_run(ctx, in, want) == XCC_OK, "the run before destroy");
  void *d_in = NULL, *d_out = NULL;
  EXPECT(xcc_gpu_stage_input(ctx, 0, in, sizeof in, &d_in) == XCC_OK, "staging the input");
  EXPECT(xcc_gpu_stage_output(ctx, 1, sizeof out, &d_out) == XCC_OK, "staging the output");
  m_context *copy = ctx;
  m_destroy(&ctx);
  EXPECT(ctx == NULL, "destroy leaves the pointer set");
  EXPECT(m_run(copy, in, out) == XCC_ERROR_BAD_CONTEXT, "a run through a copy of a destroyed context");
  EXPECT(strstr(m_last_error(), "destroyed") != NULL, "the refusal does not say the context was destroyed");
  EXPECT(m_run_device(copy, (const float *)d_in, (float *)d_out, NULL) == XCC_ERROR_BAD_CONTEXT,
         "a run on device memory through the copy");
  EXPECT(m_run_device_status(copy) == XCC_ERROR_BAD_CONTEXT, "the status through the copy");
  EXPECT(xcc_gpu_synchronize(copy) == XCC_ERROR_BAD_CONTEXT, "a wait through the copy");
  EXPECT(xcc_gpu_device_bytes(copy) == 0, "the device memory of a destroyed context");
  m_destroy(&copy);
  EXPECT(copy != NULL, "a second destroy through the copy took the copy for a context");
  EXPECT(m_create(&ctx, 0) == XCC_OK, "a new context");
  EXPECT(m_run(ctx, in, out) == XCC_OK && memcmp(out, want, sizeof out) == 0, "the new context's run");
  m_destroy(&ctx);
  printf("ok\n");
  return 0;
}
