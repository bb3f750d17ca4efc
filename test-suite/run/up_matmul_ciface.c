/* Calls the _mlir_ciface_ wrappers with pointers to memref descriptors. */
#include <stdint.h>
#include <stdio.h>

typedef struct { float *allocated, *aligned; int64_t offset, sizes[2], strides[2]; } memref_2d_f32;
typedef struct { int64_t *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } memref_1d_i64;

void _mlir_ciface_matmul(memref_2d_f32 *a, memref_2d_f32 *b, memref_2d_f32 *c);
void _mlir_ciface_iota_squares(memref_1d_i64 *result, int64_t n);
int64_t _mlir_ciface_total(memref_1d_i64 *m);
void _mlir_ciface_release(memref_1d_i64 *m);

static memref_2d_f32 view(float *data, int64_t rows, int64_t cols) {
  memref_2d_f32 m = {data, data, 0, {rows, cols}, {cols, 1}};
  return m;
}

int main(void) {
  float a[2][3] = {{1, 2, 3}, {4, 5, 6}};
  float b[3][2] = {{7, 8}, {9, 10}, {11, 12}};
  float c[2][2] = {{-1, -1}, {-1, -1}};
  memref_2d_f32 A = view(&a[0][0], 2, 3), B = view(&b[0][0], 3, 2), C = view(&c[0][0], 2, 2);
  _mlir_ciface_matmul(&A, &B, &C);
  for (int i = 0; i < 2; i++) printf("%g %g\n", c[i][0], c[i][1]);

  memref_1d_i64 sq;
  _mlir_ciface_iota_squares(&sq, 5);
  printf("iota(5):");
  for (int i = 0; i < 5; i++) printf(" %lld", (long long)sq.aligned[sq.offset + i * sq.strides[0]]);
  printf(" (size %lld, stride %lld)\n", (long long)sq.sizes[0], (long long)sq.strides[0]);
  printf("total %lld\n", (long long)_mlir_ciface_total(&sq));
  _mlir_ciface_release(&sq);
  return 0;
}
