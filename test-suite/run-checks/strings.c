/* Drives the STRING models tests/run_checks.rs builds:
 *   words.h: x string[4]; c = StringConcat(x, "!"), e = Equal(x, ["ab", "x", "", "q"]),
 *            p, n = StringSplit(x, " "), m = RegexFullMatch(x, "[a-z]+( [a-z]+)*"),
 *            l = LabelEncoder(x: "a b" -> "two words", "ab" -> "one word", else "?"),
 *            k = LabelEncoder(x: "ab" -> 1, "" -> 2, "a b" -> 3, else -1), i = Identity(x).
 *   spaces.h: x string[3]; p, n = StringSplit(x, maxsplit 1) at whitespace.
 *   joined.h: x string[n], y string[1]; c = StringConcat(x, y), m = RegexFullMatch(c, "\\w+\\.\\w+").
 *   numbers.h: x string[3]; v = Cast(x, float), k = Cast(x, int64), t = Cast(v, string).
 *   counted.h: x string[n]; p, c = StringSplit(x, " "), k = StringNormalizer(x, stopwords "the",
 *              UPPER).
 * Every value is worked out by hand below. Each output string is the caller's, freed here (a leak
 * or a double free fails the AddressSanitizer build); the runs repeat; a NULL string is refused
 * (XCC_ERROR_NULL_TENSOR, the string outputs set to NULL; XCC_ERROR_BAD_SHAPE_INPUT where the run
 * measures the strings to size an output, as StringSplit does). Prints "ok N checks". */
#include "counted.h"
#include "joined.h"
#include "numbers.h"
#include "spaces.h"
#include "words.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SAME(a, b) ((a) && strcmp((a), (b)) == 0)

static void free_all(char **s, int n) {
  for (int k = 0; k < n; k++) free(s[k]);
}

static void words_checks(void *ws) {
  const char *x[4] = {"ab", "a b", "", "Hi there you"};
  int64_t c_dims[1], e_dims[1], p_dims[2], n_dims[1], m_dims[1], l_dims[1], k_dims[1], i_dims[1];
  CHECK(words_output_dims(x, c_dims, e_dims, p_dims, n_dims, m_dims, l_dims, k_dims, i_dims) == XCC_OK, "dims");
  CHECK(p_dims[0] == 4 && p_dims[1] == 3, "p's dims [%lld, %lld], expected [4, 3]", (long long)p_dims[0],
        (long long)p_dims[1]);
  for (int run = 0; run < 3; run++) {
    char *c[4], *p[12], *l[4], *i[4];
    bool e[4], m[4];
    int64_t n[4], k[4];
    CHECK(words_run(x, c, e, p, n, m, l, k, i, ws) == XCC_OK, "run %d", run);
    const char *want_c[4] = {"ab!", "a b!", "!", "Hi there you!"};
    const bool want_e[4] = {1, 0, 1, 0}, want_m[4] = {1, 1, 0, 0};
    const char *want_p[12] = {"ab", "", "", "a", "b", "", "", "", "", "Hi", "there", "you"};
    const int64_t want_n[4] = {1, 2, 1, 3}, want_k[4] = {1, 3, 2, -1};
    const char *want_l[4] = {"one word", "two words", "?", "?"};
    for (int j = 0; j < 4; j++) {
      CHECK(SAME(c[j], want_c[j]), "c[%d] = \"%s\", expected \"%s\"", j, c[j], want_c[j]);
      CHECK(e[j] == want_e[j], "e[%d] = %d", j, e[j]);
      CHECK(m[j] == want_m[j], "m[%d] = %d", j, m[j]);
      CHECK(n[j] == want_n[j], "n[%d] = %lld", j, (long long)n[j]);
      CHECK(k[j] == want_k[j], "k[%d] = %lld", j, (long long)k[j]);
      CHECK(SAME(l[j], want_l[j]), "l[%d] = \"%s\", expected \"%s\"", j, l[j], want_l[j]);
      CHECK(SAME(i[j], x[j]) && i[j] != x[j], "i[%d] = \"%s\": a copy of the input's", j, i[j]);
    }
    for (int j = 0; j < 12; j++) CHECK(SAME(p[j], want_p[j]), "p[%d] = \"%s\", expected \"%s\"", j, p[j], want_p[j]);
    free_all(c, 4);
    free_all(p, 12);
    free_all(l, 4);
    free_all(i, 4);
  }
  const char *bad[4] = {"ab", NULL, "", "x"};
  CHECK(words_output_dims(bad, c_dims, e_dims, p_dims, n_dims, m_dims, l_dims, k_dims, i_dims) ==
            XCC_ERROR_BAD_SHAPE_INPUT,
        "a NULL string measured for StringSplit");
}

static void joined_checks(void) {
  const char *x[3] = {"的", "new", "a.b"}, *y[1] = {".com"};
  for (int64_t n = 2; n <= 3; n++) {
    size_t bytes = joined_workspace_size(n);
    void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
    char *c[3] = {NULL, NULL, NULL};
    bool m[3];
    CHECK(joined_run(n, x, y, c, m, ws) == XCC_OK, "joined run, n = %lld", (long long)n);
    CHECK(SAME(c[0], "的.com") && SAME(c[1], "new.com"), "c = \"%s\", \"%s\"", c[0], c[1]);
    CHECK(!m[0] && m[1], "m = %d %d: \\w is ASCII's", m[0], m[1]);
    if (n == 3) CHECK(SAME(c[2], "a.b.com") && !m[2], "c[2] = \"%s\", m[2] = %d", c[2], m[2]);
    free_all(c, (int)n);
    const char *bad[3] = {"a", NULL, "b"};
    char *d[3] = {(char *)"stale", (char *)"stale", (char *)"stale"};
    CHECK(joined_run(n, bad, y, d, m, ws) == XCC_ERROR_NULL_TENSOR, "a NULL string");
    CHECK(d[0] == NULL && d[1] == NULL, "the outputs of a refused run are NULL");
    free(ws);
  }
}

/* Python's str.split(None, 1): leading whitespace skipped, the rest kept whole (its trailing
 * whitespace too), an all-space string no parts. */
static void spaces_checks(void) {
  const char *x[3] = {"a b  ", "  c", " \t "};
  int64_t p_dims[2], n_dims[1];
  CHECK(spaces_output_dims(x, p_dims, n_dims) == XCC_OK && p_dims[1] == 2, "spaces' dims");
  size_t bytes = spaces_workspace_size(x);
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  char *p[6];
  int64_t n[3];
  CHECK(spaces_run(x, p, n, ws) == XCC_OK, "spaces run");
  const char *want[6] = {"a", "b  ", "c", "", "", ""};
  for (int j = 0; j < 6; j++) CHECK(SAME(p[j], want[j]), "p[%d] = \"%s\", expected \"%s\"", j, p[j], want[j]);
  CHECK(n[0] == 2 && n[1] == 1 && n[2] == 0, "n = %lld %lld %lld", (long long)n[0], (long long)n[1], (long long)n[2]);
  free_all(p, 6);
  free(ws);
}

/* C's strtod and strtoll read the number at a string's start, after whitespace; a float is written
 * back with eight significant digits. A string with no number fails the run. */
static void numbers_checks(void) {
  size_t bytes = numbers_workspace_size();
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  const char *x[3] = {"1.5", " -2e3", "7abc"};
  float v[3];
  int64_t k[3];
  char *t[3];
  CHECK(numbers_run(x, v, k, t, ws) == XCC_OK, "numbers run");
  CHECK(v[0] == 1.5f && v[1] == -2000.0f && v[2] == 7.0f, "v = %g %g %g", v[0], v[1], v[2]);
  CHECK(k[0] == 1 && k[1] == -2 && k[2] == 7, "k = %lld %lld %lld", (long long)k[0], (long long)k[1],
        (long long)k[2]);
  CHECK(SAME(t[0], "1.5") && SAME(t[1], "-2000") && SAME(t[2], "7"), "t = \"%s\", \"%s\", \"%s\"", t[0], t[1],
        t[2]);
  free_all(t, 3);
  const char *bad[3] = {"1", "abc", "2"};
  char *u[3] = {(char *)"stale", (char *)"stale", (char *)"stale"};
  int32_t rc = numbers_run(bad, v, k, u, ws);
  CHECK(rc == XCC_ERROR_NOT_A_NUMBER, "\"abc\" as a number: run = %d (%s)", rc, xcc_status_message(rc));
  CHECK(u[0] == NULL && u[1] == NULL && u[2] == NULL, "the string outputs of a failed run are NULL");
  /* Past the double range, and below its normal numbers: strtod's ERANGE, as std::stod's. */
  const char *huge[3] = {"1", "1e400", "2"}, *tiny[3] = {"1e-310", "1", "2"};
  rc = numbers_run(huge, v, k, u, ws);
  CHECK(rc == XCC_ERROR_NOT_A_NUMBER, "\"1e400\": run = %d (%s)", rc, xcc_status_message(rc));
  rc = numbers_run(tiny, v, k, u, ws);
  CHECK(rc == XCC_ERROR_NOT_A_NUMBER, "\"1e-310\": run = %d (%s)", rc, xcc_status_message(rc));
  free(ws);
}

/* Split and normalized over two run-time lengths: the parts and the kept strings are sized by the
 * strings themselves. */
static void counted_checks(void) {
  const char *x[3] = {"the end", "the", "a b c"};
  for (int64_t n = 2; n <= 3; n++) {
    int64_t p_dims[2], c_dims[1], k_dims[1];
    CHECK(counted_output_dims(n, x, p_dims, c_dims, k_dims) == XCC_OK, "counted dims, n = %lld", (long long)n);
    int64_t parts = n == 3 ? 3 : 2, kept = n == 3 ? 2 : 1;
    CHECK(p_dims[0] == n && p_dims[1] == parts && c_dims[0] == n && k_dims[0] == kept,
          "n = %lld: p [%lld, %lld], k [%lld]", (long long)n, (long long)p_dims[0], (long long)p_dims[1],
          (long long)k_dims[0]);
    size_t bytes = counted_workspace_size(n, x);
    void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
    char *p[9], *k[3];
    int64_t c[3];
    CHECK(counted_run(n, x, p, c, k, ws) == XCC_OK, "counted run, n = %lld", (long long)n);
    CHECK(SAME(p[0], "the") && SAME(p[1], "end") && SAME(p[parts], "the") && c[0] == 2 && c[1] == 1,
          "n = %lld: p = %s %s, c = %lld %lld", (long long)n, p[0], p[1], (long long)c[0], (long long)c[1]);
    CHECK(SAME(k[0], "THE END"), "k[0] = %s", k[0]);
    if (n == 3) CHECK(SAME(k[1], "A B C") && c[2] == 3 && SAME(p[8], "c"), "n = 3: k[1] = %s", k[1]);
    free_all(p, (int)(n * parts));
    free_all(k, (int)kept);
    free(ws);
  }
}

int main(void) {
  const char *x[4] = {"ab", "a b", "", "Hi there you"};
  size_t bytes = words_workspace_size(x);
  void *ws = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  words_checks(ws);
  free(ws);
  joined_checks();
  spaces_checks();
  numbers_checks();
  counted_checks();
  printf("%s %d checks\n", failures ? "FAILED" : "ok", checks);
  return failures != 0;
}
