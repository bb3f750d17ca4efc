/* Drives the model tests/run_checks.rs builds for a Reshape whose -1 the run divides out:
 *   halves.h: x float[seq, 3]; y = Reshape(x, [2, -1]), [2, seq * 3 / 2], which needs seq * 3
 *             to be even: a dim the run computes and a condition it checks.
 * For even seq the dims and values are checked (a reshape keeps the elements in order); odd seq
 * must return XCC_ERROR_BAD_DIM from every entry, a zero workspace, and leave the output as it
 * was. Prints "ok N checks". */
#include "halves.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SENTINEL -7.0f
#define MAX_SEQ 12

static void good(int64_t seq, const float *x) {
  int64_t dims[2] = {-5, -5};
  CHECK(halves_output_dims(seq, dims) == XCC_OK, "seq %lld: output_dims", (long long)seq);
  CHECK(dims[0] == 2 && dims[1] == seq * 3 / 2, "seq %lld: dims %lld x %lld", (long long)seq, (long long)dims[0],
        (long long)dims[1]);
  float y[MAX_SEQ * 3 + 1];
  for (int k = 0; k <= MAX_SEQ * 3; k++) y[k] = SENTINEL;
  size_t bytes = halves_workspace_size(seq);
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  CHECK(halves_run(seq, x, y, ws) == XCC_OK, "seq %lld: run", (long long)seq);
  for (int64_t k = 0; k < seq * 3; k++) CHECK(y[k] == x[k], "seq %lld: y[%lld] = %g", (long long)seq, (long long)k, y[k]);
  CHECK(y[seq * 3] == SENTINEL, "seq %lld: a write past the output", (long long)seq);
  free(ws);
}

static void refused(int64_t seq, const float *x) {
  int64_t dims[2] = {-5, -5};
  CHECK(halves_output_dims(seq, dims) == XCC_ERROR_BAD_DIM, "seq %lld: output_dims", (long long)seq);
  CHECK(dims[1] == -5, "seq %lld: refused dims were written", (long long)seq);
  CHECK(halves_workspace_size(seq) == 0, "seq %lld: a workspace for refused dims", (long long)seq);
  float y[MAX_SEQ * 3];
  for (int k = 0; k < MAX_SEQ * 3; k++) y[k] = SENTINEL;
  static _Alignas(64) unsigned char ws[4096];
  CHECK(halves_run(seq, x, y, ws) == XCC_ERROR_BAD_DIM, "seq %lld: run", (long long)seq);
  for (int k = 0; k < MAX_SEQ * 3; k++) CHECK(y[k] == SENTINEL, "seq %lld: a refused run wrote %d", (long long)seq, k);
}

int main(void) {
  float x[MAX_SEQ * 3];
  for (int k = 0; k < MAX_SEQ * 3; k++) x[k] = (float)(k * 5 % 11) - 3.0f;
  for (int64_t seq = 2; seq <= MAX_SEQ; seq += 2) good(seq, x);
  for (int64_t seq = 1; seq <= MAX_SEQ; seq += 2) refused(seq, x);
  printf("%s %d checks\n", failures ? "FAILED" : "ok", checks);
  return failures != 0;
}
