//! Property tests of the kernel strategies: each strategy `kernel-choose-strategies` can record
//! (a convolution's `winograd`, `depthwise`, `im2col` and `direct`; a GEMM's `register_tiles`)
//! is written on ops of random shapes, strides, pads, dilations, groups and tile tables, compiled
//! through the default pipeline, and checked against naive C loops computing the same sums in
//! double; `kernel.matmul_blockwise`'s kernels (decode's, the f32 tiles, the int8 rows with
//! turned weights) likewise, with each way of multiplying bytes; `kernel.attention` with each
//! pass size its groups allow, at 1, 2, 3 and 8 threads. Each strategy's cases are one module
//! and one program; the program runs at every x86-64 level this machine has (a tile table's
//! entries per level), and the portable kernels' (blockwise float and widened bytes,
//! attention) also for AArch64 and RISC-V under qemu-user. The shapes come from a
//! seeded generator (`XCC_PROPERTY_SEED` picks another seed; a failure prints the case).

use libtest_mimic::Trial;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use xcc_test_suite::{
    compile_timeout, cpu_levels, fresh_dir, run_command, run_timeout, run_trials, suite_dir, work_root, xcc_binary,
    CROSS_TARGETS,
};

/// Cases per strategy.
const CASES: usize = 12;

/// splitmix64: a small seeded generator, the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    fn float(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Strategy {
    Winograd,
    Depthwise,
    Im2col,
    Direct,
}

impl Strategy {
    fn name(self) -> &'static str {
        match self {
            Strategy::Winograd => "winograd",
            Strategy::Depthwise => "depthwise",
            Strategy::Im2col => "im2col",
            Strategy::Direct => "direct",
        }
    }
}

/// One 2-d convolution: input `[1, c, h, w]`, weights `[k, c / group, kh, kw]`.
#[derive(Debug)]
struct Conv {
    c: usize,
    h: usize,
    w: usize,
    k: usize,
    kernel: [usize; 2],
    strides: [usize; 2],
    /// Begin pads, then end pads.
    pads: [usize; 4],
    dilations: [usize; 2],
    group: usize,
    tiles: Vec<[usize; 3]>,
    /// The L2 cache the im2col blocks are sized for: small ones send small planes through the
    /// blocked paths.
    l2: usize,
}

impl Conv {
    fn out(&self) -> [usize; 2] {
        [0, 1].map(|q| {
            let span = self.dilations[q] * (self.kernel[q] - 1) + 1;
            (self.pads[q] + [self.h, self.w][q] + self.pads[q + 2] - span) / self.strides[q] + 1
        })
    }

    fn weights(&self) -> usize {
        self.k * (self.c / self.group) * self.kernel[0] * self.kernel[1]
    }

    fn random(rng: &mut Rng, strategy: Strategy) -> Conv {
        let tiles = random_tiles(rng);
        let l2 = [4 << 10, 16 << 10, 1 << 20][rng.range(0, 2)];
        match strategy {
            Strategy::Winograd => {
                // Any plane from one output on, and channel counts below those where Winograd
                // pays (the strategy written on the op is applied as it is).
                let pads = [0; 4].map(|_| rng.range(0, 1));
                let (h, w) = (rng.range(3, 13), rng.range(3, 13));
                Conv {
                    c: rng.range(1, 12),
                    h,
                    w,
                    k: rng.range(1, 20),
                    kernel: [3, 3],
                    strides: [1, 1],
                    pads,
                    dilations: [1, 1],
                    group: 1,
                    tiles,
                    l2,
                }
            }
            _ => loop {
                // Depthwise filters up to 5x5 (25 taps, still held in registers) over planes of up
                // to 20 rows (rows every tap reaches, in groups of three and one at a time).
                let (largest, rows) = if strategy == Strategy::Depthwise { (5, 20) } else { (4, 14) };
                let kernel = [rng.range(1, largest), rng.range(1, largest)];
                let dilations = [rng.range(1, 2), rng.range(1, 2)];
                let strides = [rng.range(1, 3), rng.range(1, 3)];
                let pads = [0; 4].map(|_| rng.range(0, 2));
                let (c, k, group) = match strategy {
                    Strategy::Depthwise => {
                        let c = rng.range(2, 20);
                        (c, c, c)
                    }
                    _ => {
                        let group = rng.range(1, 3);
                        (group * rng.range(1, 5), group * rng.range(1, 8), group)
                    }
                };
                let conv = Conv {
                    c,
                    h: rng.range(1, rows),
                    w: rng.range(1, 14),
                    k,
                    kernel,
                    strides,
                    pads,
                    dilations,
                    group,
                    tiles: tiles.clone(),
                    l2,
                };
                let fits = [0, 1].into_iter().all(|q| {
                    let span = dilations[q] * (kernel[q] - 1) + 1;
                    pads[q] + [conv.h, conv.w][q] + pads[q + 2] >= span
                });
                if fits {
                    return conv;
                }
            },
        }
    }
}

/// A GEMM register-tile table: a baseline tile, and one for AVX2 CPUs (level 3) half the time.
fn random_tiles(rng: &mut Rng) -> Vec<[usize; 3]> {
    let mut tiles = vec![[0, rng.range(1, 8), rng.range(1, 2)]];
    if rng.next().is_multiple_of(2) {
        tiles.insert(0, [3, rng.range(1, 8), rng.range(1, 2)]);
    }
    tiles
}

fn tiles_attr(tiles: &[[usize; 3]]) -> String {
    let values: Vec<String> = tiles.iter().flatten().map(|v| v.to_string()).collect();
    format!("register_tiles = array<i64: {}>", values.join(", "))
}

fn memref(dims: &[usize]) -> String {
    format!("memref<{}xf32>", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("x"))
}

/// The weights as an MLIR dense hex literal and as the C array of their bits.
fn weights(values: &[f32]) -> (String, String) {
    let hex: String = values.iter().flat_map(|v| v.to_le_bytes()).map(|b| format!("{b:02X}")).collect();
    let bits: Vec<String> = values.iter().map(|v| format!("0x{:08x}u", v.to_bits())).collect();
    (format!("dense<\"0x{hex}\"> : tensor<{}xi8>", values.len() * 4), bits.join(","))
}

/// The module and C program of a strategy's cases.
fn conv_program(strategy: Strategy, cases: &[Conv], rng: &mut Rng) -> (String, String) {
    let mut mlir = String::new();
    let mut c = String::from(CONV_PRELUDE);
    let mut main = String::from("int main(void) {\n  int bad = 0;\n");
    for (i, case) in cases.iter().enumerate() {
        let values: Vec<f32> = (0..case.weights()).map(|_| rng.float()).collect();
        let (dense, bits) = weights(&values);
        let [oh, ow] = case.out();
        let (x, w, y) = (
            [1, case.c, case.h, case.w],
            [case.k, case.c / case.group, case.kernel[0], case.kernel[1]],
            [1, case.k, oh, ow],
        );
        let list = |v: &[usize]| v.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ");
        let _ = writeln!(mlir, "memref.global \"private\" constant @w{i} : {} = {dense}", memref(&w));
        let _ = writeln!(
            mlir,
            "func.func @case{i}(%x: {}, %y: {}) attributes {{llvm.emit_c_interface}} {{\n  \
             %w = memref.get_global @w{i} : {}\n  \
             kernel.conv ins(%x, %w : {}, {}) outs(%y : {}) {{strides = array<i64: {}>, pads = array<i64: {}>, \
             dilations = array<i64: {}>, group = {} : i64, strategy = \"{}\", {}, l2_cache_bytes = {} : i64}}\n  return\n}}",
            memref(&x),
            memref(&y),
            memref(&w),
            memref(&x),
            memref(&w),
            memref(&y),
            list(&case.strides),
            list(&case.pads),
            list(&case.dilations),
            case.group,
            strategy.name(),
            tiles_attr(&case.tiles),
            case.l2,
        );
        let _ = writeln!(c, "void _mlir_ciface_case{i}(D4 *, D4 *);\nstatic const uint32_t w{i}[] = {{{bits}}};");
        let _ = writeln!(
            main,
            "  {{ static const Conv k = {{{}, {}, {}, {}, {{{}, {}}}, {{{}, {}}}, {{{}}}, {{{}, {}}}, {}, {oh}, {ow}}};\n    \
             bad |= check_conv({i}, &k, w{i}, _mlir_ciface_case{i}); }}",
            case.c,
            case.h,
            case.w,
            case.k,
            case.kernel[0],
            case.kernel[1],
            case.strides[0],
            case.strides[1],
            list(&case.pads),
            case.dilations[0],
            case.dilations[1],
            case.group,
        );
    }
    main.push_str("  printf(bad ? \"MISMATCH\\n\" : \"ok\\n\");\n  return bad;\n}\n");
    (mlir, c + &main)
}

/// The naive convolution in double and the comparison, shared by every case.
const CONV_PRELUDE: &str = r#"#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "memref_desc.h"

typedef struct { int c, h, w, k, kernel[2], strides[2], pads[4], dilations[2], group, oh, ow; } Conv;

static int check_conv(int i, const Conv *p, const uint32_t *bits, void (*run)(D4 *, D4 *)) {
  int icg = p->c / p->group, ocg = p->k / p->group, nw = p->k * icg * p->kernel[0] * p->kernel[1];
  float *x = malloc(sizeof(float) * p->c * p->h * p->w), *w = malloc(sizeof(float) * nw);
  float *y = malloc(sizeof(float) * p->k * p->oh * p->ow);
  memcpy(w, bits, sizeof(float) * nw);
  for (int j = 0; j < p->c * p->h * p->w; j++) x[j] = val(j + 7 * i);
  D4 X = d4(x, 1, p->c, p->h, p->w), Y = d4(y, 1, p->k, p->oh, p->ow);
  run(&X, &Y);
  int bad = 0;
  for (int o = 0; o < p->k; o++)
    for (int a = 0; a < p->oh; a++)
      for (int b = 0; b < p->ow; b++) {
        double s = 0, mag = 0;
        int g = o / ocg;
        for (int ci = 0; ci < icg; ci++)
          for (int u = 0; u < p->kernel[0]; u++)
            for (int v = 0; v < p->kernel[1]; v++) {
              int r = a * p->strides[0] - p->pads[0] + u * p->dilations[0];
              int q = b * p->strides[1] - p->pads[1] + v * p->dilations[1];
              if (r < 0 || r >= p->h || q < 0 || q >= p->w) continue;
              double t = (double)x[((g * icg + ci) * p->h + r) * p->w + q] * w[((o * icg + ci) * p->kernel[0] + u) * p->kernel[1] + v];
              s += t;
              mag += fabs(t);
            }
        double got = y[(o * p->oh + a) * p->ow + b];
        if (!(fabs(got - s) <= 1e-6 + 1e-5 * mag)) {
          if (!bad) printf("case %d: output (%d, %d, %d) is %g, the sum is %g\n", i, o, a, b, got, s);
          bad = 1;
        }
      }
  free(x); free(w); free(y);
  return bad;
}
"#;

/// One f32 GEMM `C[m, n] = A[m, k] x B[k, n]` on the micro-kernel, with random register tiles.
#[derive(Debug)]
struct Gemm {
    m: usize,
    n: usize,
    k: usize,
    tiles: Vec<[usize; 3]>,
}

fn gemm_program(cases: &[Gemm]) -> (String, String) {
    let mut mlir = String::new();
    let mut c = String::from(GEMM_PRELUDE);
    let mut main = String::from("int main(void) {\n  int bad = 0;\n");
    for (i, g) in cases.iter().enumerate() {
        let (a, b, out) = (memref(&[g.m, g.k]), memref(&[g.k, g.n]), memref(&[g.m, g.n]));
        let _ = writeln!(
            mlir,
            "func.func @case{i}(%a: {a}, %b: {b}, %c: {out}) attributes {{llvm.emit_c_interface}} {{\n  \
             kernel.matmul ins(%a, %b : {a}, {b}) outs(%c : {out}) {{{}}}\n  return\n}}",
            tiles_attr(&g.tiles)
        );
        let _ = writeln!(c, "void _mlir_ciface_case{i}(D2 *, D2 *, D2 *);");
        let _ = writeln!(main, "  bad |= check_gemm({i}, {}, {}, {}, _mlir_ciface_case{i});", g.m, g.n, g.k);
    }
    main.push_str("  printf(bad ? \"MISMATCH\\n\" : \"ok\\n\");\n  return bad;\n}\n");
    (mlir, c + &main)
}

const GEMM_PRELUDE: &str = r#"#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "memref_desc.h"

static int check_gemm(int i, int m, int n, int k, void (*run)(D2 *, D2 *, D2 *)) {
  float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n), *c = malloc(sizeof(float) * m * n);
  for (int j = 0; j < m * k; j++) a[j] = val(j + i);
  for (int j = 0; j < k * n; j++) b[j] = val(3 * j + 5 + i);
  D2 A = d2(a, m, k), B = d2(b, k, n), C = d2(c, m, n);
  run(&A, &B, &C);
  int bad = 0;
  for (int r = 0; r < m; r++)
    for (int q = 0; q < n; q++) {
      double s = 0, mag = 0;
      for (int t = 0; t < k; t++) {
        double p = (double)a[r * k + t] * b[t * n + q];
        s += p;
        mag += fabs(p);
      }
      if (!(fabs(c[r * n + q] - s) <= 1e-6 + 1e-5 * mag)) {
        if (!bad) printf("case %d (%dx%dx%d): C[%d][%d] is %g, the sum is %g\n", i, m, n, k, r, q, c[r * n + q], s);
        bad = 1;
      }
    }
  free(a); free(b); free(c);
  return bad;
}
"#;

/// Compiles `mlir`, links it with `c`, and runs the program at every level this machine has.
fn compile_and_run(name: &str, program: (String, String), cases: &str) -> Result<(), String> {
    compile_and_run_with(name, program, cases, &[])
}

/// [`compile_and_run`] with xcc's `flags`.
fn compile_and_run_with(name: &str, program: (String, String), cases: &str, flags: &[&str]) -> Result<(), String> {
    compile_and_run_threaded(name, program, cases, flags, &[None])
}

/// [`compile_and_run_with`], the program run with each of `threads` (`XCC_NUM_THREADS`; `None`:
/// the default, every core) at each level.
fn compile_and_run_threaded(
    name: &str,
    (mlir, c): (String, String),
    cases: &str,
    flags: &[&str],
    threads: &[Option<usize>],
) -> Result<(), String> {
    let dir = fresh_dir(&work_root("kernel-strategies").join(name));
    let (source, harness, lib, prog) =
        (dir.join("cases.mlir"), dir.join("harness.c"), dir.join("lib.a"), dir.join("prog"));
    std::fs::write(&source, mlir).map_err(|e| e.to_string())?;
    std::fs::write(&harness, c).map_err(|e| e.to_string())?;
    let o = run_command(Command::new(xcc_binary()).arg(&source).args(flags).arg("-o").arg(&lib), compile_timeout());
    if !o.success() {
        return Err(format!("xcc: {}\nthe cases:\n{cases}", o.summary()));
    }
    let include = suite_dir().join("run");
    link_with(&harness, &lib, &prog, &include)?;
    for level in cpu_levels() {
        for &count in threads {
            let mut cmd = Command::new(&prog);
            if let Some(l) = level {
                cmd.env("XCC_CPU_LEVEL", l.to_string());
            }
            if let Some(n) = count {
                cmd.env("XCC_NUM_THREADS", n.to_string());
            }
            let o = run_command(&mut cmd, run_timeout());
            if !o.success() || o.stdout.trim() != "ok" {
                let at = level.map_or(String::new(), |l| format!(" at x86-64 level {l}"));
                let with = count.map_or(String::new(), |n| format!(" with {n} threads"));
                return Err(format!("the program{at}{with}: {}\n{}\nthe cases:\n{cases}", o.summary(), o.stdout));
            }
        }
    }
    Ok(())
}

/// The program compiled for each CPU of [`CROSS_TARGETS`] whose tools are installed
/// (AArch64, RISC-V 64 with its vectors), cross-linked and run under qemu-user: the kernels'
/// portable code on other instruction sets.
fn cross_compile_and_run(name: &str, program: &(String, String), cases: &str) -> Result<(), String> {
    cross_compile_and_run_on(name, program, cases, None, &[])
}

/// [`cross_compile_and_run`] on the target `only` names (all where `None`), with xcc's `flags`.
fn cross_compile_and_run_on(
    name: &str,
    (mlir, c): &(String, String),
    cases: &str,
    only: Option<&str>,
    flags: &[&str],
) -> Result<(), String> {
    for target in CROSS_TARGETS.iter().filter(|t| t.available() && only.is_none_or(|a| a == t.arch)) {
        let dir = fresh_dir(&work_root("kernel-strategies").join(format!("{name}-{}", target.arch)));
        let (source, harness, lib, prog) =
            (dir.join("cases.mlir"), dir.join("harness.c"), dir.join("lib.a"), dir.join("prog"));
        std::fs::write(&source, mlir).map_err(|e| e.to_string())?;
        std::fs::write(&harness, c).map_err(|e| e.to_string())?;
        let arch = format!("--target={}", target.arch);
        let o = run_command(
            Command::new(xcc_binary()).arg(&source).arg(&arch).args(flags).arg("-o").arg(&lib),
            compile_timeout(),
        );
        if !o.success() {
            return Err(format!("xcc {arch}: {}\nthe cases:\n{cases}", o.summary()));
        }
        link_with_compiler(target.gcc, (&harness, &lib, &prog), &suite_dir().join("run"))?;
        let o = run_command(&mut target.run(&prog), run_timeout());
        if !o.success() || o.stdout.trim() != "ok" {
            return Err(format!("the program for {}: {}\n{}\nthe cases:\n{cases}", target.arch, o.summary(), o.stdout));
        }
    }
    Ok(())
}

fn link_with(harness: &Path, lib: &Path, prog: &Path, include: &Path) -> Result<(), String> {
    link_with_compiler("cc", (harness, lib, prog), include)
}

fn link_with_compiler(cc: &str, (harness, lib, prog): (&Path, &Path, &Path), include: &Path) -> Result<(), String> {
    let flags = format!("-I{}", include.display());
    let o = run_command(
        Command::new(cc).args(["-O1", "-w", &flags]).arg(harness).arg(lib).args(["-lm", "-lpthread", "-o"]).arg(prog),
        compile_timeout(),
    );
    if o.success() {
        Ok(())
    } else {
        Err(format!("linking: {}", o.summary()))
    }
}

fn seed() -> u64 {
    std::env::var("XCC_PROPERTY_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed)
}

fn listing<T: std::fmt::Debug>(cases: &[T]) -> String {
    cases.iter().enumerate().map(|(i, c)| format!("  case {i}: {c:?}\n")).collect()
}

fn conv_trial(strategy: Strategy) -> Result<(), String> {
    let mut rng = Rng(seed() ^ strategy as u64);
    let mut cases: Vec<Conv> = (0..CASES).map(|_| Conv::random(&mut rng, strategy)).collect();
    if strategy == Strategy::Im2col {
        // Found by seed 3: LLVM 22's X86AvoidStoreForwardingBlocks aborted on this
        // convolution's code (xcc now turns that pass off).
        let (kernel, strides, pads, dilations) = ([3, 2], [3, 3], [2, 0, 2, 1], [1, 1]);
        let tiles = vec![[0, 6, 1]];
        cases.push(Conv { c: 2, h: 2, w: 7, k: 8, kernel, strides, pads, dilations, group: 1, tiles, l2: 1 << 20 });
    }
    let program = conv_program(strategy, &cases, &mut rng);
    compile_and_run(strategy.name(), program, &listing(&cases))
}

fn gemm_trial() -> Result<(), String> {
    let mut rng = Rng(seed() ^ 0x6e);
    let cases: Vec<Gemm> = (0..CASES)
        .map(|_| Gemm { m: rng.range(1, 40), n: rng.range(1, 70), k: rng.range(1, 48), tiles: random_tiles(&mut rng) })
        .collect();
    compile_and_run("gemm", gemm_program(&cases), &listing(&cases))
}

/// One `kernel.matmul_blockwise`: A `[m, k]` by 4-bit or 8-bit weights of `n` columns in blocks
/// of `block`, the weights, scales and zero points random in the op's packed layout.
#[derive(Debug)]
struct Blockwise {
    m: usize,
    k: usize,
    n: usize,
    block: usize,
    bits: usize,
}

impl Blockwise {
    fn blocks(&self) -> usize {
        self.k.div_ceil(self.block)
    }

    fn groups(&self) -> usize {
        self.n.div_ceil(8)
    }

    fn weight_bytes(&self) -> usize {
        self.groups() * self.blocks() * self.block * 8 * self.bits / 8
    }

    fn per_block(&self) -> usize {
        self.groups() * self.blocks() * 8
    }
}

/// How the blockwise cases multiply: the op's attributes, and whether the module is compiled for
/// this machine's CPU (VNNI's products need it).
#[derive(Clone, Copy, Debug, PartialEq)]
enum BlockwiseProducts {
    /// `accuracy_level` 0: f32 arithmetic (decode's kernel for one row, the tiles of
    /// `blockwise_rows.rs` for more).
    Float,
    /// int8 activations, bytes widened on every CPU.
    Bytes,
    /// int8 activations, 16-bit pairs on CPUs with AVX2 (`blockwise_int8_rows.rs` for many rows).
    Pairs,
    /// int8 activations, `vpdpbusd`, compiled for this machine.
    Vnni,
    /// The same in the default build: `vpdpbusd` in the copy for VNNI's level, 16-bit pairs and
    /// widened bytes in the copies below (each level forced in turn).
    VnniDispatched,
    /// int8 activations, NEON's `sdot` (8-bit weights shifted to signed), for AArch64 with
    /// dotprod under qemu.
    Neon,
    /// The same with i8mm's `usdot` for 8-bit weights.
    NeonI8mm,
}

impl BlockwiseProducts {
    fn name(self) -> &'static str {
        match self {
            BlockwiseProducts::Float => "float",
            BlockwiseProducts::Bytes => "int8_bytes",
            BlockwiseProducts::Pairs => "int8_pairs",
            BlockwiseProducts::Vnni => "int8_vnni",
            BlockwiseProducts::VnniDispatched => "int8_vnni_dispatched",
            BlockwiseProducts::Neon => "int8_neon",
            BlockwiseProducts::NeonI8mm => "int8_neon_i8mm",
        }
    }

    /// The AArch64 features of NEON's products, the only target they run on.
    fn aarch64_features(self) -> Option<&'static str> {
        match self {
            BlockwiseProducts::Neon => Some("--mattr=+dotprod"),
            BlockwiseProducts::NeonI8mm => Some("--mattr=+dotprod,+i8mm"),
            _ => None,
        }
    }

    fn attrs(self) -> &'static str {
        match self {
            BlockwiseProducts::Float => "",
            BlockwiseProducts::Bytes => ", int8_activations, byte_dots = \"none\"",
            BlockwiseProducts::Pairs => ", int8_activations, byte_dots = \"none\", pair_products",
            BlockwiseProducts::Vnni => ", int8_activations, byte_dots = \"vnni\"",
            BlockwiseProducts::VnniDispatched => ", int8_activations, byte_dots = \"vnni\", pair_products",
            BlockwiseProducts::Neon => ", int8_activations, byte_dots = \"neon\"",
            BlockwiseProducts::NeonI8mm => ", int8_activations, byte_dots = \"neon_i8mm\"",
        }
    }
}

fn hex_bytes(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

fn c_list<T: std::fmt::Display>(values: impl IntoIterator<Item = T>) -> String {
    values.into_iter().map(|v| v.to_string()).collect::<Vec<_>>().join(",")
}

/// The module and C program of the blockwise cases with `products`.
fn blockwise_program(cases: &[Blockwise], products: BlockwiseProducts, rng: &mut Rng) -> (String, String) {
    let mut mlir = String::new();
    let mut c = String::from(BLOCKWISE_PRELUDE);
    let mut main = String::from("int main(void) {\n  int bad = 0;\n");
    for (i, case) in cases.iter().enumerate() {
        let q: Vec<u8> = (0..case.weight_bytes()).map(|_| rng.next() as u8).collect();
        let scales: Vec<f32> = (0..case.per_block()).map(|_| 0.001 + 0.05 * (rng.float() + 1.0) / 2.0).collect();
        let top = if case.bits == 4 { 16 } else { 256 };
        let zeros: Vec<u8> = (0..case.per_block()).map(|_| (rng.next() % top) as u8).collect();
        let scale_bytes: Vec<u8> = scales.iter().flat_map(|v| v.to_le_bytes()).collect();
        let (g, per_block) = (case.groups(), case.blocks() * 8);
        let (a, out) = (memref(&[case.m, case.k]), memref(&[case.m, case.n]));
        let qt = format!("memref<{g}x{}xi8>", case.weight_bytes() / g);
        let (st, zt) = (format!("memref<{g}x{per_block}xf32>"), format!("memref<{g}x{per_block}xi8>"));
        for (symbol, ty, bytes) in [("q", &qt, &q), ("s", &st, &scale_bytes), ("z", &zt, &zeros)] {
            let _ = writeln!(
                mlir,
                "memref.global \"private\" constant @{symbol}{i} : {ty} = dense<\"0x{}\"> : tensor<{}xi8>",
                hex_bytes(bytes),
                bytes.len()
            );
        }
        let _ = writeln!(
            mlir,
            "func.func @case{i}(%a: {a}, %y: {out}) attributes {{llvm.emit_c_interface}} {{\n  \
             %q = memref.get_global @q{i} : {qt}\n  %s = memref.get_global @s{i} : {st}\n  \
             %z = memref.get_global @z{i} : {zt}\n  \
             \"kernel.matmul_blockwise\"(%a, %q, %s, %z, %y) {{block_size = {} : i64, bits = {} : i64{}}} : \
             ({a}, {qt}, {st}, {zt}, {out}) -> ()\n  return\n}}",
            case.block,
            case.bits,
            products.attrs()
        );
        let bits: Vec<String> = scales.iter().map(|v| format!("0x{:08x}u", v.to_bits())).collect();
        let _ = writeln!(
            c,
            "void _mlir_ciface_case{i}(D2 *, D2 *);\nstatic const uint8_t q{i}[] = {{{}}};\n\
             static const uint32_t s{i}[] = {{{}}};\nstatic const uint8_t z{i}[] = {{{}}};",
            c_list(&q),
            bits.join(","),
            c_list(&zeros)
        );
        let _ = writeln!(
            main,
            "  {{ static const Case p = {{{}, {}, {}, {}, {}, {}}};\n    \
             bad |= check_blockwise({i}, &p, q{i}, s{i}, z{i}, _mlir_ciface_case{i}); }}",
            case.m,
            case.k,
            case.n,
            case.block,
            case.bits,
            i32::from(products != BlockwiseProducts::Float)
        );
    }
    main.push_str("  printf(bad ? \"MISMATCH\\n\" : \"ok\\n\");\n  return bad;\n}\n");
    (mlir, c + &main)
}

/// The naive product in double: each weight found in the packed layout by its column and K
/// index, as `kernel_blockwise.rs` defines it; with int8 activations, A quantized per block the
/// way the op says (`round(a * (127 / max |a|))` in f32).
const BLOCKWISE_PRELUDE: &str = r#"#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "memref_desc.h"

typedef struct { int m, k, n, block, bits, int8; } Case;

static int weight(const Case *p, const uint8_t *q, int col, int kk) {
  int blocks = (p->k + p->block - 1) / p->block, kp = blocks * p->block;
  int g = col / 8, j = col % 8, b = kk / p->block, within = kk % p->block, run = within / 32, in_run = within % 32;
  if (p->bits == 8) return q[(size_t)g * kp * 8 + b * p->block * 8 + j * p->block + run * 32 + in_run];
  int byte = q[(size_t)g * kp * 4 + b * p->block * 4 + j * p->block / 2 + run * 16 + in_run % 16];
  return (byte >> (4 * (in_run / 16))) & 15;
}

static int check_blockwise(int i, const Case *p, const uint8_t *q, const uint32_t *scale_bits, const uint8_t *zeros,
                           void (*run)(D2 *, D2 *)) {
  int blocks = (p->k + p->block - 1) / p->block;
  float *a = malloc(sizeof(float) * p->m * p->k), *y = malloc(sizeof(float) * p->m * p->n + 4);
  float *qa = malloc(sizeof(float) * p->k), *as = malloc(sizeof(float) * blocks);
  float *scales = malloc(sizeof(float) * (p->n + 7) / 8 * 8 * blocks);
  memcpy(scales, scale_bits, sizeof(float) * (p->n + 7) / 8 * 8 * blocks);
  for (int j = 0; j < p->m * p->k; j++) a[j] = val(j + 5 * i);
  D2 A = d2(a, p->m, p->k), Y = d2(y, p->m, p->n);
  run(&A, &Y);
  int bad = 0;
  for (int r = 0; r < p->m; r++) {
    const float *row = a + (size_t)r * p->k;
    for (int b = 0; b < blocks; b++) {
      float amax = 0;
      for (int kk = b * p->block; kk < p->k && kk < (b + 1) * p->block; kk++) amax = fmaxf(amax, fabsf(row[kk]));
      float inverse = amax > 0 ? 127.0f / amax : 0.0f;
      as[b] = amax / 127.0f;
      for (int kk = b * p->block; kk < p->k && kk < (b + 1) * p->block; kk++)
        qa[kk] = p->int8 ? rintf(row[kk] * inverse) : row[kk];
    }
    for (int col = 0; col < p->n; col++) {
      double s = 0, mag = 0;
      for (int kk = 0; kk < p->k; kk++) {
        int b = kk / p->block, at = (col / 8) * blocks * 8 + b * 8 + col % 8;
        double t = (double)qa[kk] * (weight(p, q, col, kk) - zeros[at]) * scales[at] * (p->int8 ? as[b] : 1.0);
        s += t;
        mag += fabs(t);
      }
      double got = y[(size_t)r * p->n + col];
      if (!(fabs(got - s) <= 1e-6 + 1e-5 * mag)) {
        if (!bad) printf("case %d: output (%d, %d) is %g, the sum is %g\n", i, r, col, got, s);
        bad = 1;
      }
    }
  }
  free(a); free(y); free(qa); free(as); free(scales);
  return bad;
}
"#;

fn blockwise_trial(products: BlockwiseProducts) -> Result<(), String> {
    let mut rng = Rng(seed() ^ (0xb10c + products as u64));
    let mut cases: Vec<Blockwise> = (0..CASES)
        .map(|_| {
            let block = [32, 64, 128, 256][rng.range(0, 3)];
            // One row (decode), a few, and past the 16 rows prepared at once; whole groups of 8
            // columns and a partial one; K short of a block and over several.
            let m = [1, rng.range(2, 9), rng.range(15, 40)][rng.range(0, 2)];
            Blockwise { m, k: rng.range(1, 3 * block), n: rng.range(1, 40), block, bits: [4, 8][rng.range(0, 1)] }
        })
        .collect();
    // The shapes of a language model's prompt: many rows over whole groups.
    cases.push(Blockwise { m: 37, k: 96, n: 24, block: 32, bits: 4 });
    let program = blockwise_program(&cases, products, &mut rng);
    let name = format!("blockwise-{}", products.name());
    if let Some(features) = products.aarch64_features() {
        return cross_compile_and_run_on(&name, &program, &listing(&cases), Some("aarch64"), &[features]);
    }
    if matches!(products, BlockwiseProducts::Float | BlockwiseProducts::Bytes) {
        cross_compile_and_run(&name, &program, &listing(&cases))?;
    }
    let flags: &[&str] = if products == BlockwiseProducts::Vnni { &["--mcpu=native"] } else { &[] };
    compile_and_run_with(&name, program, &listing(&cases), flags)
}

/// One `kernel.attention`: Q `[b, hkv * group, s, d]`, K `[b, hkv, t, d]`, V `[b, hkv, t, dv]`,
/// a bias (`[b or 1, heads or 1, s or 1, t]`, `broadcast` saying which are 1) whose `mask`
/// puts -inf at some keys, and `heads_per_pass` of the group recorded.
#[derive(Debug)]
struct Attention {
    b: usize,
    hkv: usize,
    group: usize,
    s: usize,
    t: usize,
    d: usize,
    dv: usize,
    bias: Option<[bool; 3]>,
    mask: Mask,
    heads_per_pass: usize,
    scale: f32,
}

/// Which keys a bias masks (-inf).
#[derive(Clone, Copy, Debug)]
enum Mask {
    None,
    /// Every key after the query's own position (`s` queries at the end of `t` keys).
    Causal,
    /// A scattered few, and every key of the bias's first row.
    Scattered,
}

impl Attention {
    fn random(rng: &mut Rng) -> Attention {
        let group = [1, 2, 3, 4][rng.range(0, 3)];
        let divisors: Vec<usize> = (1..=group).filter(|p| group % p == 0).collect();
        let heads_per_pass = divisors[rng.range(0, divisors.len() - 1)];
        let s = rng.range(1, 5);
        let bias = (rng.range(0, 3) > 0).then(|| [rng.range(0, 1) == 1, rng.range(0, 1) == 1, rng.range(0, 1) == 1]);
        let mask = match (bias.is_some(), rng.range(0, 2)) {
            (false, _) | (_, 0) => Mask::None,
            (_, 1) => Mask::Causal,
            _ => Mask::Scattered,
        };
        Attention {
            b: rng.range(1, 2),
            hkv: rng.range(1, 3),
            group,
            s,
            t: rng.range(s, 45),
            d: 8 * rng.range(1, 3),
            dv: 8 * rng.range(1, 3),
            bias,
            mask,
            heads_per_pass,
            scale: 0.1 + rng.float().abs(),
        }
    }

    fn bias_dims(&self, broadcast: [bool; 3]) -> [usize; 4] {
        let pick = |one: bool, n: usize| if one { 1 } else { n };
        [pick(broadcast[0], self.b), pick(broadcast[1], self.hkv * self.group), pick(broadcast[2], self.s), self.t]
    }
}

fn attention_program(cases: &[Attention]) -> (String, String) {
    let mut mlir = String::new();
    let mut c = String::from(ATTENTION_PRELUDE);
    let mut main = String::from("int main(void) {\n  int bad = 0;\n");
    for (i, a) in cases.iter().enumerate() {
        let hq = a.hkv * a.group;
        let q = memref(&[a.b, hq, a.s, a.d]);
        let k = memref(&[a.b, a.hkv, a.t, a.d]);
        let v = memref(&[a.b, a.hkv, a.t, a.dv]);
        let out = memref(&[a.b, hq, a.s, a.dv]);
        let bias_dims = a.bias.map_or([0; 4], |broadcast| a.bias_dims(broadcast));
        let (params, types, operands) = match a.bias {
            Some(_) => {
                let bias = memref(&bias_dims);
                (
                    format!("%q: {q}, %k: {k}, %v: {v}, %bias: {bias}, %y: {out}"),
                    format!("{q}, {k}, {v}, {bias}, {out}"),
                    "%q, %k, %v, %bias, %y",
                )
            }
            None => {
                (format!("%q: {q}, %k: {k}, %v: {v}, %y: {out}"), format!("{q}, {k}, {v}, {out}"), "%q, %k, %v, %y")
            }
        };
        let _ = writeln!(
            mlir,
            "func.func @case{i}({params}) attributes {{llvm.emit_c_interface}} {{\n  \
             \"kernel.attention\"({operands}) {{scale = {:e} : f32, heads_per_pass = {} : i64}} : ({types}) -> ()\n  return\n}}",
            a.scale, a.heads_per_pass
        );
        let descs = if a.bias.is_some() { "D4 *, D4 *, D4 *, D4 *, D4 *" } else { "D4 *, D4 *, D4 *, D4 *" };
        let _ = writeln!(c, "void _mlir_ciface_case{i}({descs});");
        let mask = match a.mask {
            Mask::None => 0,
            Mask::Causal => 1,
            Mask::Scattered => 2,
        };
        let _ = writeln!(
            main,
            "  {{ Case c = {{{i}, {}, {}, {}, {}, {}, {}, {}, {{{}}}, {}, {}, {:e}f, (void (*)(void))_mlir_ciface_case{i}}};\n    bad |= check_attention(&c); }}",
            a.b,
            a.hkv,
            a.group,
            a.s,
            a.t,
            a.d,
            a.dv,
            c_list(bias_dims),
            a.bias.is_some() as u8,
            mask,
            a.scale
        );
    }
    main.push_str("  printf(bad ? \"MISMATCH\\n\" : \"ok\\n\");\n  return bad;\n}\n");
    (mlir, c + &main)
}

/// The naive attention in double: each row's scores, their softmax (zeros where every key is
/// masked) and the weighted values.
const ATTENTION_PRELUDE: &str = r#"#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "memref_desc.h"

typedef struct {
  int i, b, hkv, group, s, t, d, dv;
  int bias_dims[4];
  int has_bias, mask;
  float scale;
  void (*run)(void);
} Case;

/* Hashed values in [-1, 1]: no period, so each part of a long row of keys has its own largest
   score (val()'s period of 23 would repeat every key of a part in the next). */
static float *filled(long n, int seed) {
  float *p = malloc(sizeof(float) * (n ? n : 1));
  for (long j = 0; j < n; j++) {
    uint32_t x = (uint32_t)(j * 7 + seed) * 2654435761u;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    p[j] = (float)(x % 2001) / 1000.0f - 1.0f;
  }
  return p;
}

static int check_attention(const Case *c) {
  int hq = c->hkv * c->group, *bd = (int *)c->bias_dims;
  long nq = (long)c->b * hq * c->s * c->d, nk = (long)c->b * c->hkv * c->t * c->d;
  long nv = (long)c->b * c->hkv * c->t * c->dv, no = (long)c->b * hq * c->s * c->dv;
  long nb = (long)bd[0] * bd[1] * bd[2] * bd[3];
  float *q = filled(nq, c->i), *k = filled(nk, 3 * c->i + 1), *v = filled(nv, 5 * c->i + 2);
  float *bias = filled(nb, 11 * c->i + 3), *out = filled(no, 13);
  for (long j = 0; j < nb; j++) {
    int t = (int)(j % bd[3]), row = (int)(j / bd[3]), sq = row % bd[2];
    int causal = c->mask == 1 && t > c->t - c->s + (bd[2] == 1 ? c->s - 1 : sq);
    int scattered = c->mask == 2 && (row == 0 || (t * 7 + row * 3) % 5 == 0);
    if (causal || scattered) bias[j] = -INFINITY;
  }
  D4 Q = d4(q, c->b, hq, c->s, c->d), K = d4(k, c->b, c->hkv, c->t, c->d);
  D4 V = d4(v, c->b, c->hkv, c->t, c->dv), O = d4(out, c->b, hq, c->s, c->dv);
  D4 B = d4(bias, bd[0], bd[1], bd[2], bd[3]);
  if (c->has_bias)
    ((void (*)(D4 *, D4 *, D4 *, D4 *, D4 *))c->run)(&Q, &K, &V, &B, &O);
  else
    ((void (*)(D4 *, D4 *, D4 *, D4 *))c->run)(&Q, &K, &V, &O);
  double *w = malloc(sizeof(double) * c->t);
  int bad = 0;
  for (int b = 0; b < c->b; b++)
    for (int h = 0; h < hq; h++)
      for (int s = 0; s < c->s; s++) {
        const float *qr = q + (((long)b * hq + h) * c->s + s) * c->d;
        long kv = (long)b * c->hkv + h / c->group;
        double max = -INFINITY, sum = 0;
        for (int t = 0; t < c->t; t++) {
          double dot = 0;
          for (int j = 0; j < c->d; j++) dot += (double)qr[j] * k[(kv * c->t + t) * c->d + j];
          w[t] = c->scale * dot;
          if (c->has_bias) {
            long at = (((long)(bd[0] == 1 ? 0 : b) * bd[1] + (bd[1] == 1 ? 0 : h)) * bd[2] + (bd[2] == 1 ? 0 : s)) * bd[3];
            w[t] += bias[at + t];
          }
          if (w[t] > max) max = w[t];
        }
        for (int t = 0; t < c->t; t++) {
          w[t] = max == -INFINITY ? 0 : exp(w[t] - max);
          sum += w[t];
        }
        for (int j = 0; j < c->dv; j++) {
          double y = 0;
          for (int t = 0; t < c->t; t++) y += w[t] * v[(kv * c->t + t) * c->dv + j];
          y = sum > 0 ? y / sum : 0;
          float got = out[(((long)b * hq + h) * c->s + s) * c->dv + j];
          if (!(fabs(got - y) <= 1e-5 + 1e-5 * fabs(y))) {
            if (!bad) printf("case %d: out[%d][%d][%d][%d] is %g, the attention is %g\n", c->i, b, h, s, j, got, y);
            bad = 1;
          }
        }
      }
  free(q); free(k); free(v); free(bias); free(out); free(w);
  return bad;
}
"#;

/// Attention over grouped heads with each pass size a group allows, ragged keys, broadcast
/// biases and masks (causal, scattered, whole rows), and decode rows over long caches (split
/// into parts), against the naive loops at 1, 2, 3 and 8 threads.
fn attention_trial() -> Result<(), String> {
    let mut rng = Rng(seed() ^ 0xa7);
    let mut cases: Vec<Attention> = (0..CASES).map(|_| Attention::random(&mut rng)).collect();
    // Decode rows over long caches, whose keys the kernel splits into parts (`key_parts`): at
    // the fewest keys that split, ragged ones, and a row every key of which is masked.
    for (t, mask) in [(256, Mask::None), (300, Mask::Scattered), (1029, Mask::Causal), (777, Mask::None)] {
        let mut a = Attention::random(&mut rng);
        (a.b, a.s, a.t, a.mask) = (1, 1, t, mask);
        if !matches!(mask, Mask::None) {
            a.bias = Some([true, false, true]);
        }
        cases.push(a);
    }
    let threads = [Some(1), Some(2), Some(3), Some(8)];
    let program = attention_program(&cases);
    cross_compile_and_run("attention", &program, &listing(&cases))?;
    compile_and_run_threaded("attention", program, &listing(&cases), &[], &threads)
}

/// Whether this CPU multiplies bytes with AVX-512 VNNI.
fn has_vnni() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx512vnni") && is_x86_feature_detected!("avx512vl")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

fn main() -> std::process::ExitCode {
    let mut trials: Vec<Trial> = [Strategy::Winograd, Strategy::Depthwise, Strategy::Im2col, Strategy::Direct]
        .into_iter()
        .map(|s| Trial::test(format!("kernel-strategies/conv/{}", s.name()), move || Ok(conv_trial(s)?)))
        .collect();
    trials.push(Trial::test("kernel-strategies/gemm/register_tiles", || Ok(gemm_trial()?)));
    trials.push(Trial::test("kernel-strategies/attention/heads_per_pass", || Ok(attention_trial()?)));
    if !has_vnni() {
        println!("skipped: kernel-strategies/blockwise/int8_vnni (this CPU has no AVX-512 VNNI)");
    }
    for target in CROSS_TARGETS.iter().filter(|t| !t.available()) {
        println!(
            "skipped: kernel-strategies' runs for {} under qemu ({} or {} is missing)",
            target.arch, target.gcc, target.qemu
        );
    }
    for products in [
        BlockwiseProducts::Float,
        BlockwiseProducts::Bytes,
        BlockwiseProducts::Pairs,
        BlockwiseProducts::Vnni,
        BlockwiseProducts::VnniDispatched,
        BlockwiseProducts::Neon,
        BlockwiseProducts::NeonI8mm,
    ] {
        let trial = Trial::test(format!("kernel-strategies/blockwise/{}", products.name()), move || {
            Ok(blockwise_trial(products)?)
        });
        let no_aarch64 = !CROSS_TARGETS[0].available();
        let ignored = (products == BlockwiseProducts::Vnni && !has_vnni())
            || (products.aarch64_features().is_some() && no_aarch64);
        trials.push(trial.with_ignored_flag(ignored));
    }
    run_trials(trials)
}
