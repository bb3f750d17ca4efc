/* Two-result functions return small structs. */
#include <stdint.h>
#include <stdio.h>

typedef struct { int64_t a, b; } pair;
typedef struct { double x, y; } dpair;
pair divmod(int64_t, int64_t);
pair minmax(int64_t, int64_t);
dpair polar(double, double);
int64_t sum_divmod(int64_t, int64_t);

int main(void) {
  pair p = divmod(17, 5);
  printf("divmod(17, 5) = %lld %lld\n", (long long)p.a, (long long)p.b);
  p = divmod(-17, 5);
  printf("divmod(-17, 5) = %lld %lld\n", (long long)p.a, (long long)p.b);
  p = minmax(9, -4);
  printf("minmax(9, -4) = %lld %lld\n", (long long)p.a, (long long)p.b);
  dpair d = polar(3, 4);
  printf("polar(3, 4) = %g %g\n", d.x, d.y);
  printf("sum_divmod(100, 7) = %lld\n", (long long)sum_divmod(100, 7));
  return 0;
}
