/* Drives up_vector_masked.mlir: masked copies between two 16-element buffers, and a masked row
 * read from a 3x4 matrix. */
#include <stdint.h>
#include <stdio.h>

float copy(float *, float *, int64_t, int64_t, int64_t, float *, float *, int64_t, int64_t, int64_t, int64_t, int64_t);
float row_sum(float *, float *, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);

static void run(int64_t at, int64_t n) {
  float src[16], dst[16];
  for (int i = 0; i < 16; i++) {
    src[i] = (float)(i + 1);
    dst[i] = (float)(100 + i);
  }
  float sum = copy(src, src, 0, 16, 1, dst, dst, 0, 16, 1, at, n);
  printf("n=%lld sum=%g dst:", (long long)n, sum);
  for (int i = 0; i < 16; i++)
    printf(" %g", dst[i]);
  printf("\n");
}

int main(void) {
  run(3, 5);
  run(3, 0);
  run(3, -2);
  run(8, 100);
  float m[12];
  for (int i = 0; i < 12; i++)
    m[i] = (float)(i + 1);
  printf("2d sum=%g\n", row_sum(m, m, 0, 3, 4, 4, 1, 1, 2, 3));
  return 0;
}
