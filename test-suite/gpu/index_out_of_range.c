/* An index input out of range on a GPU: `g` is one Gather of data [4, 3] by indices [2]
   (tests/gpu_models.rs builds it). A kernel that meets an index outside [-4, 4) sets the run's
   status word in device memory, and the run reports XCC_ERROR_INDEX_OUT_OF_RANGE: NAME_run
   itself, and NAME_run_device_status after NAME_run_device. The word is cleared at each run, so
   the next run with good indices is XCC_OK again, its rows (negative indices counting from the
   end) checked against the data. Prints "ok". Usage: index_out_of_range (no arguments). */
#include "g.h"
#include <stdio.h>
#include <string.h>

#include "program.h"

/* The rows `indices` pick, as Gather defines them. */
static int rows_match(const float *data, const int64_t *indices, const float *y) {
  for (int r = 0; r < 2; r++) {
    int64_t row = indices[r] < 0 ? indices[r] + 4 : indices[r];
    if (memcmp(y + 3 * r, data + 3 * row, 3 * sizeof(float)) != 0) return 0;
  }
  return 1;
}

int main(void) {
  float data[12], y[6];
  for (int i = 0; i < 12; i++) data[i] = (float)(i * i) - 5.5f;
  const int64_t good[2] = {3, -4}, beyond[2] = {1, 4}, below[2] = {-5, 0};
  g_context *ctx = NULL;
  EXPECT(g_create(&ctx, 0) == XCC_OK, "create");
  EXPECT(g_run(ctx, data, good, y) == XCC_OK && rows_match(data, good, y), "a run with indices in range");
  EXPECT(g_run(ctx, data, beyond, y) == XCC_ERROR_INDEX_OUT_OF_RANGE, "index 4 of a dim of 4 was not refused");
  EXPECT(g_run(ctx, data, below, y) == XCC_ERROR_INDEX_OUT_OF_RANGE, "index -5 of a dim of 4 was not refused");
  EXPECT(g_run(ctx, data, good, y) == XCC_OK && rows_match(data, good, y), "the run after the refusals");
  void *d_data = NULL, *d_indices = NULL, *d_y = NULL;
  EXPECT(xcc_gpu_stage_input(ctx, 0, data, sizeof data, &d_data) == XCC_OK, "staging the data");
  EXPECT(xcc_gpu_stage_input(ctx, 1, beyond, sizeof beyond, &d_indices) == XCC_OK, "staging the indices");
  EXPECT(xcc_gpu_stage_output(ctx, 2, sizeof y, &d_y) == XCC_OK, "staging the output");
  EXPECT(g_run_device(ctx, (const float *)d_data, (const int64_t *)d_indices, (float *)d_y, NULL) == XCC_OK,
         "queueing a run on device memory");
  EXPECT(g_run_device_status(ctx) == XCC_ERROR_INDEX_OUT_OF_RANGE, "the status of a device run with index 4");
  EXPECT(xcc_gpu_stage_input(ctx, 1, good, sizeof good, &d_indices) == XCC_OK, "staging good indices");
  EXPECT(g_run_device(ctx, (const float *)d_data, (const int64_t *)d_indices, (float *)d_y, NULL) == XCC_OK &&
             g_run_device_status(ctx) == XCC_OK,
         "a device run with good indices after a refused one");
  EXPECT(xcc_gpu_fetch(ctx, y, d_y, sizeof y) == XCC_OK && rows_match(data, good, y), "the device run's rows");
  g_destroy(&ctx);
  printf("ok\n");
  return 0;
}
