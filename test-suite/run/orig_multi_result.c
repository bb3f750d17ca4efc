/* Two i64 results come back as a struct of two int64_t. */
#include <stdint.h>
#include <stdio.h>

typedef struct { int64_t a, b; } pair;
pair divmod(int64_t, int64_t);
pair swap(int64_t, int64_t);
pair count(int64_t);
int64_t combine(int64_t, int64_t);

int main(void) {
  pair p = divmod(17, 5);
  printf("divmod(17, 5) = %lld %lld\n", (long long)p.a, (long long)p.b);
  p = divmod(-17, 5);
  printf("divmod(-17, 5) = %lld %lld\n", (long long)p.a, (long long)p.b);
  p = swap(1, 2);
  printf("swap(1, 2) = %lld %lld\n", (long long)p.a, (long long)p.b);
  p = count(42);
  printf("count(42) = %lld %lld\n", (long long)p.a, (long long)p.b);
  printf("combine(17, 5) = %lld\n", (long long)combine(17, 5));
  printf("combine(100, 7) = %lld\n", (long long)combine(100, 7));
  return 0;
}
