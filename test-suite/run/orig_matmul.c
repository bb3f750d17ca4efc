/* Calls @multiply with expanded memref descriptors: for each memref<?x?xf32>,
   (allocated, aligned, offset, size0, size1, stride0, stride1). */
#include <stdint.h>
#include <stdio.h>

void multiply(float *a_alloc, float *a_data, int64_t a_off, int64_t a_s0, int64_t a_s1, int64_t a_t0, int64_t a_t1,
              float *b_alloc, float *b_data, int64_t b_off, int64_t b_s0, int64_t b_s1, int64_t b_t0, int64_t b_t1,
              float *c_alloc, float *c_data, int64_t c_off, int64_t c_s0, int64_t c_s1, int64_t c_t0, int64_t c_t1);

int main(void) {
  float a[2][3] = {{1, 2, 3}, {4, 5, 6}};
  float b[3][2] = {{7, 8}, {9, 10}, {11, 12}};
  float c[2][2] = {{-1, -1}, {-1, -1}};
  multiply(&a[0][0], &a[0][0], 0, 2, 3, 3, 1,
           &b[0][0], &b[0][0], 0, 3, 2, 2, 1,
           &c[0][0], &c[0][0], 0, 2, 2, 2, 1);
  for (int i = 0; i < 2; i++) printf("%g %g\n", c[i][0], c[i][1]);
  printf("2x3 * 3x2 done\n");
  return 0;
}
