/* Checked runs of the model `rc` (built by tests/run_checks.rs):
     y = Relu(Gather(table, ids))            table float[V][D], ids int64[N]
     z = GatherElements(table, pos, axis=1)  pos int64[V][K]
   Every run must return the documented xcc_status and never touch memory outside its buffers:
   `table` sits between two PROT_NONE pages (an out-of-range row read faults), the outputs and
   the workspace are surrounded by canary bytes that must survive, and a run refused before it
   starts leaves the outputs as they were. The reference is computed here, from the ONNX
   definitions. Prints "ok: N checks". */
#include "rc.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define V 64
#define D 512
#define N 64
#define K 2
#define CANARY 64

static int checks, failures;
#define CHECK(cond, ...)                                                                                              \
  do {                                                                                                                \
    checks++;                                                                                                         \
    if (!(cond)) {                                                                                                    \
      failures++;                                                                                                     \
      printf("FAIL line %d: ", __LINE__);                                                                             \
      printf(__VA_ARGS__);                                                                                            \
      printf("\n");                                                                                                   \
    }                                                                                                                 \
  } while (0)

/* A failing allocator for NAME_run_alloc (linked with -Wl,--wrap=xcc_alloc). */
static int fail_allocations;
void *__real_xcc_alloc(int64_t bytes, int64_t alignment);
void *__wrap_xcc_alloc(int64_t bytes, int64_t alignment) {
  return fail_allocations ? NULL : __real_xcc_alloc(bytes, alignment);
}

/* `bytes` (a multiple of the page size) with an inaccessible page right before and after. */
static void *guarded(size_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  char *base = mmap(NULL, bytes + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED || mprotect(base, page, PROT_NONE) || mprotect(base + page + bytes, page, PROT_NONE)) {
    perror("mmap");
    exit(2);
  }
  return base + page;
}

/* `bytes` with CANARY bytes of 0xA5 on each side, 64-byte aligned. */
static unsigned char *fenced(size_t bytes) {
  unsigned char *p = aligned_alloc(64, (bytes + 2 * CANARY + 63) / 64 * 64);
  memset(p, 0xA5, bytes + 2 * CANARY);
  return p + CANARY;
}

static int fences_intact(const unsigned char *p, size_t bytes) {
  for (size_t i = 0; i < CANARY; i++)
    if (p[-1 - (ptrdiff_t)i] != 0xA5 || p[bytes + i] != 0xA5)
      return 0;
  return 1;
}

static float *table;
static int64_t ids[N], pos[V * K];
static float *y, *z, y_ref[N * D], z_ref[V * K];
static unsigned char *workspace;
static size_t ws_bytes;

static int64_t wrap(int64_t i, int64_t dim) { return i < 0 ? i + dim : i; }

static void reference(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < D; j++) {
      float v = table[wrap(ids[i], V) * D + j];
      y_ref[i * D + j] = v > 0 ? v : 0;
    }
  for (int i = 0; i < V; i++)
    for (int k = 0; k < K; k++)
      z_ref[i * K + k] = table[i * D + wrap(pos[i * K + k], D)];
}

static void valid_indices(void) {
  for (int i = 0; i < N; i++)
    ids[i] = (i * 37 + 5) % V - (i % 3 == 0 ? V : 0); /* every third one negative */
  for (int i = 0; i < V * K; i++)
    pos[i] = (i * 101 + 7) % D - (i % 2 ? D : 0);
}

static int outputs_match(void) {
  return memcmp(y, y_ref, sizeof y_ref) == 0 && memcmp(z, z_ref, sizeof z_ref) == 0;
}

static int fences(void) {
  return fences_intact((unsigned char *)y, sizeof y_ref) && fences_intact((unsigned char *)z, sizeof z_ref) &&
         fences_intact(workspace, ws_bytes);
}

static void poison_outputs(void) {
  memset(y, 0x5A, sizeof y_ref);
  memset(z, 0x5A, sizeof z_ref);
}

static int outputs_poisoned(void) {
  for (size_t i = 0; i < sizeof y_ref; i++)
    if (((unsigned char *)y)[i] != 0x5A)
      return 0;
  for (size_t i = 0; i < sizeof z_ref; i++)
    if (((unsigned char *)z)[i] != 0x5A)
      return 0;
  return 1;
}

static int32_t run(void) { return rc_run(table, ids, pos, y, z, workspace); }

/* One bad index at a time, in ids (Gather) or pos (GatherElements). */
static void bad_index(int64_t *where, int64_t value, const char *what) {
  int64_t saved = *where;
  *where = value;
  poison_outputs();
  int32_t s = run();
  CHECK(s == XCC_ERROR_INDEX_OUT_OF_RANGE, "%s = %lld: status %d", what, (long long)value, s);
  CHECK(fences(), "%s = %lld: a write outside the buffers", what, (long long)value);
  *where = saved;
}

/* A run refused before it starts: the status, and outputs and workspace untouched. */
static void refused(int32_t got, int32_t want, const char *what) {
  CHECK(got == want, "%s: status %d, want %d (%s)", what, got, want, xcc_status_message(got));
  CHECK(outputs_poisoned() && fences(), "%s: the refused run wrote", what);
}

int main(void) {
  table = guarded(sizeof(float) * V * D);
  for (int i = 0; i < V * D; i++)
    table[i] = (float)((i * 7919) % 2001 - 1000) / 100.0f;
  y = (float *)fenced(sizeof y_ref);
  z = (float *)fenced(sizeof z_ref);
  ws_bytes = rc_workspace_size();
  workspace = fenced(ws_bytes);
  CHECK(ws_bytes > 0, "the model should need a workspace (Gather's result is an intermediate)");
  CHECK(ws_bytes == RC_WORKSPACE_SIZE, "rc_workspace_size() %zu, RC_WORKSPACE_SIZE %zu", ws_bytes,
        (size_t)RC_WORKSPACE_SIZE);

  valid_indices();
  reference();
  CHECK(run() == XCC_OK && outputs_match() && fences(), "a valid run (negative indices included)");

  bad_index(&ids[5], V, "ids[5] (one past the end)");
  bad_index(&ids[0], -V - 1, "ids[0] (one before the start)");
  bad_index(&ids[N - 1], (int64_t)1 << 40, "ids[N-1]");
  bad_index(&ids[7], INT64_MIN, "ids[7]");
  bad_index(&ids[9], INT64_MAX, "ids[9]");
  bad_index(&pos[3 * K + 1], D, "pos[3][1]");
  bad_index(&pos[0], -D - 1, "pos[0][0]");
  /* The status belongs to one run: the next valid run succeeds. */
  CHECK(run() == XCC_OK && outputs_match() && fences(), "a valid run after failed ones");

  poison_outputs();
  refused(rc_run(NULL, ids, pos, y, z, workspace), XCC_ERROR_NULL_TENSOR, "NULL table");
  refused(rc_run(table, NULL, pos, y, z, workspace), XCC_ERROR_NULL_TENSOR, "NULL ids");
  refused(rc_run(table, ids, pos, NULL, z, workspace), XCC_ERROR_NULL_TENSOR, "NULL y");
  refused(rc_run(table, ids, pos, y, NULL, workspace), XCC_ERROR_NULL_TENSOR, "NULL z");
  refused(rc_run(table, ids, pos, y, z, NULL), XCC_ERROR_NULL_WORKSPACE, "NULL workspace");
  refused(rc_run(table, ids, pos, y, z, workspace + 8), XCC_ERROR_WORKSPACE_MISALIGNED, "workspace + 8");
  /* NULL tensors are reported before the workspace. */
  refused(rc_run(table, ids, NULL, y, z, NULL), XCC_ERROR_NULL_TENSOR, "NULL pos and workspace");

  xcc_run_options options = {0};
  options.workspace_size = ws_bytes - 1;
  refused(rc_run_with(table, ids, pos, y, z, workspace, &options), XCC_ERROR_WORKSPACE_TOO_SMALL, "one byte short");
  options.workspace_size = ws_bytes;
  CHECK(rc_run_with(table, ids, pos, y, z, workspace, &options) == XCC_OK && outputs_match() && fences(),
        "run_with, workspace of the exact size");
  poison_outputs();
  CHECK(rc_run_with(table, ids, pos, y, z, workspace, NULL) == XCC_OK && outputs_match(), "run_with, NULL options");

  poison_outputs();
  fail_allocations = 1;
  refused(rc_run_alloc(table, ids, pos, y, z), XCC_ERROR_OUT_OF_MEMORY, "run_alloc, allocation fails");
  fail_allocations = 0;
  CHECK(rc_run_alloc(table, ids, pos, y, z) == XCC_OK && outputs_match(), "run_alloc");
  CHECK(rc_run_alloc(table, ids, NULL, y, z) == XCC_ERROR_NULL_TENSOR, "run_alloc, NULL pos");
  ids[2] = V;
  CHECK(rc_run_alloc(table, ids, pos, y, z) == XCC_ERROR_INDEX_OUT_OF_RANGE, "run_alloc, bad index");
  ids[2] = 0;

  /* Every status has its own sentence; unknown codes get one too. */
  for (int32_t a = XCC_OK; a <= XCC_ERROR_OUT_OF_MEMORY; a++) {
    CHECK(strlen(xcc_status_message(a)) > 0 && strstr(xcc_status_message(a), "unknown") == NULL, "message %d", a);
    for (int32_t b = XCC_OK; b < a; b++)
      CHECK(strcmp(xcc_status_message(a), xcc_status_message(b)) != 0, "messages %d and %d", a, b);
  }
  CHECK(strstr(xcc_status_message(12345), "unknown") != NULL, "an unknown code");
  CHECK(strstr(xcc_status_message(XCC_ERROR_INDEX_OUT_OF_RANGE), "index") != NULL, "the index message");

  if (failures) {
    printf("%d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("ok: %d checks\n", checks);
  return 0;
}
