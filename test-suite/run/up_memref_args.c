/* Expanded memref arguments: (allocated, aligned, offset, sizes..., strides...). */
#include <stdint.h>
#include <stdio.h>

int32_t strided_sum(int32_t *alloc, int32_t *aligned, int64_t offset, int64_t size, int64_t stride);
void prefix_sum(int64_t *alloc, int64_t *aligned, int64_t offset, int64_t size, int64_t stride);
double scale(double *alloc, double *aligned, int64_t offset, int64_t s0, int64_t s1, int64_t t0, int64_t t1, double k);

int main(void) {
  int32_t data[10];
  for (int i = 0; i < 10; i++) data[i] = i;
  printf("strided sum %d\n", strided_sum(data, data, 1, 4, 2));

  int64_t p[5] = {1, 2, 3, 4, 5};
  prefix_sum(p, p, 0, 5, 1);
  printf("prefix: %lld %lld %lld %lld %lld\n", (long long)p[0], (long long)p[1], (long long)p[2], (long long)p[3], (long long)p[4]);

  double m[2][3] = {{0, 1, 2}, {3, 4, 5}};
  double picked = scale(&m[0][0], &m[0][0], 0, 2, 3, 3, 1, 0.5);
  printf("scaled: %g %g %g | %g %g %g, picked %g\n", m[0][0], m[0][1], m[0][2], m[1][0], m[1][1], m[1][2], picked);
  return 0;
}
