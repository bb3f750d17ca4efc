/* The memory copy bandwidth of THREADS threads (GB/s, bytes read plus written): each copies
 * between its own two 256 MiB buffers 5 times; the best of 3 passes, the buffers touched first.
 * usage: copy_bandwidth THREADS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
enum { BYTES = 256 << 20, TIMES = 5, MAX_THREADS = 64 };
static char *buffers[MAX_THREADS][2];
static void *copy(void *arg) {
  char **ab = arg;
  for (int i = 0; i < TIMES; i++) memcpy(ab[i % 2], ab[1 - i % 2], BYTES);
  return NULL;
}
int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 1;
  if (threads < 1 || threads > MAX_THREADS) return 2;
  for (int i = 0; i < threads; i++)
    for (int j = 0; j < 2; j++) { buffers[i][j] = malloc(BYTES); memset(buffers[i][j], j + 1, BYTES); }
  double best = 0;
  for (int pass = 0; pass < 3; pass++) {
    pthread_t t[MAX_THREADS];
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, copy, buffers[i]);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
    double gbs = 2.0 * BYTES * TIMES * threads / s / 1e9;
    if (gbs > best) best = gbs;
  }
  printf("%.1f\n", best);
  return 0;
}
