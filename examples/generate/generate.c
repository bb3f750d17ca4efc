/* A generation loop over a decoder compiled by xcc (make_model.py's decoder.onnx, compiled with
 * `xcc decoder.onnx --name decoder -o libdecoder.a`): the prompt runs once (past 0), then one
 * token a step, each step's present cache becoming the next step's past. Token ids in, token ids
 * out: tokenization stays the application's (pair it with a tokenizer library such as Hugging
 * Face's `tokenizers`, SentencePiece or tiktoken).
 *
 *   generate greedy MAX_NEW TOKEN...
 *   generate sample SEED TOP_K TOP_P TEMPERATURE MAX_NEW TOKEN...
 *
 * prints the new tokens. Sampling keeps the TOP_K likeliest tokens, then the fewest of those
 * whose probabilities reach TOP_P, and draws from them with a seeded generator (splitmix64), so
 * a seed gives the same tokens on every machine. */
#include "decoder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The model's sizes (make_model.py). */
enum { VOCAB = 96, LAYERS = 2, KV_HEADS = 2, HEAD = 16, MAX_TOKENS = 256 };

typedef struct {
  uint64_t state;
} rng;

static double uniform(rng *r) {
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

typedef struct {
  int token;
  double p;
} choice;

/* Likeliest first; ties by token id, so the order is the same everywhere. */
static int by_probability(const void *a, const void *b) {
  const choice *x = a, *y = b;
  if (x->p != y->p) return x->p < y->p ? 1 : -1;
  return x->token - y->token;
}

static int greedy(const float *logits) {
  int best = 0;
  for (int t = 1; t < VOCAB; t++)
    if (logits[t] > logits[best]) best = t;
  return best;
}

static int sample(const float *logits, int top_k, double top_p, double temperature, rng *r) {
  choice c[VOCAB];
  double most = -INFINITY, sum = 0;
  for (int t = 0; t < VOCAB; t++) most = fmax(most, logits[t] / temperature);
  for (int t = 0; t < VOCAB; t++) {
    c[t].token = t;
    c[t].p = exp(logits[t] / temperature - most);
    sum += c[t].p;
  }
  for (int t = 0; t < VOCAB; t++) c[t].p /= sum;
  qsort(c, VOCAB, sizeof c[0], by_probability);
  int kept = top_k < VOCAB ? top_k : VOCAB;
  double mass = 0;
  for (int i = 0; i < kept; i++) {
    mass += c[i].p;
    if (mass >= top_p) {
      kept = i + 1;
      break;
    }
  }
  double total = 0;
  for (int i = 0; i < kept; i++) total += c[i].p;
  double u = uniform(r) * total;
  for (int i = 0; i < kept - 1; i++) {
    if (u < c[i].p) return c[i].token;
    u -= c[i].p;
  }
  return c[kept - 1].token;
}

/* One run of the model over `seq` tokens after `past` cached ones: reads past[], writes
 * present[] and the logits. */
static int32_t step(int64_t seq, int64_t past, const int64_t *ids, float **pasts, float **presents, float *logits,
                    void **workspace, size_t *workspace_size) {
  size_t need = decoder_workspace_size(seq, past);
  if (need > *workspace_size) {
    free(*workspace);
    *workspace = aligned_alloc(64, (need + 63) / 64 * 64);
    if (!*workspace) return XCC_ERROR_OUT_OF_MEMORY;
    *workspace_size = need;
  }
  return decoder_run(seq, past, ids, pasts[0], pasts[1], pasts[2], pasts[3], logits, presents[0], presents[1],
                     presents[2], presents[3], *workspace);
}

int main(int argc, char **argv) {
  int sampled = argc > 1 && !strcmp(argv[1], "sample");
  int first = sampled ? 7 : 3;
  if (argc <= first || (!sampled && strcmp(argv[1], "greedy"))) {
    fprintf(stderr, "usage: %s greedy MAX_NEW TOKEN...\n       %s sample SEED TOP_K TOP_P TEMPERATURE MAX_NEW TOKEN...\n",
            argv[0], argv[0]);
    return 2;
  }
  rng r = {sampled ? strtoull(argv[2], NULL, 10) : 0};
  int top_k = sampled ? atoi(argv[3]) : 1;
  double top_p = sampled ? atof(argv[4]) : 1.0, temperature = sampled ? atof(argv[5]) : 1.0;
  int max_new = atoi(argv[first - 1]);
  int64_t prompt = argc - first;
  if (prompt + max_new > MAX_TOKENS || max_new < 1) {
    fprintf(stderr, "the prompt and the new tokens must fit %d positions\n", MAX_TOKENS);
    return 2;
  }
  int64_t ids[MAX_TOKENS];
  for (int64_t i = 0; i < prompt; i++) ids[i] = atoll(argv[first + i]);
  /* Two caches of the longest length per key and value of each layer: a step reads one and
     writes the other. */
  float *cache[2][2 * LAYERS];
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 2 * LAYERS; k++) cache[s][k] = calloc((size_t)KV_HEADS * MAX_TOKENS * HEAD, sizeof(float));
  float *logits = malloc((size_t)MAX_TOKENS * VOCAB * sizeof(float));
  void *workspace = NULL;
  size_t workspace_size = 0;
  int64_t past = 0, seq = prompt;
  const int64_t *input = ids;
  int current = 0;
  for (int n = 0; n < max_new; n++) {
    int32_t rc = step(seq, past, input, cache[current], cache[1 - current], logits, &workspace, &workspace_size);
    if (rc != XCC_OK) {
      fprintf(stderr, "decoder_run: %s\n", xcc_status_message(rc));
      return 1;
    }
    const float *last = logits + (size_t)(seq - 1) * VOCAB;
    int token = sampled ? sample(last, top_k, top_p, temperature, &r) : greedy(last);
    printf("%s%d", n ? " " : "", token);
    past += seq;
    ids[past] = token;
    input = &ids[past];
    seq = 1;
    current = 1 - current;
  }
  printf("\n");
  return 0;
}
