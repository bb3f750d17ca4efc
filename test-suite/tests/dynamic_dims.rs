//! Models with dims known only at run time: a BERT-style encoder over `x[batch, seq, 64]`, a
//! GPT-style decoder over token ids, positions and a causal mask `[seq, seq]`, the same decoder
//! as PyTorch exports it with dynamic axes (positions, mask and Reshape targets computed from
//! the ids' Shape inside the graph), a decoder step over a KV cache (`past` from 0, `seq` new
//! tokens), pooling over `seq` (reductions, ArgMax, TopK, an edge Pad, the first three tokens:
//! `min(3, seq)`, a dim the run computes), a Split of `seq` in two (`ceil(seq / 2)` and the
//! rest, empty at 1) with Gathers along it, an integer matmul over `batch x seq` rows
//! (QuantizeLinear, MatMulInteger by constant int8 weights), an If on `seq > 50` whose branches
//! give different lengths (the other branch's conditions unchecked), a small CNN over
//! `x[batch, 3, 16, 16]`, and a CNN
//! over images of any batch, height and width `x[batch, 3, height, width]` (strided and
//! depthwise convolutions, an instance norm, pools with pads and `ceil_mode`, a strided
//! residual block whose two branches must agree on their computed dims), upsampling such images
//! (Resize nearest by 0.5 and 1.5, then linear by 2, then a strided ConvTranspose), built with a
//! fixed seed by
//! `dynamic/make_models.py`. Each is compiled once, linked into one C program that runs
//! it at several sizes through one workspace sized for the largest, and compared with ONNX
//! Runtime run live at each size (1e-4 relative plus 1e-4 absolute). The program also checks
//! that no run writes past its output or its workspace (canaries), and that negative dims or
//! making a tensor over 2^44 bytes are refused with `XCC_ERROR_BAD_DIM` and a zero workspace
//! size. Seven models are compiled with ranges for their dims (`--dim seq=..512`, a `--shape`
//! with ranges): their program sizes the workspace with `NAME_workspace_size_max()`, checks
//! that it is the size at the maxima and that no run needs more, and that a dim past its range
//! is refused the same way. Skipped, with a message, where the project's venv with ONNX Runtime
//! is absent.

use libtest_mimic::Trial;
use std::path::{Path, PathBuf};
use std::process::Command;
use xcc_test_suite::{compare_f32, compile_timeout, read_f32, run_ok, run_trials, suite_dir, xcc_binary};

/// The sizes every model runs at: the issue's 1, 7, 128 and 512, and 45, whose rows are vectors
/// and a ragged end (five lanes of eight, then five elements; four row tiles and one row).
const LENGTHS: &[usize] = &[1, 7, 45, 128, 512];

/// The CNN's batches (the issue's; `make_models.py`'s CNN_BATCHES).
const BATCHES: &[usize] = &[1, 2, 8];

/// The image CNN's runs (`make_models.py`'s IMAGE_SIZES): height 8 to 64, width 64 to 8, batch
/// 2 at odd sizes.
const IMAGE_SIZES: &[usize] = &[8, 13, 31, 64];

fn repo() -> PathBuf {
    suite_dir().parent().unwrap().to_path_buf()
}

/// A command that must succeed (compiles, links and runs here take seconds; the compile
/// timeout bounds them all).
fn run(cmd: &mut Command, what: &str) -> Result<String, String> {
    run_ok(cmd, what, compile_timeout())
}

/// One model's inputs (their C element types, the header's parameter order) and the sizes it
/// runs at.
struct Model {
    name: &'static str,
    symbols: usize,
    inputs: &'static [&'static str],
    sizes: &'static [usize],
    /// Flags that give every symbol a range (none: the symbols are unbounded).
    ranges: &'static [&'static str],
}

const MODELS: &[Model] = &[
    Model { name: "encoder", symbols: 2, inputs: &["float"], sizes: LENGTHS, ranges: &["--shape", "x=1..2x1..512x64"] },
    Model {
        name: "decoder",
        symbols: 1,
        inputs: &["int64_t", "int64_t", "float"],
        sizes: LENGTHS,
        ranges: &["--dim", "seq=..512"],
    },
    Model { name: "exported", symbols: 2, inputs: &["int64_t"], sizes: LENGTHS, ranges: &[] },
    Model {
        name: "cached",
        symbols: 2,
        inputs: &["int64_t", "float", "float"],
        sizes: LENGTHS,
        ranges: &["--dim", "seq=..64", "--dim", "past=0..448"],
    },
    Model { name: "pooled", symbols: 2, inputs: &["float"], sizes: LENGTHS, ranges: &["--shape", "x=1..2x1..512x16"] },
    Model { name: "chunked", symbols: 2, inputs: &["float", "int64_t"], sizes: LENGTHS, ranges: &[] },
    Model { name: "quantized", symbols: 2, inputs: &["float"], sizes: LENGTHS, ranges: &[] },
    Model { name: "arith", symbols: 2, inputs: &["float"], sizes: LENGTHS, ranges: &[] },
    Model { name: "branched", symbols: 2, inputs: &["float"], sizes: LENGTHS, ranges: &[] },
    Model { name: "cnn", symbols: 1, inputs: &["float"], sizes: BATCHES, ranges: &["--dim", "batch=1..8"] },
    Model {
        name: "images",
        symbols: 3,
        inputs: &["float"],
        sizes: IMAGE_SIZES,
        ranges: &["--shape", "x=1..2x3x8..64x8..64"],
    },
    Model {
        name: "resized",
        symbols: 3,
        inputs: &["float"],
        sizes: IMAGE_SIZES,
        ranges: &["--shape", "x=1..2x2x8..64x8..64"],
    },
];

/// The C program: `prog DIR L...` reads `DIR/NAME.L.dims` and the inputs of each size, sizes one
/// workspace for the largest run, runs every size through it and writes `NAME.L.got.bin`.
fn harness(m: &Model, computed_dims: bool) -> String {
    let n = m.name;
    let syms: Vec<String> = (0..m.symbols).map(|k| format!("d[{k}]")).collect();
    let ins: Vec<String> = m.inputs.iter().enumerate().map(|(k, t)| format!("(const {t} *)in[{k}]")).collect();
    let negatives = vec!["-1"; m.symbols].join(", ");
    format!(
        r#"#include "{n}.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CANARY 256

static int intact(const unsigned char *p, size_t n) {{
  for (size_t i = 0; i < n; i++)
    if (p[i] != 0xA5) return 0;
  return 1;
}}

static void *slurp(const char *path) {{
  FILE *f = fopen(path, "rb");
  if (!f) {{ perror(path); exit(2); }}
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *p = malloc(size ? size : 1);
  if (fread(p, 1, size, f) != (size_t)size) {{ perror(path); exit(2); }}
  fclose(f);
  return p;
}}

static void read_dims(const char *dir, const char *length, int64_t *d) {{
  char path[4096];
  snprintf(path, sizeof path, "%s/{n}.%s.dims", dir, length);
  FILE *f = fopen(path, "r");
  if (!f) {{ perror(path); exit(2); }}
  for (int k = 0; k < {ns}; k++)
    if (fscanf(f, "%lld", (long long *)&d[k]) != 1) {{ fprintf(stderr, "%s: bad dims\n", path); exit(2); }}
  fclose(f);
}}

int main(int argc, char **argv) {{
  const char *dir = argv[1];
  int64_t d[{ns}];
  size_t most = 0;
  for (int r = 2; r < argc; r++) {{
    read_dims(dir, argv[r], d);
    size_t ws = {n}_workspace_size({syms});
    if (ws > most) most = ws;
  }}
{ranged}
  /* Canaries after the workspace and each output: a run must not write past what it was given. */
  size_t rounded = (most + 63) / 64 * 64;
  unsigned char *workspace = aligned_alloc(64, rounded + CANARY);
  memset(workspace + most, 0xA5, rounded + CANARY - most);
  for (int r = 2; r < argc; r++) {{
    char path[4096];
    void *in[{ni}];
    read_dims(dir, argv[r], d);
    for (int k = 0; k < {ni}; k++) {{
      snprintf(path, sizeof path, "%s/{n}.%s.in%d.bin", dir, argv[r], k);
      in[k] = slurp(path);
    }}
    int64_t out_dims[{n_up}_OUTPUT0_RANK];
    {output_dims}
    size_t count = 1;
    for (int k = 0; k < {n_up}_OUTPUT0_RANK; k++) count *= (size_t)out_dims[k];
    float *y = malloc(count * sizeof(float) + CANARY);
    memset((unsigned char *)y + count * sizeof(float), 0xA5, CANARY);
    int32_t rc = {n}_run({syms}, {ins}, y, workspace);
    if (rc != XCC_OK) {{ fprintf(stderr, "size %s: %s\n", argv[r], xcc_status_message(rc)); return 1; }}
    if (!intact((unsigned char *)y + count * sizeof(float), CANARY) || !intact(workspace + most, rounded + CANARY - most)) {{
      fprintf(stderr, "size %s: the run wrote past its output or its workspace\n", argv[r]);
      return 1;
    }}
    snprintf(path, sizeof path, "%s/{n}.%s.got.bin", dir, argv[r]);
    FILE *f = fopen(path, "wb");
    fwrite(y, sizeof(float), count, f);
    fclose(f);
    for (int k = 0; k < {ni}; k++) free(in[k]);
    free(y);
  }}
  /* Negative dims: refused before any pointer is read, and no workspace for them (0 is a size:
     an empty batch or cache). */
  int32_t bad = {n}_run({negatives}, {nulls}, NULL, NULL);
  printf("negative dims: %d %zu\n", bad, (size_t){n}_workspace_size({negatives}));
  /* Dims whose tensors would pass 2^44 bytes: refused the same way. */
  int32_t huge = {n}_run({huges}, {nulls}, NULL, NULL);
  printf("huge dims: %d %zu\n", huge, (size_t){n}_workspace_size({huges}));
{above}  return 0;
}}
"#,
        ns = m.symbols,
        output_dims = if computed_dims {
            format!(
                "if ({n}_output_dims({syms}, out_dims) != XCC_OK) {{ fprintf(stderr, \"size %s: no output dims\\n\", \
                 argv[r]); return 1; }}",
                n = n,
                syms = syms.join(", ")
            )
        } else {
            format!("{n}_output0_dims({}, out_dims);", syms.join(", "))
        },
        ni = m.inputs.len(),
        n_up = n.to_uppercase(),
        syms = syms.join(", "),
        ins = ins.join(", "),
        nulls = vec!["NULL"; m.inputs.len()].join(", "),
        huges = vec!["(int64_t)1 << 40"; m.symbols].join(", "),
        ranged = if m.ranges.is_empty() { String::new() } else { ranged(m) },
        above = if m.ranges.is_empty() { String::new() } else { above_range(m) },
    )
}

/// With ranges: the workspace is `NAME_workspace_size_max()`, which must be the size at the
/// maxima and cover every run measured above.
fn ranged(m: &Model) -> String {
    let (n, up) = (m.name, m.name.to_uppercase());
    let maxima: Vec<String> = (0..m.symbols).map(|k| format!("{up}_DIM{k}_MAX")).collect();
    format!(
        r#"  if (most > {n}_workspace_size_max() || {n}_workspace_size_max() != {n}_workspace_size({maxima})) {{
    fprintf(stderr, "workspace_size_max %zu: not the size at the maxima, or below a run's %zu\n",
            {n}_workspace_size_max(), most);
    return 1;
  }}
  most = {n}_workspace_size_max();
"#,
        maxima = maxima.join(", ")
    )
}

/// With ranges: each symbol one past its maximum (the others at theirs) is refused.
fn above_range(m: &Model) -> String {
    let (n, up) = (m.name, m.name.to_uppercase());
    let nulls = vec!["NULL"; m.inputs.len()].join(", ");
    (0..m.symbols)
        .map(|k| {
            let dims: Vec<String> =
                (0..m.symbols).map(|j| format!("{up}_DIM{j}_MAX{}", if j == k { " + 1" } else { "" })).collect();
            let dims = dims.join(", ");
            format!(
                "  printf(\"above range {k}: %d %zu\\n\", {n}_run({dims}, {nulls}, NULL, NULL), (size_t){n}_workspace_size({dims}));\n"
            )
        })
        .collect()
}

/// Compiles `m` once, runs it at every length and compares with ONNX Runtime's outputs.
fn check(m: &Model, dir: &Path) -> Result<(), String> {
    let lib = dir.join(format!("lib{}.a", m.name));
    run(
        Command::new(xcc_binary())
            .arg(dir.join(format!("{}.onnx", m.name)))
            .args(m.ranges)
            .args(["-O3", "-o"])
            .arg(&lib),
        "xcc",
    )?;
    let source = dir.join(format!("{}_main.c", m.name));
    // Outputs whose dims the run computes are sized by `NAME_output_dims`.
    let header = std::fs::read_to_string(dir.join(format!("{}.h", m.name))).map_err(|e| format!("the header: {e}"))?;
    let computed_dims = header.contains(&format!("{}_output_dims(", m.name));
    std::fs::write(&source, harness(m, computed_dims)).unwrap();
    let exe = dir.join(format!("{}_main", m.name));
    run(
        Command::new("cc")
            .arg("-O1")
            .arg("-I")
            .arg(dir)
            .arg(&source)
            .arg(&lib)
            .args(["-lm", "-lpthread", "-o"])
            .arg(&exe),
        "linking the C program",
    )?;
    let lengths: Vec<String> = m.sizes.iter().map(|l| l.to_string()).collect();
    let stdout = run(Command::new(&exe).arg(dir).args(&lengths), "the C program")?;
    let ranged = if m.ranges.is_empty() { 0 } else { m.symbols };
    let cases = ["negative dims".to_string(), "huge dims".to_string()];
    for case in cases.into_iter().chain((0..ranged).map(|k| format!("above range {k}"))) {
        if !stdout.contains(&format!("{case}: 7 0")) {
            return Err(format!("{case}: expected XCC_ERROR_BAD_DIM (7) and no workspace, got: {stdout}"));
        }
    }
    for l in &lengths {
        let got = read_f32(&dir.join(format!("{}.{l}.got.bin", m.name)))?;
        let want = read_f32(&dir.join(format!("{}.{l}.out0.bin", m.name)))?;
        let worst = compare_f32(&format!("{} at size {l}", m.name), &got, &want, 1e-4)?;
        println!("{} at size {l}: {} values, worst error {worst:.2} of the tolerance", m.name, got.len());
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    let python = repo().join(".venv/bin/python");
    let dir = repo().join("target/xcc-tests/dynamic-dims");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let lengths: Vec<String> = LENGTHS.iter().map(|l| l.to_string()).collect();
    let skipped = !python.exists();
    let made = if skipped {
        println!("skipped: .venv with onnx and onnxruntime is missing (run scripts/setup.sh)");
        Ok(String::new())
    } else {
        run(
            Command::new(&python).arg(suite_dir().join("dynamic/make_models.py")).arg(&dir).args(&lengths),
            "make_models.py",
        )
    };
    let trials = MODELS
        .iter()
        .map(|m| {
            let (dir, made) = (dir.clone(), made.clone());
            Trial::test(format!("dynamic-dims/{}", m.name), move || {
                made?;
                Ok(check(m, &dir)?)
            })
            .with_ignored_flag(skipped)
        })
        .collect();
    run_trials(trials)
}
