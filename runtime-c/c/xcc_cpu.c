/* runtime-c: the x86-64 level a CPU supports (which a portable library dispatches on), and bfloat16 narrowing. */
#include "xcc_internal.h"

/* ---- CPU level ----------------------------------------------------------------------------
 * The x86-64 psABI levels, and 5 for v4 with AVX-512 VNNI (xcc_targets::x86_64::VNNI_LEVEL). A feature counts only if the OS saves its registers (XCR0), which is
 * what separates "the CPU has AVX-512" from "AVX-512 code can run here". */

#if defined(__x86_64__)
static uint64_t xcr0(void) {
  uint32_t lo, hi;
  __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t)hi << 32 | lo;
}

static int detect_cpu_level(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d))
    return 1;
  const unsigned sse3 = 1u << 0, ssse3 = 1u << 9, fma = 1u << 12, cx16 = 1u << 13, sse41 = 1u << 19,
                 sse42 = 1u << 20, movbe = 1u << 22, popcnt = 1u << 23, osxsave = 1u << 27, avx = 1u << 28,
                 f16c = 1u << 29;
  unsigned need2 = sse3 | ssse3 | cx16 | sse41 | sse42 | popcnt;
  if ((c & need2) != need2)
    return 1;
  unsigned ext_c = 0, ext_b = 0;
  unsigned ea, eb, ec, ed;
  if (__get_cpuid(0x80000001, &ea, &eb, &ec, &ed))
    ext_c = ec; /* LAHF-SAHF (bit 0), LZCNT (bit 5) */
  if (!(ext_c & 1u))
    return 1;
  unsigned need3 = fma | movbe | osxsave | avx | f16c;
  if ((c & need3) != need3 || (xcr0() & 0x6) != 0x6 || !(ext_c & (1u << 5)))
    return 2;
  if (!__get_cpuid_count(7, 0, &ea, &eb, &ec, &ed))
    return 2;
  ext_b = eb;
  const unsigned bmi1 = 1u << 3, avx2 = 1u << 5, bmi2 = 1u << 8;
  if ((ext_b & (bmi1 | avx2 | bmi2)) != (bmi1 | avx2 | bmi2))
    return 2;
  const unsigned avx512f = 1u << 16, avx512dq = 1u << 17, avx512cd = 1u << 28, avx512bw = 1u << 30,
                 avx512vl = 1u << 31;
  unsigned need4 = avx512f | avx512dq | avx512cd | avx512bw | avx512vl;
  if ((ext_b & need4) != need4 || (xcr0() & 0xe6) != 0xe6)
    return 3;
  const unsigned avx512vnni = 1u << 11; /* leaf 7, ECX */
  return (ec & avx512vnni) ? 5 : 4;
}
#else
static int detect_cpu_level(void) { return 0; }
#endif

static atomic_int cpu_level = -1;

XCC_DEF int32_t xcc_cpu_level(void) {
  int level = atomic_load_explicit(&cpu_level, memory_order_relaxed);
  if (level >= 0)
    return level;
  level = detect_cpu_level();
  const char *env = getenv("XCC_CPU_LEVEL");
  if (env && *env) {
    int pinned = atoi(env);
    if (pinned >= 1 && pinned < level)
      level = pinned;
  }
  atomic_store_explicit(&cpu_level, level, memory_order_relaxed);
  return level;
}

/* bfloat16 narrowing. LLVM turns some f32 computations on bf16 data into bf16 operations (a
   maximum of two widened bf16 values is exact in bf16), and on CPUs without bf16 arithmetic it
   lowers those with calls to __truncsfbf2 and __truncdfbf2, which compiler-rt and libgcc 13 or
   later define and older libgccs do not. Weak, so a toolchain's own definitions win. Rounds to
   the nearest bf16, ties to even; a NaN stays a quiet NaN. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 13) /* the compilers with __bf16 */
__attribute__((weak)) __bf16 __truncsfbf2(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  uint16_t narrow = x != x ? (uint16_t)((bits >> 16) | 0x40) : (uint16_t)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
  __bf16 r;
  memcpy(&r, &narrow, sizeof r);
  return r;
}

__attribute__((weak)) __bf16 __truncdfbf2(double x) { return __truncsfbf2((float)x); }
#endif
