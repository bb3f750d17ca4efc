//! Links the embedded runtime objects into a small C program and runs it:
//! several DMAs in flight on two tags holding garbage (left untouched), tags in recycled heap
//! memory, copies started on other threads and waited for here, xcc_alloc's alignment contract, and parallel-for on pools
//! of several sizes (every iteration exactly once, nested loops inline, a caller's callback).
//! Needs only a host C compiler (and, for aarch64 and riscv64, a cross gcc and qemu-user).

use libtest_mimic::Trial;
use std::path::{Path, PathBuf};
use std::process::Command;

const MAIN_C: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "xcc_runtime.h"

#include <stdatomic.h>
#include <pthread.h>
#include <stdlib.h>

struct starter {
  uint8_t (*d)[256];
  uint8_t (*s)[256];
  int32_t *tag;
};
static atomic_int next_half;

/* Starts the copies of the next half of 64 buffers not yet taken, on the calling thread. */
static void *start_half(void *arg) {
  struct starter *j = arg;
  int h = atomic_fetch_add(&next_half, 1);
  for (int i = 32 * h; i < 32 * h + 32; i++) {
    memset(j->s[i], 7 + i, 256);
    xcc_dma_start(j->d[i], j->s[i], 256, j->tag);
  }
  return NULL;
}

#define VISITS 100003
static atomic_int visits[VISITS];
static atomic_int nested_calls;

static void count(void *ctx, int64_t begin, int64_t end) {
  (void)ctx;
  for (int64_t i = begin; i < end; i++) atomic_fetch_add(&visits[i], 1);
}

/* A loop started inside a slice (on a worker or the submitter) must run inline, not deadlock. */
static void nested(void *ctx, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; i++) {
    xcc_parallel_for(count, ctx, 0);
    atomic_fetch_add(&nested_calls, 1);
  }
}

static void serial_for(void *user, xcc_task_fn task, void *ctx, int64_t n) {
  *(int *)user += 1;
  task(ctx, 0, n);
}

static int each_once(int64_t n) {
  for (int64_t i = 0; i < VISITS; i++) {
    if (atomic_load(&visits[i]) != (i < n)) return 0;
    atomic_store(&visits[i], 0);
  }
  return 1;
}

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); return 1; } } while (0)

int main(void) {
  /* Four DMAs of different sizes, two per tag, all in flight together. */
  const int64_t sizes[4] = {1 << 20, (1 << 20) - 7, 3 << 19, 12345};
  uint8_t *src[4], *dst[4];
  for (int i = 0; i < 4; i++) {
    src[i] = xcc_alloc(sizes[i], 64);
    dst[i] = xcc_alloc(sizes[i], 64);
    CHECK(src[i] && dst[i]);
    for (int64_t j = 0; j < sizes[i]; j++)
      src[i][j] = (uint8_t)(j * 31 + i * 7 + (j >> 8));
    memset(dst[i], 0xAA, (size_t)sizes[i]);
  }
  /* The tags hold garbage, as an alloc that was never written does: they must not matter, and
   * their memory must not be touched. */
  int32_t tag_a = 0x5a5a5a5a, tag_b = -3;
  for (int i = 0; i < 4; i++)
    xcc_dma_start(dst[i], src[i], sizes[i], (i & 1) ? &tag_b : &tag_a);
  xcc_dma_wait(&tag_a, sizes[0] + sizes[2]);
  CHECK(tag_a == 0x5a5a5a5a);
  CHECK(memcmp(dst[0], src[0], (size_t)sizes[0]) == 0);
  CHECK(memcmp(dst[2], src[2], (size_t)sizes[2]) == 0);
  xcc_dma_wait(&tag_b, sizes[1] + sizes[3]);
  CHECK(tag_b == -3);
  for (int i = 0; i < 4; i++) {
    CHECK(memcmp(dst[i], src[i], (size_t)sizes[i]) == 0);
    xcc_free(src[i]);
    xcc_free(dst[i]);
  }
  /* Waiting on an idle tag returns at once. */
  xcc_dma_wait(&tag_a, 0);

  /* Many small DMAs sharing one tag, to stress the counting. */
  static uint8_t s[64][256], d[64][256];
  int32_t tag = 0;
  for (int r = 0; r < 8; r++) {
    int32_t before = tag;
    for (int i = 0; i < 64; i++) {
      memset(s[i], r * 64 + i, sizeof s[i]);
      xcc_dma_start(d[i], s[i], sizeof s[i], &tag);
    }
    xcc_dma_wait(&tag, 64 * 256);
    CHECK(tag == before);
    tag = r * 1000 - 1; /* whatever the next round starts from */
    for (int i = 0; i < 64; i++)
      CHECK(memcmp(d[i], s[i], sizeof s[i]) == 0);
  }

  /* Tags in recycled heap memory: a buffer that held other data is freed and its memory comes
   * back as the tag of the next round, which must still wait for exactly its own copies. */
  for (int r = 0; r < 4; r++) {
    int32_t *junk = malloc(64);
    CHECK(junk);
    memset(junk, 0x80 + r, 64);
    free(junk);
    int32_t *t = malloc(64);
    CHECK(t);
    for (int i = 0; i < 16; i++) {
      memset(s[i], 3 * r + i, sizeof s[i]);
      xcc_dma_start(d[i], s[i], sizeof s[i], t);
    }
    xcc_dma_wait(t, 0);
    for (int i = 0; i < 16; i++)
      CHECK(memcmp(d[i], s[i], sizeof s[i]) == 0);
    free(t);
  }

  /* Started on other threads, waited for here. */
  struct starter job = {d, s, &tag};
  pthread_t th[2];
  for (int k = 0; k < 2; k++)
    CHECK(pthread_create(&th[k], NULL, start_half, &job) == 0);
  for (int k = 0; k < 2; k++)
    pthread_join(th[k], NULL);
  xcc_dma_wait(&tag, 0);
  for (int i = 0; i < 64; i++)
    CHECK(memcmp(d[i], s[i], sizeof s[i]) == 0);

  /* Alignment and zero-size allocations. */
  const int64_t aligns[] = {1, 16, 64, 4096};
  for (unsigned k = 0; k < sizeof aligns / sizeof aligns[0]; k++) {
    int64_t want = aligns[k] < 16 ? 16 : aligns[k];
    void *p = xcc_alloc(1000, aligns[k]);
    CHECK(p && (uintptr_t)p % (uintptr_t)want == 0);
    memset(p, 1, 1000);
    xcc_free(p);
  }
  void *z1 = xcc_alloc(0, 64), *z2 = xcc_alloc(0, 64);
  CHECK(z1 && z2 && z1 != z2 && (uintptr_t)z1 % 64 == 0);
  xcc_free(z1);
  xcc_free(z2);
  CHECK(xcc_alloc(-1, 16) == NULL);

  /* Parallel loops: pools of 1, 2, 3 and 8 threads, loop sizes around the chunk counts. */
  const int pools[] = {1, 2, 3, 8};
  const int64_t ns[] = {1, 2, 7, 8, 31, 32, 33, 64, 127, 128, 129, 1000, 100003};
  for (unsigned k = 0; k < 4; k++) {
    xcc_threadpool *pool = xcc_threadpool_create(pools[k]);
    CHECK(pool && xcc_threadpool_size(pool) == pools[k]);
    xcc_run_options o = {.pool = pool};
    const xcc_run_options *previous = xcc_run_options_enter(&o);
    CHECK(xcc_parallel_threads() == pools[k]);
    for (unsigned j = 0; j < sizeof ns / sizeof ns[0]; j++) {
      for (int r = 0; r < 20; r++) {
        xcc_parallel_for(count, NULL, ns[j]);
        CHECK(each_once(ns[j]));
      }
    }
    xcc_parallel_for(nested, NULL, 100);
    CHECK(atomic_load(&nested_calls) == 100);
    atomic_store(&nested_calls, 0);
    xcc_run_options_leave(previous);
    xcc_threadpool_destroy(pool);
  }
  /* The default pool, a thread limit, and a caller's parallel-for. */
  xcc_parallel_for(count, NULL, 1000);
  CHECK(each_once(1000) && xcc_default_threadpool() != NULL);
  int calls = 0;
  xcc_run_options mine = {.parallel_for = serial_for, .parallel_for_user = &calls};
  const xcc_run_options *previous = xcc_run_options_enter(&mine);
  xcc_parallel_for(count, NULL, 500);
  CHECK(xcc_parallel_threads() == 0);
  xcc_run_options_leave(previous);
  CHECK(calls == 1 && each_once(500));
  xcc_run_options one = {.num_threads = 1};
  previous = xcc_run_options_enter(&one);
  CHECK(xcc_parallel_threads() == 1);
  xcc_run_options_leave(previous);

  printf("cpu level %d\n", (int)xcc_cpu_level());
  puts("xcc runtime ok");
  return 0;
}
"#;

fn scratch_dir(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let dir = std::env::temp_dir().join(format!("xcc-runtime-c-{name}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH").map(|paths| std::env::split_paths(&paths).any(|d| d.join(tool).is_file())).unwrap_or(false)
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Writes the program, header and `arch`'s embedded object into a fresh dir,
/// links them with `cc`, and returns the dir (the binary is `t`).
fn build(arch: &str, cc: &str) -> PathBuf {
    let dir = scratch_dir(arch);
    std::fs::write(dir.join("main.c"), MAIN_C).unwrap();
    std::fs::write(dir.join("xcc_runtime.h"), xcc_runtime_c::HEADER).unwrap();
    std::fs::write(dir.join("xcc_run.h"), xcc_runtime_c::RUN_HEADER).unwrap();
    let mut objects = Vec::new();
    for (name, obj) in xcc_runtime_c::runtime_members(&xcc_runtime_c::objects_for_arch(arch).unwrap().runtime) {
        std::fs::write(dir.join(&name), obj).unwrap();
        objects.push(name);
    }
    run(Command::new(cc).current_dir(&dir).args(["-std=c11", "-O1", "main.c"]).args(&objects).args([
        "-lpthread",
        "-o",
        "t",
    ]));
    dir
}

/// The sanitizer flags of the sanitized runs: AddressSanitizer and UndefinedBehaviorSanitizer,
/// every report fatal.
const SANITIZE: &[&str] =
    &["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"];

/// The program built with the sanitizers, and the runtime with it: from its C source (ASan and
/// UBSan), or the object `xcc --sanitize=address` libraries carry (clang-22, ASan).
fn build_sanitized(runtime_from_source: bool) -> PathBuf {
    let dir = scratch_dir(if runtime_from_source { "sanitized-source" } else { "sanitized-object" });
    std::fs::write(dir.join("main.c"), MAIN_C).unwrap();
    std::fs::write(dir.join("xcc_runtime.h"), xcc_runtime_c::HEADER).unwrap();
    std::fs::write(dir.join("xcc_run.h"), xcc_runtime_c::RUN_HEADER).unwrap();
    let mut runtime = Vec::new();
    if runtime_from_source {
        std::fs::write(dir.join("xcc_internal.h"), xcc_runtime_c::INTERNAL_HEADER).unwrap();
        for (file, text) in xcc_runtime_c::SOURCES {
            std::fs::write(dir.join(file), text).unwrap();
            runtime.push(file.to_string());
        }
    } else {
        for (name, obj) in xcc_runtime_c::runtime_members(&xcc_runtime_c::RUNTIME_X86_64_ASAN) {
            std::fs::write(dir.join(&name), obj).unwrap();
            runtime.push(name);
        }
    }
    run(Command::new("cc")
        .current_dir(&dir)
        .args(["-std=c11", "-D_GNU_SOURCE", "-O1", "-g"])
        .args(SANITIZE)
        .arg("main.c")
        .args(&runtime)
        .args(["-lpthread", "-o", "t"]));
    dir
}

/// Whether `cc` builds and runs sanitized programs here.
fn sanitizers_available() -> bool {
    let dir = scratch_dir("sanitizer-probe");
    std::fs::write(dir.join("p.c"), "int main(void) { return 0; }\n").unwrap();
    let built = Command::new("cc").current_dir(&dir).args(SANITIZE).args(["p.c", "-o", "p"]).status();
    let ok = built.is_ok_and(|s| s.success()) && Command::new(dir.join("p")).status().is_ok_and(|s| s.success());
    cleanup(&dir);
    ok
}

/// The DMA and allocation program under AddressSanitizer (leaks included) and
/// UndefinedBehaviorSanitizer, on one thread and with the pool.
fn dma_and_alloc_sanitized(runtime_from_source: bool) {
    let dir = build_sanitized(runtime_from_source);
    let stdout = run(Command::new(dir.join("t")).current_dir(&dir).env("ASAN_OPTIONS", "detect_leaks=1"));
    assert!(stdout.ends_with("xcc runtime ok\n"), "{stdout}");
    cleanup(&dir);
}

fn cleanup(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
}

/// The level `xcc_cpu_level()` must report on this machine, by Rust's own feature detection.
#[cfg(target_arch = "x86_64")]
fn host_level() -> i32 {
    let v2 = is_x86_feature_detected!("sse4.2") && is_x86_feature_detected!("popcnt");
    let v3 = v2
        && is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("fma")
        && is_x86_feature_detected!("bmi1")
        && is_x86_feature_detected!("bmi2")
        && is_x86_feature_detected!("f16c")
        && is_x86_feature_detected!("lzcnt")
        && is_x86_feature_detected!("movbe");
    let v4 = v3
        && is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512cd")
        && is_x86_feature_detected!("avx512dq")
        && is_x86_feature_detected!("avx512vl");
    let vnni = v4 && is_x86_feature_detected!("avx512vnni");
    1 + v2 as i32 + v3 as i32 + v4 as i32 + vnni as i32
}

#[cfg(not(target_arch = "x86_64"))]
fn host_level() -> i32 {
    0
}

fn dma_and_alloc_x86_64() {
    let dir = build("x86_64", "cc");
    let level = host_level();
    let stdout = run(Command::new(dir.join("t")).current_dir(&dir));
    assert_eq!(stdout.trim(), format!("cpu level {level}\nxcc runtime ok"));
    // XCC_CPU_LEVEL lowers the level, and never raises it.
    let stdout = run(Command::new(dir.join("t")).current_dir(&dir).env("XCC_CPU_LEVEL", "1"));
    assert!(stdout.contains("cpu level 1\n"), "{stdout}");
    let stdout = run(Command::new(dir.join("t")).current_dir(&dir).env("XCC_CPU_LEVEL", "9"));
    assert!(stdout.contains(&format!("cpu level {level}\n")), "{stdout}");
    cleanup(&dir);
}

/// The CPUs the runtime is also tested on under qemu-user: the arch, its cross gcc, qemu and
/// qemu's arguments.
const CROSS: [(&str, &str, &str, &[&str]); 2] = [
    ("aarch64", "aarch64-linux-gnu-gcc", "qemu-aarch64", &["-L", "/usr/aarch64-linux-gnu"]),
    ("riscv64", "riscv64-linux-gnu-gcc", "qemu-riscv64", &["-L", "/usr/riscv64-linux-gnu"]),
];

fn dma_and_alloc_under_qemu((arch, gcc, qemu, args): (&str, &str, &str, &[&str])) {
    let dir = build(arch, gcc);
    let stdout = run(Command::new(qemu).current_dir(&dir).args(args).arg("./t"));
    assert_eq!(stdout.trim(), "cpu level 0\nxcc runtime ok");
    cleanup(&dir);
}

/// Each run is reported ignored, with the reason, where it cannot run here.
fn main() -> std::process::ExitCode {
    let native = std::env::consts::ARCH == "x86_64";
    if !native {
        println!("skipped: the x86_64 run (the host is {})", std::env::consts::ARCH);
    }
    let sanitizers = native && sanitizers_available();
    if native && !sanitizers {
        println!("skipped: the sanitized runs (cc cannot build and run -fsanitize=address,undefined programs here)");
    }
    let mut trials = vec![
        Trial::test("dma_and_alloc_x86_64_sanitized", || {
            dma_and_alloc_sanitized(true);
            Ok(())
        })
        .with_ignored_flag(!sanitizers),
        Trial::test("dma_and_alloc_x86_64_with_the_asan_runtime_object", || {
            dma_and_alloc_sanitized(false);
            Ok(())
        })
        .with_ignored_flag(!sanitizers),
        Trial::test("dma_and_alloc_x86_64", || {
            dma_and_alloc_x86_64();
            Ok(())
        })
        .with_ignored_flag(!native),
    ];
    for target in CROSS {
        let (arch, gcc, qemu, _) = target;
        let cross = on_path(qemu) && on_path(gcc);
        if !cross {
            println!("skipped: the {arch} run ({qemu} or {gcc} not on PATH; scripts/setup.sh installs them)");
        }
        let trial = Trial::test(format!("dma_and_alloc_{arch}_under_qemu"), move || {
            dma_and_alloc_under_qemu(target);
            Ok(())
        });
        trials.push(trial.with_ignored_flag(!cross));
    }
    libtest_mimic::run(&libtest_mimic::Arguments::from_args(), trials).exit_code()
}
