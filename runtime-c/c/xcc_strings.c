/* runtime-c: STRING tensors: the per-run arena, casts to and from numbers, StringSplit, StringNormalizer and lookups. */
#include "xcc_internal.h"

/* ---- strings ------------------------------------------------------------
 * A STRING tensor is an array of `const char *`, each a NUL-terminated UTF-8 string. The strings
 * a run makes (concatenations, split parts, case changes) are carved from an arena that is
 * current on the calling thread between xcc_strings_enter and xcc_strings_leave, which frees
 * it: a run makes any number of strings without a free per string, and a failed allocation
 * surfaces once, as the run's status. Before leaving, NAME_run gives each string of its STRING
 * outputs a malloc block of its own (xcc_strings_export), which the caller frees with free().
 * The generated code calls the functions below from serial loops on the thread that entered. */

struct xcc_string_block {
  struct xcc_string_block *next;
  size_t used, size;
  char bytes[];
};

/* An output array xcc_strings_export filled, so that a run failing after it is undone. */
struct xcc_string_export {
  const char **strings;
  int64_t n;
  struct xcc_string_export *next;
};

struct xcc_string_arena {
  struct xcc_string_block *blocks;
  struct xcc_string_export *exports;
  int failed;
};

static _Thread_local struct xcc_string_arena *current_strings;
/* The arena of a thread whose own could not be allocated: every allocation from it fails. */
static _Thread_local struct xcc_string_arena failed_strings = {NULL, NULL, 1};

XCC_DEF void *xcc_strings_enter(void) {
  struct xcc_string_arena *previous = current_strings;
  struct xcc_string_arena *arena = calloc(1, sizeof *arena);
  current_strings = arena ? arena : &failed_strings;
  return previous;
}

XCC_DEF int32_t xcc_strings_leave(void *previous, int32_t rc) {
  struct xcc_string_arena *arena = current_strings;
  if (arena && arena->failed && rc == XCC_OK)
    rc = XCC_ERROR_OUT_OF_MEMORY;
  /* A failed run gives the caller no strings: those already exported go back. */
  for (struct xcc_string_export *x = arena && rc != XCC_OK ? arena->exports : NULL; x; x = x->next) {
    for (int64_t i = 0; i < x->n; i++) {
      free((void *)x->strings[i]);
      x->strings[i] = NULL;
    }
  }
  if (arena && arena != &failed_strings) {
    for (struct xcc_string_block *b = arena->blocks; b;) {
      struct xcc_string_block *next = b->next;
      free(b);
      b = next;
    }
    free(arena);
  }
  current_strings = previous;
  return rc;
}

/* `bytes` bytes from the current arena; "" (a string that is never written) when none is
 * current or the allocation fails, which the arena records for xcc_strings_leave. */
static char *string_bytes(size_t bytes) {
  static const char empty[1];
  struct xcc_string_arena *arena = current_strings;
  if (!arena || arena->failed)
    goto failed;
  /* At a multiple of 8, for the export records among the strings. */
  struct xcc_string_block *b = arena->blocks;
  size_t at = b ? (b->used + 7) & ~(size_t)7 : 0;
  if (!b || at > b->size || b->size - at < bytes) {
    size_t size = bytes > 4096 ? bytes : 4096;
    b = malloc(sizeof *b + size);
    if (!b)
      goto failed;
    b->next = arena->blocks;
    b->size = size;
    arena->blocks = b;
    at = 0;
  }
  b->used = at + bytes;
  return b->bytes + at;
failed:
  if (arena)
    arena->failed = 1;
  return (char *)empty;
}

/* Whether the current arena could not give the last string its bytes (or there is none). */
static int arena_failed(void) { return !current_strings || current_strings->failed; }

/* A copy of `n` bytes at `s`, NUL-terminated, in the arena. */
static const char *string_copy(const char *s, size_t n) {
  char *p = string_bytes(n + 1);
  if (arena_failed())
    return p;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

XCC_DEF int32_t xcc_strings_export(const char **strings, int64_t n, int32_t rc) {
  struct xcc_string_export *record = rc == XCC_OK && !arena_failed() ? (void *)string_bytes(sizeof *record) : NULL;
  if (rc != XCC_OK || arena_failed()) {
    for (int64_t i = 0; i < n; i++)
      strings[i] = NULL;
    return rc != XCC_OK ? rc : XCC_ERROR_OUT_OF_MEMORY;
  }
  for (int64_t i = 0; i < n; i++) {
    size_t len = strlen(strings[i]) + 1;
    char *copy = malloc(len);
    if (!copy) {
      for (int64_t j = 0; j < i; j++) {
        free((void *)strings[j]);
        strings[j] = NULL;
      }
      for (int64_t j = i; j < n; j++)
        strings[j] = NULL;
      return XCC_ERROR_OUT_OF_MEMORY;
    }
    memcpy(copy, strings[i], len);
    strings[i] = copy;
  }
  record->strings = strings;
  record->n = n;
  record->next = current_strings->exports;
  current_strings->exports = record;
  return XCC_OK;
}

XCC_DEF int32_t xcc_strings_check(const char *const *strings, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (!strings[i])
      return XCC_ERROR_NULL_TENSOR;
  return XCC_OK;
}

XCC_DEF const char *xcc_string_concat(const char *a, const char *b) {
  size_t na = strlen(a), nb = strlen(b);
  char *p = string_bytes(na + nb + 1);
  if (arena_failed())
    return p;
  memcpy(p, a, na);
  memcpy(p + na, b, nb + 1);
  return p;
}

XCC_DEF int32_t xcc_string_equal(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* ---- Cast between strings and numbers ------------------------------------------------------ */

/* C's strtod (in the process's LC_NUMERIC locale, "C" unless the program sets one): leading
 * whitespace, then the longest prefix that reads as a number ("3abc" is 3; "inf", "infinity",
 * "nan" and hex in any case). A string with no such prefix, or one past the double range or
 * below its normal numbers (strtod's ERANGE: "1e400", "1e-310"), sets XCC_ERROR_NOT_A_NUMBER, as
 * ONNX Runtime's std::stod fails its run; the narrower float types then round the double. */
XCC_DEF double xcc_string_to_f64(const char *s, int32_t *status) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || errno == ERANGE)
    fail_status(status, XCC_ERROR_NOT_A_NUMBER);
  return v;
}

/* strtoll in base 10 ("2.7" is 2, "1e3" is 1); no digits or a value outside int64 sets
 * XCC_ERROR_NOT_A_NUMBER. The narrower integer types wrap the result, as Cast between them does. */
XCC_DEF int64_t xcc_string_to_i64(const char *s, int32_t *status) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || errno == ERANGE)
    fail_status(status, XCC_ERROR_NOT_A_NUMBER);
  return (int64_t)v;
}

/* strtoull in base 10, so that "-1" is 2^64 - 1 (as ONNX Runtime's std::stoull). */
XCC_DEF uint64_t xcc_string_to_u64(const char *s, int32_t *status) {
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || errno == ERANGE)
    fail_status(status, XCC_ERROR_NOT_A_NUMBER);
  return (uint64_t)v;
}

/* `text` copied into the arena. */
static const char *arena_string(const char *text) { return string_copy(text, strlen(text)); }

/* Eight significant digits ("%.8g": "0.33333334", "1e+20", "-0"; the decimal point of the
 * process's LC_NUMERIC locale), "NaN", "INF" and "-INF": what ONNX Runtime writes for every float
 * type. */
XCC_DEF const char *xcc_string_of_f64(double v) {
  char text[40];
  if (isnan(v))
    return arena_string("NaN");
  if (isinf(v))
    return arena_string(v < 0 ? "-INF" : "INF");
  snprintf(text, sizeof text, "%.8g", v);
  return arena_string(text);
}

XCC_DEF const char *xcc_string_of_i64(int64_t v) {
  char text[24];
  snprintf(text, sizeof text, "%" PRId64, v);
  return arena_string(text);
}

XCC_DEF const char *xcc_string_of_u64(uint64_t v) {
  char text[24];
  snprintf(text, sizeof text, "%" PRIu64, v);
  return arena_string(text);
}

/* ---- StringSplit: Python's str.split ---------------------------------------------------- */

/* One part of Python's str.split from `s`: split at `delim`, or, for an empty one, at runs of
 * whitespace (none at either end: *start is NULL where only whitespace is left); `last` takes
 * the rest whole (maxsplit reached). Returns where the next part's text starts, or NULL when the
 * string is done. Each call reads only as far as its part, so a whole split is one pass. */
static const char *next_part(const char *s, const char *delim, int last, const char **start, size_t *len) {
  size_t dn = strlen(delim);
  if (dn == 0) {
    while (is_space(*s))
      s++;
    if (!*s) {
      *start = NULL;
      *len = 0;
      return NULL;
    }
  }
  const char *end = last ? NULL : dn ? strstr(s, delim) : s;
  if (!last && !dn)
    while (*end && !is_space(*end))
      end++;
  if (!end)
    end = s + strlen(s);
  *start = s;
  *len = (size_t)(end - s);
  if (last || !*end)
    return NULL;
  return end + dn;
}

XCC_DEF int64_t xcc_string_split_count(const char *s, const char *delim, int64_t maxsplit) {
  int64_t count = 0;
  while (s) {
    const char *start;
    size_t len;
    s = next_part(s, delim, maxsplit >= 0 && count == maxsplit, &start, &len);
    count += start != NULL;
  }
  return count;
}

XCC_DEF const char *xcc_string_split_next(const char **cursor, const char *delim, int32_t last) {
  const char *start = NULL;
  size_t len = 0;
  if (*cursor)
    *cursor = next_part(*cursor, delim, last, &start, &len);
  return start ? string_copy(start, len) : "";
}

XCC_DEF int64_t xcc_strings_split_max(const char *const *x, int64_t n, const char *delim, int64_t maxsplit) {
  int64_t most = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!x[i])
      return -1;
    int64_t c = xcc_string_split_count(x[i], delim, maxsplit);
    most = c > most ? c : most;
  }
  return most;
}

/* ---- StringNormalizer ---------------------------------------------------------------------- */

/* The code point `c` in the other case, for ASCII, Latin-1, Greek and Cyrillic letters (the
 * changes that keep a UTF-8 sequence's length); any other code point unchanged. */
static unsigned change_case(unsigned c, int upper) {
  struct range {
    unsigned lower, upper, n;
  };
  static const struct range ranges[] = {
      {0x61, 0x41, 26}, {0xE0, 0xC0, 23}, {0xF8, 0xD8, 7}, {0x3B1, 0x391, 17},
      {0x3C3, 0x3A3, 9}, {0x430, 0x410, 32}, {0x450, 0x400, 16},
  };
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
    unsigned from = upper ? ranges[i].lower : ranges[i].upper, to = upper ? ranges[i].upper : ranges[i].lower;
    if (c >= from && c < from + ranges[i].n)
      return c - from + to;
  }
  return c;
}

/* `s` with its letters changed in place (upper or lower case); other bytes untouched. */
static void change_case_in_place(char *s, int upper) {
  unsigned char *p = (unsigned char *)s;
  while (*p) {
    if (*p < 0x80) {
      *p = (unsigned char)change_case(*p, upper);
      p++;
    } else if ((p[0] & 0xE0) == 0xC0 && (p[1] & 0xC0) == 0x80) {
      unsigned c = change_case(((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu), upper);
      if (c >= 0x80 && c < 0x800) {
        p[0] = (unsigned char)(0xC0 | (c >> 6));
        p[1] = (unsigned char)(0x80 | (c & 0x3F));
      }
      p += 2;
    } else {
      p++;
    }
  }
}

XCC_DEF const char *xcc_string_change_case(const char *s, int32_t upper) {
  size_t n = strlen(s);
  const char *copy = string_copy(s, n);
  if (!arena_failed())
    change_case_in_place((char *)copy, upper);
  return copy;
}

/* The code point at *p (one or two UTF-8 bytes; any other byte as itself), *p moved past it. */
static unsigned next_code_point(const unsigned char **p) {
  const unsigned char *q = *p;
  if ((q[0] & 0xE0) == 0xC0 && (q[1] & 0xC0) == 0x80) {
    *p += 2;
    return ((q[0] & 0x1Fu) << 6) | (q[1] & 0x3Fu);
  }
  *p += 1;
  return q[0];
}

/* Whether a and b are one string in lower case (letter by letter, as change_case lowers). */
static int same_in_lower_case(const char *a, const char *b) {
  const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
  while (*p && *q)
    if (change_case(next_code_point(&p), 0) != change_case(next_code_point(&q), 0))
      return 0;
  return !*p && !*q;
}

/* Whether `s` is one of the `count` NUL-separated strings at `list`, compared in lower case
 * unless case_sensitive. */
XCC_DEF int32_t xcc_string_in_list(const char *s, const char *list, int64_t count, int32_t case_sensitive) {
  for (int64_t i = 0; i < count; i++, list += strlen(list) + 1)
    if (case_sensitive ? strcmp(s, list) == 0 : same_in_lower_case(s, list))
      return 1;
  return 0;
}

XCC_DEF int64_t xcc_strings_count_kept(const char *const *x, int64_t n, const char *list, int64_t count,
                                       int32_t case_sensitive) {
  int64_t kept = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!x[i])
      return -1;
    kept += !xcc_string_in_list(x[i], list, count, case_sensitive);
  }
  return kept;
}

/* ---- lookups ------------------------------------------------------------------------------- */

/* The position of `s` among the `count` NUL-separated strings at `list`, or -1. */
XCC_DEF int64_t xcc_string_find(const char *s, const char *list, int64_t count) {
  for (int64_t i = 0; i < count; i++, list += strlen(list) + 1)
    if (strcmp(s, list) == 0)
      return i;
  return -1;
}

/* RegexFullMatch: walks a DFA xcc built at compile time over the bytes of `s`; `next` has 256
 * entries per state, `accepts[state]` says whether the text may end there. */
XCC_DEF int32_t xcc_string_dfa_match(const char *s, const int32_t *next, const uint8_t *accepts, int32_t start) {
  int32_t state = start;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    state = next[(int64_t)state * 256 + *p];
  return accepts[state];
}
