/* Drives the models with an optional input that tests/run_checks.rs builds:
 *   maybe.h: x optional float[3]; h = OptionalHasElement(x), y = OptionalGetElement(x) * 2.
 *   has.h:   x optional float[3]; h = OptionalHasElement(x).
 * A tensor given: h true, y doubled. NULL: has's h false; maybe refuses the run with
 * XCC_ERROR_NULL_TENSOR (GetElement of none). A NULL output stays refused. Prints "ok N checks". */
#include "has.h"
#include "maybe.h"
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

int main(void) {
  size_t bytes = MAYBE_WORKSPACE_SIZE > HAS_WORKSPACE_SIZE ? MAYBE_WORKSPACE_SIZE : HAS_WORKSPACE_SIZE;
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  float x[3] = {1.5f, -2.0f, 4.0f}, y[3] = {0, 0, 0};
  bool h = false;
  CHECK(maybe_run(x, &h, y, ws) == XCC_OK, "a run with x");
  CHECK(h, "x is there");
  for (int k = 0; k < 3; k++) CHECK(y[k] == 2 * x[k], "y[%d] = %g", k, y[k]);
  h = true;
  CHECK(has_run(NULL, &h, ws) == XCC_OK, "a run of HasElement without x");
  CHECK(!h, "no x");
  CHECK(has_run(x, &h, ws) == XCC_OK && h, "a run of HasElement with x");
  CHECK(maybe_run(NULL, &h, y, ws) == XCC_ERROR_NULL_TENSOR, "GetElement of none");
  CHECK(maybe_run(x, NULL, y, ws) == XCC_ERROR_NULL_TENSOR, "a NULL output");
  free(ws);
  printf("%s %d checks\n", failures ? "FAILED" : "ok", checks);
  return failures != 0;
}
