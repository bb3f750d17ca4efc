/* Drives the model tests/run_checks.rs builds for dims the run computes from the dims alone:
 *   dims.h: x float[seq]; first = Slice(x, 0:3) is min(3, seq) long (no range decides the clamp),
 *           (best, where) = TopK(x, K = 2) needs seq >= 2, a condition on the dims alone.
 * NAME_output_dims and NAME_workspace_size take the dims only (no inputs). For seq 2..8 the dims
 * and values are checked against the ONNX semantics worked out here; seq 1 must return
 * XCC_ERROR_BAD_DIM from every entry, a zero workspace, and leave the outputs as they were.
 * Prints "ok N checks". */
#include "dims.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SENTINEL -7.0f
#define MAX_SEQ 8

static void good(int64_t seq, const float *x) {
  int64_t first_dims[1] = {-5}, best_dims[1] = {-5}, where_dims[1] = {-5};
  int32_t rc = dims_output_dims(seq, first_dims, best_dims, where_dims);
  CHECK(rc == XCC_OK, "seq %lld: output_dims = %d", (long long)seq, rc);
  int64_t n = seq < 3 ? seq : 3;
  CHECK(first_dims[0] == n, "seq %lld: first is %lld long, expected %lld", (long long)seq, (long long)first_dims[0],
        (long long)n);
  CHECK(best_dims[0] == 2 && where_dims[0] == 2, "seq %lld: TopK dims %lld, %lld", (long long)seq,
        (long long)best_dims[0], (long long)where_dims[0]);
  float first[MAX_SEQ], best[MAX_SEQ];
  int64_t where[MAX_SEQ];
  for (int k = 0; k < MAX_SEQ; k++) first[k] = best[k] = SENTINEL;
  size_t bytes = dims_workspace_size(seq);
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  rc = dims_run(seq, x, first, best, where, ws);
  CHECK(rc == XCC_OK, "seq %lld: run = %d", (long long)seq, rc);
  for (int64_t k = 0; k < n; k++) CHECK(first[k] == x[k], "seq %lld: first[%lld] = %g", (long long)seq, (long long)k, first[k]);
  CHECK(first[n] == SENTINEL, "seq %lld: a write past the slice", (long long)seq);
  /* The two largest, the larger first; the values below are distinct. */
  int64_t top = 0, second = -1;
  for (int64_t k = 1; k < seq; k++)
    if (x[k] > x[top]) top = k;
  for (int64_t k = 0; k < seq; k++)
    if (k != top && (second < 0 || x[k] > x[second])) second = k;
  CHECK(best[0] == x[top] && best[1] == x[second] && where[0] == top && where[1] == second,
        "seq %lld: TopK %g %g at %lld %lld, expected %g %g at %lld %lld", (long long)seq, best[0], best[1],
        (long long)where[0], (long long)where[1], x[top], x[second], (long long)top, (long long)second);
  free(ws);
}

static void refused(int64_t seq, const float *x) {
  int64_t first_dims[1] = {-5}, best_dims[1] = {-5}, where_dims[1] = {-5};
  CHECK(dims_output_dims(seq, first_dims, best_dims, where_dims) == XCC_ERROR_BAD_DIM, "seq %lld: output_dims",
        (long long)seq);
  CHECK(first_dims[0] == -5 && best_dims[0] == -5, "seq %lld: refused dims were written", (long long)seq);
  CHECK(dims_workspace_size(seq) == 0, "seq %lld: a workspace for refused dims", (long long)seq);
  float first[MAX_SEQ], best[MAX_SEQ];
  int64_t where[MAX_SEQ];
  for (int k = 0; k < MAX_SEQ; k++) first[k] = best[k] = SENTINEL;
  static _Alignas(64) unsigned char ws[4096];
  CHECK(dims_run(seq, x, first, best, where, ws) == XCC_ERROR_BAD_DIM, "seq %lld: run", (long long)seq);
  for (int k = 0; k < MAX_SEQ; k++)
    CHECK(first[k] == SENTINEL && best[k] == SENTINEL, "seq %lld: a refused run wrote element %d", (long long)seq, k);
}

int main(void) {
  static const float x[MAX_SEQ] = {0.5f, -2.0f, 3.0f, 1.5f, 7.0f, -1.0f, 6.5f, 2.0f};
  for (int64_t seq = 2; seq <= MAX_SEQ; seq++) good(seq, x);
  refused(1, x);
  printf("%s %d checks\n", failures ? "FAILED" : "ok", checks);
  return failures != 0;
}
