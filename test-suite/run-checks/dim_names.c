/* Drives the model tests/run_checks.rs builds for dims whose names differ only where C cannot
 * tell them apart:
 *   names.h: p float[a-b], q float[a_b]; y = Concat(p, q), p's length plus q's.
 * The two dim_params are two dims (`a_b_2`, whose NAMES_DIM0_MODEL_NAME is "a-b", and `a_b`), as
 * ONNX Runtime has them: a run with p
 * and q of different lengths concatenates exactly their elements and writes nothing past y.
 * Prints "ok N checks". */
#include "names.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SENTINEL -7.0f

static void concatenates(int64_t p_len, int64_t q_len) {
  float p[8], q[8], y[17];
  for (int k = 0; k < 8; k++) {
    p[k] = (float)(k + 1);
    q[k] = (float)(-k - 1);
  }
  for (int k = 0; k < 17; k++) y[k] = SENTINEL;
  int64_t dims[1] = {-5};
  names_output0_dims(p_len, q_len, dims);
  CHECK(dims[0] == p_len + q_len, "p %lld, q %lld: y is %lld long", (long long)p_len, (long long)q_len,
        (long long)dims[0]);
  size_t bytes = names_workspace_size(p_len, q_len);
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  int32_t rc = names_run(p_len, q_len, p, q, y, ws);
  CHECK(rc == XCC_OK, "p %lld, q %lld: run = %d", (long long)p_len, (long long)q_len, rc);
  for (int64_t k = 0; k < p_len; k++) CHECK(y[k] == p[k], "y[%lld] = %g, expected p's %g", (long long)k, y[k], p[k]);
  for (int64_t k = 0; k < q_len; k++)
    CHECK(y[p_len + k] == q[k], "y[%lld] = %g, expected q's %g", (long long)(p_len + k), y[p_len + k], q[k]);
  for (int64_t k = p_len + q_len; k < 17; k++) CHECK(y[k] == SENTINEL, "a write past y at %lld", (long long)k);
  free(ws);
}

int main(void) {
  /* The header says which of the model's names the renamed dim stands for. */
  CHECK(strcmp(NAMES_DIM0_NAME, "a_b_2") == 0 && strcmp(NAMES_DIM0_MODEL_NAME, "a-b") == 0, "dim 0 is %s", NAMES_DIM0_NAME);
  CHECK(strcmp(NAMES_DIM1_NAME, "a_b") == 0, "dim 1 is %s", NAMES_DIM1_NAME);
  concatenates(2, 5);
  concatenates(5, 2);
  concatenates(0, 3);
  concatenates(8, 8);
  printf("%s %d checks\n", failures ? "FAILED" : "ok", checks);
  return failures != 0;
}
