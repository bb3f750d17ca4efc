/* Drives the model tests/run_checks.rs builds from the random operators:
 *   draws.h: p float[3, M], x float[4, 5];
 *            u = RandomUniform([N], low -2, high 3, seed 7), n = RandomNormal([N], mean 1, scale 2,
 *            seed 7), d = RandomUniformLike(x, double, seed 3), b = Bernoulli(p, seed 11),
 *            m = Multinomial(log [0.2, 0.5, 0.3], S samples, int64, seed 5), v = RandomUniform([N])
 *            without a seed.
 * The oracle is Philox4x32-10 written here from the paper and checked on Random123's known
 * answers: each uniform is the one its element's counter gives under its seed's key (double
 * exactly, float to rounding), and the normals, Bernoulli draws and class counts have the
 * moments and frequencies they should (within 5 standard errors). A second run gives the same
 * bytes; the unseeded node draws another stream. Prints "ok N checks". */
#include "draws.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define N 100000
#define M 20000
#define S 30000

static void philox(const uint32_t in[4], const uint32_t key[2], uint32_t out[4]) {
  uint32_t c[4] = {in[0], in[1], in[2], in[3]}, k[2] = {key[0], key[1]};
  for (int r = 0; r < 10; r++) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
    uint32_t next[4] = {(uint32_t)(p1 >> 32) ^ c[1] ^ k[0], (uint32_t)p1, (uint32_t)(p0 >> 32) ^ c[3] ^ k[1],
                        (uint32_t)p0};
    memcpy(c, next, sizeof c);
    k[0] += 0x9E3779B9u;
    k[1] += 0xBB67AE85u;
  }
  memcpy(out, c, sizeof c);
}

/* The words of element `index` under the key of float seed `seed`. */
static void element(uint64_t index, float seed, uint32_t out[4]) {
  uint32_t key[2] = {0, 0}, counter[4] = {(uint32_t)index, (uint32_t)(index >> 32), 0, 0};
  memcpy(&key[0], &seed, 4);
  philox(counter, key, out);
}

static double mean_of(const float *v, int n) {
  double s = 0;
  for (int k = 0; k < n; k++) s += v[k];
  return s / n;
}

int main(void) {
  static float p[3 * M], x[20], u[N], n[N], b[3 * M], v[N], u_again[N];
  static double d[20];
  static int64_t m[S];
  const uint32_t zero_key[2] = {0, 0}, zero_counter[4] = {0, 0, 0, 0};
  uint32_t w[4];
  philox(zero_counter, zero_key, w);
  CHECK(w[0] == 0x6627e8d5u && w[1] == 0xe169c58du && w[2] == 0xbc57ac4cu && w[3] == 0x9b00dbd8u,
        "the reference Philox on the known answer");
  for (int k = 0; k < M; k++) {
    p[k] = 0.0f;
    p[M + k] = 1.0f;
    p[2 * M + k] = 0.3f;
  }
  for (int k = 0; k < 20; k++) x[k] = (float)k;
  size_t bytes = draws_workspace_size();
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  CHECK(draws_run(p, x, u, n, d, b, m, v, ws) == XCC_OK, "run");

  int first_off = -1;
  float got = 0, want = 0;
  for (int k = 0; k < N && first_off < 0; k++) {
    element((uint64_t)k, 7.0f, w);
    want = -2.0f + 5.0f * ((float)(w[0] >> 8) * (1.0f / 16777216.0f));
    got = u[k];
    if (fabsf(got - want) > 1e-6f) first_off = k;
  }
  CHECK(first_off < 0, "u[%d] = %.9g, Philox gives %.9g", first_off, got, want);
  for (int k = 0; k < 20; k++) {
    element((uint64_t)k, 3.0f, w);
    double want = ((double)(w[0] >> 5) * 67108864.0 + (double)(w[1] >> 6)) / 9007199254740992.0;
    CHECK(d[k] == want, "d[%d] = %.17g, Philox gives %.17g", k, d[k], want);
  }
  double mu = mean_of(u, N);
  CHECK(fabs(mu - 0.5) < 5 * 5.0 / sqrt(12.0 * N), "the uniforms' mean %g", mu);
  for (int k = 0; k < 8; k++) {
    element((uint64_t)k, 7.0f, w);
    float u1 = 1.0f - (float)(w[0] >> 8) / 16777216.0f, u2 = (float)(w[1] >> 8) / 16777216.0f;
    float want = 1.0f + 2.0f * sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2);
    CHECK(fabsf(n[k] - want) < 1e-4f * (1.0f + fabsf(want)), "n[%d] = %g, Box-Muller gives %g", k, n[k], want);
  }
  double nm = mean_of(n, N), var = 0;
  for (int k = 0; k < N; k++) var += (n[k] - nm) * (n[k] - nm);
  var /= N - 1;
  CHECK(fabs(nm - 1.0) < 5 * 2.0 / sqrt(N), "the normals' mean %g", nm);
  CHECK(fabs(var - 4.0) < 5 * 4.0 * sqrt(2.0 / N), "the normals' variance %g", var);

  double ones = 0;
  int zeros_ok = 1, ones_ok = 1;
  for (int k = 0; k < M; k++) {
    zeros_ok &= b[k] == 0.0f;
    ones_ok &= b[M + k] == 1.0f;
    ones += b[2 * M + k];
  }
  CHECK(zeros_ok && ones_ok, "a probability of 0 or 1 drew otherwise");
  CHECK(fabs(ones / M - 0.3) < 5 * sqrt(0.3 * 0.7 / M), "Bernoulli(0.3) drew %g", ones / M);

  const double probs[3] = {0.2, 0.5, 0.3};
  int counts[3] = {0, 0, 0}, in_range = 1;
  for (int k = 0; k < S; k++) {
    in_range &= m[k] >= 0 && m[k] < 3;
    if (m[k] >= 0 && m[k] < 3) counts[m[k]]++;
  }
  CHECK(in_range, "a class outside [0, 3)");
  for (int c = 0; c < 3; c++)
    CHECK(fabs((double)counts[c] / S - probs[c]) < 5 * sqrt(probs[c] * (1 - probs[c]) / S), "class %d drawn %g", c,
          (double)counts[c] / S);

  CHECK(memcmp(u, v, sizeof u) != 0, "the unseeded node drew the seeded one's stream");
  static float n_again[N], b_again[3 * M], v_again[N];
  static double d_again[20];
  static int64_t m_again[S];
  CHECK(draws_run(p, x, u_again, n_again, d_again, b_again, m_again, v_again, ws) == XCC_OK, "second run");
  CHECK(memcmp(u, u_again, sizeof u) == 0 && memcmp(n, n_again, sizeof n) == 0 && memcmp(d, d_again, sizeof d) == 0 &&
            memcmp(b, b_again, sizeof b) == 0 && memcmp(m, m_again, sizeof m) == 0 &&
            memcmp(v, v_again, sizeof v) == 0,
        "a second run drew other values");
  free(ws);
  printf("%s %d checks\n", failures ? "FAILED" : "ok", checks);
  return failures != 0;
}
