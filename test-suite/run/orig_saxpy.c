/* Expanded memref arguments: (allocated, aligned, offset, sizes..., strides...). */
#include <stdint.h>
#include <stdio.h>

void saxpy(float a, float *xa, float *x, int64_t xo, int64_t xn, int64_t xs,
           float *ya, float *y, int64_t yo, int64_t yn, int64_t ys);
void row_sums(int64_t *ma, int64_t *m, int64_t mo, int64_t r, int64_t c, int64_t s0, int64_t s1,
              int64_t *oa, int64_t *o, int64_t oo, int64_t on, int64_t os);

int main(void) {
  float x[5] = {1, 2, 3, 4, 5}, y[5] = {10, 10, 10, 10, 10};
  saxpy(2.0f, x, x, 0, 5, 1, y, y, 0, 5, 1);
  printf("saxpy: %g %g %g %g %g\n", y[0], y[1], y[2], y[3], y[4]);
  int64_t m[2][3] = {{1, 2, 3}, {4, 5, 6}}, out[2] = {-1, -1};
  row_sums(&m[0][0], &m[0][0], 0, 2, 3, 3, 1, out, out, 0, 2, 1);
  printf("rows: %lld %lld\n", (long long)out[0], (long long)out[1]);
  return 0;
}
