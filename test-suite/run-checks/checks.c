/* Checked runs of the model `rc` (built by tests/run_checks.rs):
     y = Relu(Gather(table, ids))                    table float[V][D], ids int64[N]
     z = GatherElements(table, pos, axis=1)          pos int64[V][K]
     w = GatherND(table, tuples)                     tuples int64[T][2]
     s = ScatterND(table, rows, row_updates)         rows int64[R][1], row_updates float[R][D]
     t = ScatterElements(table, pos, pos_updates, axis=1, reduction=add)   pos_updates float[V][K]
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
#define T 16
#define R 4
#define CANARY 64

#include "check.h"

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
static int64_t ids[N], pos[V * K], tuples[T * 2], rows[R];
static float row_updates[R * D], pos_updates[V * K];
static float *y, *z, *w, *s, *t;
static float y_ref[N * D], z_ref[V * K], w_ref[T], s_ref[V * D], t_ref[V * D];
/* The argument lists of a run, in the header's order. */
#define INPUTS table, ids, pos, tuples, rows, row_updates, pos_updates
#define OUTPUTS_ y, z, w, s, t
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
  for (int i = 0; i < T; i++)
    w_ref[i] = table[wrap(tuples[2 * i], V) * D + wrap(tuples[2 * i + 1], D)];
  memcpy(s_ref, table, sizeof s_ref);
  for (int i = 0; i < R; i++)
    memcpy(&s_ref[wrap(rows[i], V) * D], &row_updates[i * D], sizeof(float) * D);
  memcpy(t_ref, table, sizeof t_ref);
  for (int i = 0; i < V; i++)
    for (int k = 0; k < K; k++)
      t_ref[i * D + wrap(pos[i * K + k], D)] += pos_updates[i * K + k];
}

static void valid_indices(void) {
  for (int i = 0; i < N; i++)
    ids[i] = (i * 37 + 5) % V - (i % 3 == 0 ? V : 0); /* every third one negative */
  for (int i = 0; i < V * K; i++)
    pos[i] = (i * 101 + 7) % D - (i % 2 ? D : 0);
  for (int i = 0; i < T; i++) {
    tuples[2 * i] = (i * 13) % V - (i % 4 == 1 ? V : 0);
    tuples[2 * i + 1] = (i * 211 + 3) % D - (i % 4 == 2 ? D : 0);
  }
  for (int i = 0; i < R; i++)
    rows[i] = (i * 17 + 2) % V - (i == 3 ? V : 0); /* distinct rows: ScatterND without reduction */
}

/* The outputs, their references and sizes. */
#define OUTPUTS 5
static float **outs[OUTPUTS] = {&y, &z, &w, &s, &t};
static const float *refs[OUTPUTS] = {y_ref, z_ref, w_ref, s_ref, t_ref};
static const size_t out_bytes[OUTPUTS] = {sizeof y_ref, sizeof z_ref, sizeof w_ref, sizeof s_ref, sizeof t_ref};

static int outputs_match(void) {
  for (int o = 0; o < OUTPUTS; o++)
    if (memcmp(*outs[o], refs[o], out_bytes[o]) != 0) {
      printf("output %d differs\n", o);
      return 0;
    }
  return 1;
}

static int fences(void) {
  for (int o = 0; o < OUTPUTS; o++)
    if (!fences_intact((unsigned char *)*outs[o], out_bytes[o]))
      return 0;
  return fences_intact(workspace, ws_bytes);
}

static void poison_outputs(void) {
  for (int o = 0; o < OUTPUTS; o++)
    memset(*outs[o], 0x5A, out_bytes[o]);
}

static int outputs_poisoned(void) {
  for (int o = 0; o < OUTPUTS; o++)
    for (size_t i = 0; i < out_bytes[o]; i++)
      if (((unsigned char *)*outs[o])[i] != 0x5A)
        return 0;
  return 1;
}

/* The arguments of one run (the tensors in the header's order, then the workspace), so that a
   check can replace one of them. */
#define TENSORS 12
typedef struct {
  void *p[TENSORS + 1];
} args;

static args valid_args(void) {
  args a = {{table, ids, pos, tuples, rows, row_updates, pos_updates, y, z, w, s, t, workspace}};
  return a;
}

static int32_t run_args(args a) {
  return rc_run(a.p[0], a.p[1], a.p[2], a.p[3], a.p[4], a.p[5], a.p[6], a.p[7], a.p[8], a.p[9], a.p[10], a.p[11],
                a.p[TENSORS]);
}

static int32_t run(void) { return run_args(valid_args()); }

/* One bad index at a time, in ids (Gather) or pos (GatherElements). */
static void bad_index(int64_t *where, int64_t value, const char *what) {
  int64_t saved = *where;
  *where = value;
  poison_outputs();
  int32_t status = run();
  CHECK(status == XCC_ERROR_INDEX_OUT_OF_RANGE, "%s = %lld: status %d", what, (long long)value, status);
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
  for (int o = 0; o < OUTPUTS; o++)
    *outs[o] = (float *)fenced(out_bytes[o]);
  for (int i = 0; i < R * D; i++)
    row_updates[i] = (float)(i % 97) - 48.0f;
  for (int i = 0; i < V * K; i++)
    pos_updates[i] = (float)(i % 13) * 0.5f;
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
  bad_index(&tuples[4], V, "tuples[2][0] (GatherND, the row)");
  bad_index(&tuples[9], -D - 1, "tuples[4][1] (GatherND, the column)");
  bad_index(&rows[1], V, "rows[1] (ScatterND)");
  bad_index(&rows[3], (int64_t)1 << 50, "rows[3] (ScatterND)");
  /* The status belongs to one run: the next valid run succeeds. */
  CHECK(run() == XCC_OK && outputs_match() && fences(), "a valid run after failed ones");

  poison_outputs();
  args a;
  for (int k = 0; k < TENSORS; k++) {
    char what[32];
    snprintf(what, sizeof what, "NULL tensor %d", k);
    a = valid_args();
    a.p[k] = NULL;
    refused(run_args(a), XCC_ERROR_NULL_TENSOR, what);
  }
  a = valid_args();
  a.p[TENSORS] = NULL;
  refused(run_args(a), XCC_ERROR_NULL_WORKSPACE, "NULL workspace");
  a.p[TENSORS] = workspace + 8;
  refused(run_args(a), XCC_ERROR_WORKSPACE_MISALIGNED, "workspace + 8");
  /* NULL tensors are reported before the workspace. */
  a.p[TENSORS] = NULL;
  a.p[2] = NULL;
  refused(run_args(a), XCC_ERROR_NULL_TENSOR, "NULL pos and workspace");

  xcc_run_options options = {0};
  options.workspace_size = ws_bytes - 1;
  refused(rc_run_with(INPUTS, OUTPUTS_, workspace, &options), XCC_ERROR_WORKSPACE_TOO_SMALL, "one byte short");
  options.workspace_size = ws_bytes;
  CHECK(rc_run_with(INPUTS, OUTPUTS_, workspace, &options) == XCC_OK && outputs_match() && fences(),
        "run_with, workspace of the exact size");
  poison_outputs();
  CHECK(rc_run_with(INPUTS, OUTPUTS_, workspace, NULL) == XCC_OK && outputs_match(), "run_with, NULL options");

  poison_outputs();
  fail_allocations = 1;
  refused(rc_run_alloc(INPUTS, OUTPUTS_), XCC_ERROR_OUT_OF_MEMORY, "run_alloc, allocation fails");
  fail_allocations = 0;
  CHECK(rc_run_alloc(INPUTS, OUTPUTS_) == XCC_OK && outputs_match(), "run_alloc");
  CHECK(rc_run_alloc(table, ids, NULL, tuples, rows, row_updates, pos_updates, OUTPUTS_) == XCC_ERROR_NULL_TENSOR, "run_alloc, NULL pos");
  ids[2] = V;
  CHECK(rc_run_alloc(INPUTS, OUTPUTS_) == XCC_ERROR_INDEX_OUT_OF_RANGE, "run_alloc, bad index");
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
