/* Runs the tiny CNN compiled by xcc on the test input and compares with ONNX Runtime's output. */
#include "tiny_cnn.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void read_floats(const char *path, float *dst, size_t n) {
  FILE *f = fopen(path, "rb");
  if (!f || fread(dst, sizeof(float), n, f) != n) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
  fclose(f);
}

int main(int argc, char **argv) {
  static float image[TINY_CNN_INPUT0_SIZE], probabilities[TINY_CNN_OUTPUT0_SIZE], expected[TINY_CNN_OUTPUT0_SIZE];
  read_floats(argv[1], image, TINY_CNN_INPUT0_SIZE);
  read_floats(argv[2], expected, TINY_CNN_OUTPUT0_SIZE);
  if (tiny_cnn_run_alloc(image, probabilities) != 0) return 1;
  float worst = 0;
  for (int i = 0; i < TINY_CNN_OUTPUT0_SIZE; i++) {
    printf("class %d: %.6f\n", i, probabilities[i]);
    float d = fabsf(probabilities[i] - expected[i]);
    if (d > worst) worst = d;
  }
  printf("largest difference from ONNX Runtime: %.3g (%s)\n", worst, worst < 1e-5f ? "ok" : "MISMATCH");
  return worst < 1e-5f ? 0 : 1;
}
