/* Calls @dma_rows with expanded memref arguments (allocated, aligned, offset, sizes, strides). */
#include <stdint.h>
#include <stdio.h>

void dma_rows(float *src_alloc, float *src_aligned, int64_t src_off, int64_t s0, int64_t s1, int64_t st0, int64_t st1,
              float *dst_alloc, float *dst_aligned, int64_t dst_off, int64_t d0, int64_t d1, int64_t dt0, int64_t dt1);

int main(void) {
  float src[4][8], dst[2][8];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++) src[i][j] = (float)(10 * i + j);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 8; j++) dst[i][j] = -1.0f;
  dma_rows(&src[0][0], &src[0][0], 0, 4, 8, 8, 1, &dst[0][0], &dst[0][0], 0, 2, 8, 8, 1);
  for (int i = 0; i < 2; i++) {
    float sum = 0;
    printf("row %d:", i);
    for (int j = 0; j < 8; j++) {
      printf(" %g", dst[i][j]);
      sum += dst[i][j];
    }
    printf(" sum %g\n", sum);
  }
  printf("src untouched: %g %g\n", src[0][0], src[3][7]);
  return 0;
}
