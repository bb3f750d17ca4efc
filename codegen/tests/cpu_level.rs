//! The x86-64 level a target's code is compiled for, which `cpu-dispatch` folds
//! `xcc_cpu_level()` to: from the CPU's name, from `--mattr` on top of it, from the host's own
//! features for `native` (checked against Rust's feature detection), unknown for a CPU only LLVM
//! knows, and 0 off x86; 5 for x86-64-v4 with AVX-512 VNNI.

use xcc_codegen::resolve_target;

fn level(target: &str, cpu: Option<&str>, features: Option<&str>) -> Option<u32> {
    resolve_target(target, cpu, features).expect("a known target").level
}

#[test]
fn levels_from_names_and_features() {
    assert_eq!(level("x86_64", None, None), Some(2), "the portable default");
    assert_eq!(level("x86_64", Some("x86-64-v3"), None), Some(3));
    assert_eq!(level("x86_64", Some("x86-64-v4"), None), Some(4));
    assert_eq!(level("x86_64", Some("x86-64-v4"), Some("+avx512vnni")), Some(5), "v4 with VNNI");
    assert_eq!(level("x86_64", None, Some("+avx2,+fma")), Some(3), "x86-64-v2 with AVX2 and FMA");
    assert_eq!(level("x86_64", None, Some("+avx512f")), Some(2), "AVX-512F alone is not level 4");
    // A CPU named for another machine (on the host itself, its name means `native`).
    let host = inkwell::targets::TargetMachine::get_host_cpu_name().to_string();
    let other = ["znver4", "sapphirerapids"].into_iter().find(|c| *c != host).expect("one differs");
    assert_eq!(level("x86_64", Some(other), None), None, "only LLVM knows {other}'s features");
    assert_eq!(level("aarch64", None, None), Some(0));
    assert_eq!(level("nvptx64", None, None), Some(0));
}

#[cfg(target_arch = "x86_64")]
#[test]
fn native_is_the_hosts_level() {
    let avx512 = ["avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512vnni"];
    let avx512_level = is_x86_feature_detected!("avx512f")
        && is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("avx512vl")
        && is_x86_feature_detected!("avx512dq");
    let want = if avx512_level && is_x86_feature_detected!("avx512vnni") {
        5
    } else if avx512_level {
        4
    } else if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        3
    } else if is_x86_feature_detected!("sse4.2") {
        2
    } else {
        1
    };
    assert_eq!(level("x86_64", Some("native"), None), Some(want), "features {avx512:?} and AVX2/FMA as detected");
}
