//! Decoder-only language models as their exporters write them: tiny GPT-2, Llama (grouped KV
//! heads) and Qwen2 from `transformers` configs with seeded random weights, exported with a KV
//! cache by torch's TorchScript and dynamo exporters (`decoders/make_models.py`, in the
//! converters' venv). Each model is compiled as written, with no flag, linked into a C program,
//! and run as a generation loop runs it: prefill (past 0), a decode step at past 1 and at past
//! 100, and a batch of 2 whose second row is left-padded, each at the dims the header's run
//! function takes by name. Every output (logits, present keys and values) is compared with ONNX
//! Runtime's for the same inputs (1e-4 relative plus 1e-4 absolute). The program also checks
//! that no run writes past its outputs or its workspace, and that an attention mask shorter than
//! past + sequence is refused with `XCC_ERROR_BAD_DIM` (and `m_failed_check` names the node and
//! the condition) where the model takes its length as a dim of its own, and that one buffer
//! given as a past and its present, which a plain export writes whole, is refused with
//! `XCC_ERROR_ALIASED_BUFFERS`. The same models as
//! optimum-onnx exports them, and Llama and Qwen2 as ONNX Runtime GenAI's model builder writes
//! them (`decoders/make_genai_models.py`: GroupQueryAttention, int4 and int8 weights, a shared
//! past/present buffer, a `seqlens_k` past the cache refused), and the three models as optimum
//! 1's legacy exporter merges them (`decoders/make_merged_models.py`: the prompt and the cached
//! decoder as the branches of an If on `use_cache_branch`), and layers of ONNX Runtime's contrib
//! Attention and MultiHeadAttention with past and present (`decoders/make_contrib_models.py`),
//! run the same way. Each generator
//! is skipped, with a message, where its venv lacks what it needs.

use libtest_mimic::Trial;
use std::path::{Path, PathBuf};
use std::process::Command;
use xcc_test_suite::{
    compare_f32, compile_timeout, link_c, read_f32, run_ok, run_trials_then_discard, suite_dir, work_root, xcc_binary,
};

const MARKER: &str = ".generated";

fn repo() -> PathBuf {
    suite_dir().parent().unwrap().to_path_buf()
}

fn run(cmd: &mut Command, what: &str) -> Result<String, String> {
    run_ok(cmd, what, compile_timeout())
}

/// A generator of decoder models, in the venv that has its exporter.
struct Generator {
    script: &'static str,
    venv: &'static str,
    /// The imports it needs, and what a venv without them lacks.
    probe: &'static str,
    /// Where its cases go, under the suite's work folder.
    data: &'static str,
}

const GENERATORS: [Generator; 4] = [
    Generator {
        script: "decoders/make_models.py",
        venv: ".venv-torch",
        probe: "import torch, transformers, onnxruntime",
        data: "data",
    },
    Generator {
        script: "decoders/make_genai_models.py",
        venv: ".venv-genai",
        probe: "import torch, transformers, onnxruntime, onnxruntime_genai.models.builder",
        data: "genai-data",
    },
    Generator {
        script: "decoders/make_merged_models.py",
        venv: ".venv-optimum1",
        probe: "import torch, transformers, onnxruntime, optimum.exporters.onnx, optimum.version as v; \
                assert v.__version__.startswith('1.')",
        data: "merged-data",
    },
    Generator {
        script: "decoders/make_contrib_models.py",
        venv: ".venv",
        probe: "import onnx, onnxruntime",
        data: "contrib-data",
    },
];

/// The generator's venv's Python when it has what the generator needs; else why not.
fn python(gen: &Generator) -> Result<PathBuf, String> {
    let py = repo().join(gen.venv).join("bin/python");
    if !py.exists() {
        return Err(format!("{} is absent (scripts/setup.sh makes it)", py.display()));
    }
    let probe = Command::new(&py).args(["-c", gen.probe]).output();
    match probe {
        Ok(o) if o.status.success() => Ok(py),
        _ => Err(format!("{} cannot run `{}`", gen.venv, gen.probe)),
    }
}

/// Generates the models once per version of the generator (a marker records which).
fn generate(gen: &Generator, data: &Path) -> Result<(), String> {
    let script = suite_dir().join(gen.script);
    let version = xcc_test_suite::generator_stamp(&script);
    if std::fs::read_to_string(data.join(MARKER)).is_ok_and(|v| v == version) {
        return Ok(());
    }
    let py = python(gen)?;
    let _ = std::fs::remove_dir_all(data);
    std::fs::create_dir_all(data).map_err(|e| e.to_string())?;
    run(Command::new(py).arg(script).arg(data), gen.script)?;
    std::fs::write(data.join(MARKER), version).map_err(|e| e.to_string())
}

/// The parameters of `m_run` in the header: the dims (by name), then the inputs, then the
/// outputs (pointers, const for inputs), then the workspace.
struct Interface {
    dims: Vec<String>,
    inputs: usize,
    outputs: usize,
    /// Whether `m_workspace_size` reads the inputs too.
    workspace_reads_inputs: bool,
}

fn parameters(header: &str, function: &str) -> Result<Vec<String>, String> {
    let start = header.find(&format!("{function}(")).ok_or(format!("m.h declares no {function}"))?;
    let text = &header[start + function.len() + 1..];
    let end = text.find(')').ok_or("an unterminated prototype")?;
    Ok(text[..end].split(',').map(|p| p.trim().to_string()).collect())
}

fn interface(header: &str) -> Result<Interface, String> {
    let params = parameters(header, "int32_t m_run")?;
    let dims: Vec<String> = params
        .iter()
        .filter_map(|p| p.strip_prefix("int64_t ").filter(|n| !n.contains('*')))
        .map(String::from)
        .collect();
    let inputs = params.iter().filter(|p| p.starts_with("const ") && p.contains('*')).count();
    let outputs = params.len() - dims.len() - inputs - 1;
    let workspace_reads_inputs = parameters(header, "size_t m_workspace_size")?.iter().any(|p| p.contains('*'));
    Ok(Interface { dims, inputs, outputs, workspace_reads_inputs })
}

/// A C program that runs `m_run` once: `prog DIR RUN DIM...` reads `RUN.in{K}.bin`, sizes each
/// output as `RUN.out{K}.bin` (ONNX Runtime's), and writes `RUN.got{K}.bin`; with `shared`, each
/// present cache is written into its past's buffer. With `--short-mask`
/// it passes the mask's dim one below the rest (a mask shorter than past + sequence) and prints
/// the status instead, and the condition `m_failed_check` names.
fn harness(i: &Interface) -> String {
    let nd = i.dims.len();
    let dims: Vec<String> = (0..nd).map(|k| format!("d[{k}]")).collect();
    let ins: Vec<String> = (0..i.inputs).map(|k| format!("in[{k}]")).collect();
    let outs: Vec<String> = (0..i.outputs).map(|k| format!("out[{k}]")).collect();
    let ws_args = if i.workspace_reads_inputs { [dims.clone(), ins.clone()].concat() } else { dims.clone() };
    format!(
        r#"#include "m.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CANARY 256

static void *slurp(const char *dir, const char *run, const char *kind, int k, size_t *bytes) {{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%s%d.bin", dir, run, kind, k);
  FILE *f = fopen(path, "rb");
  if (!f) {{ perror(path); exit(2); }}
  fseek(f, 0, SEEK_END);
  *bytes = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *p = aligned_alloc(64, (*bytes + CANARY + 63) / 64 * 64);
  memset(p, 0xA5, (*bytes + CANARY + 63) / 64 * 64);
  if (*bytes && fread(p, 1, *bytes, f) != *bytes) {{ perror(path); exit(2); }}
  fclose(f);
  return p;
}}

static int intact(const unsigned char *p, size_t n) {{
  for (size_t i = 0; i < n; i++)
    if (p[i] != 0xA5) return 0;
  return 1;
}}

int main(int argc, char **argv) {{
  if (argc != {argc} && argc != {argc} + 1) return 2;
  const char *dir = argv[1], *run = argv[2];
  int64_t d[{nd}];
  for (int k = 0; k < {nd}; k++) d[k] = atoll(argv[3 + k]);
  void *in[{ni}], *out[{no}];
  size_t out_bytes[{no}], bytes;
  for (int k = 0; k < {ni}; k++) in[k] = slurp(dir, run, "in", k, &bytes);
  for (int k = 0; k < {no}; k++) {{
    out[k] = slurp(dir, run, "out", k, &out_bytes[k]);
    memset(out[k], 0xA5, out_bytes[k] + CANARY);
  }}
  size_t ws = m_workspace_size({ws_args});
  unsigned char *workspace = aligned_alloc(64, (ws + CANARY + 63) / 64 * 64);
  memset(workspace, 0xA5, (ws + CANARY + 63) / 64 * 64);
  /* "shared": each present cache is its past's buffer (input k + 1 for output k), as a shared
     buffer's caller gives them. */
  int shared = argc == {argc} + 1 && !strncmp(argv[argc - 1], "shared", 6);
  for (int k = 1; shared && k < {no}; k++) out[k] = in[k + 1];
  if (argc == {argc} + 1 && strcmp(argv[argc - 1], "shared")) {{
    /* argv[argc - 1] names the dim to make one shorter than the inputs are. */
    for (int k = 0; k < {nd}; k++)
      if (!strcmp(argv[argc - 1], m_dim_names[k])) d[k] -= 1;
    int32_t rc = m_run({dims}, {ins}, {outs}, workspace);
#ifdef M_CHECK_CONDITIONS
    int32_t failed = m_failed_check({ws_args});
    printf("%d %s\n", (int)rc, failed >= 0 ? m_check_conditions[failed] : "(no condition)");
#else
    printf("%d\n", (int)rc);
#endif
    return 0;
  }}
  int32_t rc = m_run({dims}, {ins}, {outs}, workspace);
  if (rc != XCC_OK) {{ fprintf(stderr, "m_run returned %d: %s\n", (int)rc, xcc_status_message(rc)); return 1; }}
  if (!intact(workspace + ws, CANARY)) {{ fprintf(stderr, "the run wrote past its workspace\n"); return 1; }}
  for (int k = 0; k < {no}; k++) {{
    if (!intact((unsigned char *)out[k] + out_bytes[k], CANARY)) {{ fprintf(stderr, "the run wrote past output %d\n", k); return 1; }}
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.got%d.bin", dir, run, k);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(out[k], 1, out_bytes[k], f) != out_bytes[k]) {{ perror(path); return 2; }}
    fclose(f);
  }}
  return 0;
}}
"#,
        argc = 3 + nd,
        ni = i.inputs,
        no = i.outputs,
        ws_args = ws_args.join(", "),
        dims = dims.join(", "),
        ins = ins.join(", "),
        outs = outs.join(", "),
    )
}

/// The dim names the harness looks up, as a C array beside the program.
fn dim_names(i: &Interface) -> String {
    let names: Vec<String> = i.dims.iter().map(|n| format!("\"{n}\"")).collect();
    format!("static const char *m_dim_names[] = {{{}}};\n", names.join(", "))
}

/// One run of `runs.txt`: its name, its dims by name, and what it must be refused for
/// (`refused=WHAT`: `index` or `dim`), if it must.
type Run = (String, Vec<(String, i64)>, Option<String>);

fn runs(case: &Path) -> Result<Vec<Run>, String> {
    let text = std::fs::read_to_string(case.join("runs.txt")).map_err(|e| e.to_string())?;
    text.lines()
        .map(|line| {
            let mut words = line.split_whitespace();
            let name = words.next().ok_or("an empty line in runs.txt")?.to_string();
            let mut dims = Vec::new();
            let mut refused = None;
            for w in words {
                match w.split_once('=').ok_or(format!("runs.txt: {w}"))? {
                    ("refused", why) => refused = Some(why.to_string()),
                    (k, v) => dims.push((k.to_string(), v.parse::<i64>().map_err(|e| format!("{w}: {e}"))?)),
                }
            }
            Ok((name, dims, refused))
        })
        .collect()
}

/// Output `k` of run `name` and ONNX Runtime's, each without the elements ONNX Runtime leaves
/// undefined (`RUN.valid{K}.bin`, where the generator writes one: a cache's rows past a short
/// row's length).
fn compared(case: &Path, name: &str, k: usize) -> Result<(Vec<f32>, Vec<f32>), String> {
    let got = read_f32(&case.join(format!("{name}.got{k}.bin")))?;
    let want = read_f32(&case.join(format!("{name}.out{k}.bin")))?;
    let Ok(valid) = std::fs::read(case.join(format!("{name}.valid{k}.bin"))) else {
        return Ok((got, want));
    };
    if valid.len() != want.len() || got.len() != want.len() {
        return Err(format!("{name}: output {k} has {} values, its validity {}", want.len(), valid.len()));
    }
    let keep = |v: Vec<f32>| v.into_iter().zip(&valid).filter(|(_, &ok)| ok != 0).map(|(x, _)| x).collect();
    Ok((keep(got), keep(want)))
}

/// The names exporters give an attention mask's length where it is a dim of its own.
const MASK_DIMS: [&str; 2] = ["total", "attention_mask_sequence_length"];

fn check(case: &Path, work: &Path) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(work);
    std::fs::create_dir_all(work).map_err(|e| e.to_string())?;
    let lib = work.join("libm.a");
    // As exported: no --dim, --shape or --bind.
    run(Command::new(xcc_binary()).arg(case.join("model.onnx")).args(["--name", "m", "-o"]).arg(&lib), "xcc")?;
    let header = std::fs::read_to_string(work.join("m.h")).map_err(|e| e.to_string())?;
    let i = interface(&header)?;
    let c = work.join("harness.c");
    std::fs::write(&c, harness(&i).replacen("#include <stdio.h>", &format!("{}#include <stdio.h>", dim_names(&i)), 1))
        .map_err(|e| e.to_string())?;
    let prog = work.join("prog");
    link_c("cc", &c, &[&lib], &prog)?;
    let mut failures = Vec::new();
    let tolerance = match std::fs::read_to_string(case.join("tolerance")) {
        Ok(t) => t.trim().parse::<f64>().map_err(|e| format!("{}/tolerance: {e}", case.display()))?,
        Err(_) => 1e-4,
    };
    for (name, dims, refused) in runs(case)? {
        let values: Vec<String> = i
            .dims
            .iter()
            .map(|d| {
                dims.iter().find(|(k, _)| k == d).map(|(_, v)| v.to_string()).ok_or(format!("no value for dim '{d}'"))
            })
            .collect::<Result<_, _>>()?;
        // A run the model must refuse: its status, and no write past a buffer; nothing compared.
        if let Some(why) = refused {
            let (mode, want) = match why.as_str() {
                "dim" => ("shared-status", xcc_runtime_c::status::BAD_DIM),
                _ => ("-", xcc_runtime_c::status::INDEX_OUT_OF_RANGE),
            };
            let out = run(Command::new(&prog).arg(case).arg(&name).args(&values).arg(mode), &name)?;
            if out.split_whitespace().next() != Some(&want.to_string()) {
                failures.push(format!("{name}: returned {}, not status {want}", out.trim()));
            }
            continue;
        }
        let shared: &[&str] = if dims.iter().any(|(k, _)| k == "shared") { &["shared"] } else { &[] };
        if let Err(e) = run(Command::new(&prog).arg(case).arg(&name).args(&values).args(shared), &name) {
            failures.push(format!("{name}: {e}"));
            continue;
        }
        for k in 0..i.outputs {
            let (got, want) = compared(case, &name, k)?;
            if let Err(e) = compare_f32(&format!("{name}: output {k}"), &got, &want, tolerance) {
                failures.push(e);
            }
        }
        // A plain export's cache given as one buffer for past and present is refused (where the
        // inputs are the ids, the mask and the caches, the harness's "shared" pairs them).
        let apart = header.contains("XCC_ERROR_ALIASED_BUFFERS otherwise") && i.inputs == i.outputs + 1;
        if apart && name == "decode-past1" {
            let out = run(Command::new(&prog).arg(case).arg(&name).args(&values).arg("shared-status"), &name)?;
            let want = xcc_runtime_c::status::ALIASED_BUFFERS.to_string();
            if out.split_whitespace().next() != Some(want.as_str()) {
                failures.push(format!("{name}: one buffer as past and present returned {}, not {want}", out.trim()));
            }
        }
        // A mask whose length the caller gives one short of past + sequence is refused.
        if let Some(mask) = i.dims.iter().find(|d| MASK_DIMS.contains(&d.as_str())) {
            let out = run(Command::new(&prog).arg(case).arg(&name).args(&values).arg(mask), &name)?;
            // The status, then the condition it broke, which names its node and two dims that
            // differ (the mask's length, or a slice of the causal mask cut to it).
            let (status, condition) = out.trim().split_once(' ').unwrap_or((out.trim(), ""));
            let named = condition.contains("node '") && condition.contains("are equal");
            if status != xcc_runtime_c::status::BAD_DIM.to_string() || !named {
                failures.push(format!("{name}: a mask shorter than past + sequence returned {}", out.trim()));
            }
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

fn main() -> std::process::ExitCode {
    let mut trials = Vec::new();
    for gen in &GENERATORS {
        let data = work_root("decoders").join(gen.data);
        if let Err(why) = generate(gen, &data) {
            println!("skipped: {}: {why}", gen.script);
            trials.push(Trial::test(format!("decoders/{}", gen.script), || Ok(())).with_ignored_flag(true));
            continue;
        }
        let mut cases: Vec<PathBuf> = std::fs::read_dir(&data)
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.join("model.onnx").exists()).collect())
            .unwrap_or_default();
        cases.sort();
        // Every exporter's cases in CI; the README's test command runs every other one of each
        // generator's.
        let breadth = xcc_test_suite::Breadth::from_env();
        let cases: Vec<PathBuf> =
            cases.into_iter().enumerate().filter(|(i, _)| breadth.includes_nth(*i, 2)).map(|(_, c)| c).collect();
        for case in cases {
            let name = case.file_name().unwrap().to_string_lossy().to_string();
            let work = work_root("decoders").join("work").join(&name);
            trials.push(Trial::test(format!("decoders/{name}"), move || check(&case, &work).map_err(Into::into)));
        }
    }
    run_trials_then_discard(trials, &[work_root("decoders").join("work")])
}
