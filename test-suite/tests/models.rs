//! The shared models (`../shared/models`): each is compiled by xcc, linked into a C program and a
//! C++ program through its generated header, run on `NAME.input.bin`, and compared with
//! `NAME.output.bin` and with ONNX Runtime run live on the same input (1e-4 relative plus 1e-5
//! absolute). Skipped, with a message, where `../shared` is absent.

use prost::Message;
use std::path::{Path, PathBuf};
use std::process::Command;
use xcc_frontend_onnx::proto::{
    attribute_proto, tensor_proto, tensor_shape_proto, type_proto, ModelProto, ValueInfoProto,
};
use xcc_test_suite::{
    compare_f32, discard_when_passed, read_f32, run_trials_then_discard, suite_dir, xcc_binary, CrossTarget,
    CROSS_TARGETS,
};

fn repo() -> PathBuf {
    suite_dir().parent().unwrap().to_path_buf()
}

fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    run_output(cmd.output(), what)
}

fn run_output(out: std::io::Result<std::process::Output>, what: &str) -> Result<(), String> {
    let out = out.map_err(|e| format!("{what}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// ONNX Runtime's output for the same input, computed now.
fn onnxruntime(model: &Path, input: &Path, shape: &[u64], out: &Path) -> Result<(), String> {
    let python = repo().join(".venv/bin/python");
    let script = format!(
        "import numpy as np, onnxruntime as ort\n\
         s = ort.InferenceSession('{}', providers=['CPUExecutionProvider'])\n\
         x = np.fromfile('{}', dtype=np.float32).reshape({:?})\n\
         y = s.run(None, {{s.get_inputs()[0].name: x}})[0]\n\
         y.astype(np.float32).tofile('{}')\n",
        model.display(),
        input.display(),
        shape,
        out.display()
    );
    run(Command::new(python).arg("-c").arg(script), "onnxruntime")
}

fn input_shape(name: &str) -> Vec<u64> {
    let manifest = std::fs::read_to_string(repo().join("../shared/models/manifest.json")).unwrap();
    // The manifest is small; find `"NAME": {... "input": {... "shape": [..]` without a JSON crate.
    let at = manifest.find(&format!("\"{name}\"")).expect("model in manifest");
    let rest = &manifest[at..];
    let input = &rest[rest.find("\"input\"").unwrap()..];
    let shape = &input[input.find("\"shape\"").unwrap()..];
    let list = &shape[shape.find('[').unwrap() + 1..shape.find(']').unwrap()];
    list.split(',').map(|d| d.trim().parse().unwrap()).collect()
}

fn check_model(name: &str, work: &Path) -> Result<String, String> {
    let models = repo().join("../shared/models");
    let dir = work.join(name).join("host");
    std::fs::create_dir_all(&dir).unwrap();
    let lib = dir.join(format!("lib{name}.a"));
    run(Command::new(xcc_binary()).arg(models.join(format!("{name}.onnx"))).args(["-O3", "-o"]).arg(&lib), "xcc")?;
    let up = name.to_uppercase();
    let template = std::fs::read_to_string(suite_dir().join("models/harness.c.in")).unwrap();
    let harness = template.replace("@NAME@", name).replace("@UP@", &up);
    let input = models.join(format!("{name}.input.bin"));
    let want = read_f32(&models.join(format!("{name}.output.bin")))?;
    let ort_out = dir.join("ort.bin");
    onnxruntime(&models.join(format!("{name}.onnx")), &input, &input_shape(name), &ort_out)?;
    let ort = read_f32(&ort_out)?;
    let mut notes = Vec::new();
    for (lang, compiler, file) in [("C", "cc", "harness.c"), ("C++", "c++", "harness.cpp")] {
        std::fs::write(dir.join(file), &harness).unwrap();
        let exe = dir.join(format!("run_{}", if lang == "C" { "c" } else { "cpp" }));
        run(
            Command::new(compiler)
                .arg("-O2")
                .arg("-I")
                .arg(&dir)
                .arg(dir.join(file))
                .arg(&lib)
                .args(["-lm", "-lpthread", "-o"])
                .arg(&exe),
            &format!("{lang} link"),
        )?;
        // The library carries code for several x86-64 levels: each one this machine can run is
        // forced in turn (from C; the C++ program runs the level the dispatch picks).
        let levels = if lang == "C" { xcc_test_suite::cpu_levels() } else { vec![None] };
        for level in levels {
            let out = dir.join(format!("out_{}.bin", if lang == "C" { "c" } else { "cpp" }));
            let mut cmd = Command::new(&exe);
            if let Some(l) = level {
                cmd.env("XCC_CPU_LEVEL", l.to_string());
            }
            run(cmd.arg(&input).arg(&out), &format!("{lang} program"))?;
            let got = read_f32(&out)?;
            let what = match level {
                Some(l) => format!("{lang} at x86-64 level {l}"),
                None => lang.to_string(),
            };
            let w1 = compare_f32(&format!("{what} vs {name}.output.bin"), &got, &want, 1e-5)?;
            let w2 = compare_f32(&format!("{what} vs onnxruntime"), &got, &ort, 1e-5)?;
            notes.push(format!("{what}: worst error {w1:.2} (reference), {w2:.2} (live onnxruntime) of the tolerance"));
        }
    }
    Ok(notes.join("; "))
}

/// The model compiled for another CPU (`target`), cross-linked, and run under qemu: its output
/// against the reference and ONNX Runtime's, as on the host.
fn cross_run(name: &str, work: &Path, target: &CrossTarget) -> Result<String, String> {
    let models = repo().join("../shared/models");
    let template = std::fs::read_to_string(suite_dir().join("models/harness.c.in")).unwrap();
    let harness = template.replace("@NAME@", name).replace("@UP@", &name.to_uppercase());
    let (input, want) =
        (models.join(format!("{name}.input.bin")), read_f32(&models.join(format!("{name}.output.bin")))?);
    let dir = work.join(name).join(target.arch);
    std::fs::create_dir_all(&dir).unwrap();
    let lib = dir.join(format!("lib{name}.a"));
    let flag = format!("--target={}", target.arch);
    run(
        Command::new(xcc_binary()).arg(models.join(format!("{name}.onnx"))).args([&flag, "-O3", "-o"]).arg(&lib),
        "xcc",
    )?;
    let source = dir.join("harness.c");
    std::fs::write(&source, harness).unwrap();
    let exe = dir.join("run");
    let link = Command::new(target.gcc)
        .arg("-O2")
        .arg("-I")
        .arg(&dir)
        .arg(&source)
        .arg(&lib)
        .args(["-lm", "-lpthread", "-o"])
        .arg(&exe)
        .output();
    run_output(link, &format!("{} link", target.gcc))?;
    let out = dir.join("out.bin");
    run(target.run(&exe).arg(&input).arg(&out), &format!("the {} program under {}", target.arch, target.qemu))?;
    let ort_out = dir.join("ort.bin");
    onnxruntime(&models.join(format!("{name}.onnx")), &input, &input_shape(name), &ort_out)?;
    let got = read_f32(&out)?;
    let w1 = compare_f32(&format!("{} vs {name}.output.bin", target.arch), &got, &want, 1e-5)?;
    let w2 = compare_f32(&format!("{} vs onnxruntime", target.arch), &got, &read_f32(&ort_out)?, 1e-5)?;
    Ok(format!("{}: worst error {w1:.2} (reference), {w2:.2} (live onnxruntime) of the tolerance", target.arch))
}

/// The model compiled with `--sanitize=address` and its C program built with AddressSanitizer
/// and UndefinedBehaviorSanitizer (runtime-c too): the run must be clean, leaks included, and
/// give the reference output.
/// (Ignored, with the reason, where `cc` cannot build sanitized programs.)
fn sanitized_run(name: &str, work: &Path) -> Result<String, String> {
    let models = repo().join("../shared/models");
    let template = std::fs::read_to_string(suite_dir().join("models/harness.c.in")).unwrap();
    let harness = template.replace("@NAME@", name).replace("@UP@", &name.to_uppercase());
    let (input, want) =
        (models.join(format!("{name}.input.bin")), read_f32(&models.join(format!("{name}.output.bin")))?);
    let dir = work.join(name).join("sanitized");
    std::fs::create_dir_all(&dir).unwrap();
    let lib = dir.join(format!("lib{name}.a"));
    run(
        Command::new(xcc_binary())
            .arg(repo().join(format!("../shared/models/{name}.onnx")))
            .args(["-O3", "--sanitize=address", "-o"])
            .arg(&lib),
        "xcc --sanitize=address",
    )?;
    let source = dir.join("harness.c");
    std::fs::write(&source, harness).unwrap();
    let exe = dir.join("run_sanitized");
    run(
        xcc_test_suite::sanitized_cc()?
            .arg("-I")
            .arg(&dir)
            .arg(&source)
            .arg(&lib)
            .args(["-lm", "-lpthread", "-o"])
            .arg(&exe),
        "the sanitized link",
    )?;
    let out = dir.join("out.bin");
    run(Command::new(&exe).arg(input).arg(&out), "the sanitized program")?;
    let w = compare_f32("sanitized vs the reference", &read_f32(&out)?, &want, 1e-5)?;
    Ok(format!("sanitized (ASan, UBSan): clean, worst error {w:.2} of the tolerance"))
}

fn two_models_in_one_program_and_concurrent_runs() -> Result<(), String> {
    let models = repo().join("../shared/models");
    let dir = repo().join("target/xcc-tests/models/two");
    std::fs::create_dir_all(&dir).unwrap();
    for n in ["mlp_a", "mlp_b"] {
        run(
            Command::new(xcc_binary())
                .arg(models.join("mlp.onnx"))
                .args(["--name", n, "-o"])
                .arg(dir.join(format!("lib{n}.a"))),
            "xcc",
        )?;
    }
    let exe = dir.join("two");
    run(
        Command::new("cc")
            .arg("-I")
            .arg(&dir)
            .arg(suite_dir().join("models/two_models_threads.c"))
            .arg(dir.join("libmlp_a.a"))
            .arg(dir.join("libmlp_b.a"))
            .args(["-lm", "-lpthread", "-o"])
            .arg(&exe),
        "link",
    )?;
    let out = Command::new(&exe).output().map_err(|e| e.to_string())?;
    if !(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("ok")) {
        return Err(String::from_utf8_lossy(&out.stdout).into_owned());
    }
    Ok(())
}

/// One model compiled twice, run with 1, 2, 3 and 8 threads, the default pool, a caller's
/// parallel-for and concurrently from four application threads (`models/threads.c`): every run
/// gives the bytes of the one-thread run, and none allocates.
fn threaded_runs_match_one_thread() -> Result<(), String> {
    let models = repo().join("../shared/models");
    let dir = repo().join("target/xcc-tests/models/threads");
    std::fs::create_dir_all(&dir).unwrap();
    for n in ["tm_a", "tm_b"] {
        run(
            Command::new(xcc_binary())
                .arg(models.join("squeezenet1_1.onnx"))
                .args(["-O2", "--name", n, "-o"])
                .arg(dir.join(format!("lib{n}.a"))),
            "xcc",
        )?;
    }
    let exe = dir.join("threads");
    run(
        Command::new("cc")
            .args(["-O2", "-std=c11", "-I"])
            .arg(&dir)
            .arg(suite_dir().join("models/threads.c"))
            .arg(dir.join("libtm_a.a"))
            .arg(dir.join("libtm_b.a"))
            .args(["-Wl,--wrap=malloc,--wrap=calloc,--wrap=posix_memalign", "-lm", "-lpthread", "-o"])
            .arg(&exe),
        "link",
    )?;
    let out = Command::new(&exe).output().map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !(out.status.success() && stdout.starts_with("ok")) {
        return Err(format!("{stdout}{}", String::from_utf8_lossy(&out.stderr)));
    }
    println!("{}", stdout.trim());
    Ok(())
}

/// One test per shared model (compiled, run from C and C++, compared with the reference output
/// and with ONNX Runtime run now), and one for two models in one program. Without `../shared`
/// (a user's clone) or the venv, each reports itself skipped.
fn main() -> std::process::ExitCode {
    let missing = if !repo().join("../shared/models/manifest.json").exists() {
        Some("../shared/models is absent (a user's clone has no shared/)")
    } else if !repo().join(".venv/bin/python").exists() {
        Some(".venv is missing (run scripts/setup.sh)")
    } else {
        None
    };
    if let Some(why) = missing {
        println!("skipped: {why}");
    }
    let work = repo().join("target/xcc-tests/models");
    let mut trials: Vec<libtest_mimic::Trial> = ["mlp", "squeezenet1_1", "mobilenet_v2", "resnet18", "encoder"]
        .into_iter()
        .map(|name| {
            let work = work.clone();
            libtest_mimic::Trial::test(format!("models/{name}"), move || {
                let note = discard_when_passed(&work.join(name).join("host"), check_model(name, &work))?;
                println!("{name}: {note}");
                Ok(())
            })
        })
        .collect();
    let sanitizers =
        xcc_test_suite::sanitized_runtime().map_err(|why| println!("skipped: the sanitized model runs ({why})"));
    for name in ["mlp", "squeezenet1_1", "mobilenet_v2", "resnet18", "encoder"] {
        let work = work.clone();
        trials.push(
            libtest_mimic::Trial::test(format!("models/{name}/sanitized"), move || {
                let note = discard_when_passed(&work.join(name).join("sanitized"), sanitized_run(name, &work))?;
                println!("{name}: {note}");
                Ok(())
            })
            .with_ignored_flag(sanitizers.is_err()),
        );
    }
    for target in &CROSS_TARGETS {
        if !target.available() {
            println!("skipped: the shared models on {} ({} or {} not found)", target.arch, target.gcc, target.qemu);
        }
        for name in ["mlp", "squeezenet1_1", "mobilenet_v2", "resnet18", "encoder"] {
            let work = work.clone();
            trials.push(
                libtest_mimic::Trial::test(format!("models/{name}/{}", target.arch), move || {
                    let dir = work.join(name).join(target.arch);
                    println!("{name}: {}", discard_when_passed(&dir, cross_run(name, &work, target))?);
                    Ok(())
                })
                .with_ignored_flag(!target.available()),
            );
        }
    }
    trials.push(libtest_mimic::Trial::test("models/mlp_decodes_with_the_onnx_schema", || {
        decodes_the_shared_mlp_model();
        Ok(())
    }));
    trials.push(libtest_mimic::Trial::test("models/two_models_in_one_program_and_concurrent_runs", || {
        Ok(two_models_in_one_program_and_concurrent_runs()?)
    }));
    trials.push(libtest_mimic::Trial::test("models/threaded_runs_match_one_thread", || {
        Ok(threaded_runs_match_one_thread()?)
    }));
    let trials = trials
        .into_iter()
        .map(|t| {
            let ignored = t.has_ignored_flag() || missing.is_some();
            t.with_ignored_flag(ignored)
        })
        .collect();
    // The runs under qemu and the sanitized ones are breadth: the README's test command runs a
    // sample of them.
    let breadth = |name: &str| {
        name.ends_with("/sanitized") || CROSS_TARGETS.iter().any(|t| name.ends_with(&format!("/{}", t.arch)))
    };
    run_trials_then_discard(xcc_test_suite::sampled_where(trials, 3, breadth), &[work])
}

/// The frontend's protobuf schema decodes a model written by the `onnx` package, and re-encodes
/// it to the same bytes.
fn decodes_the_shared_mlp_model() {
    let bytes = std::fs::read(repo().join("../shared/models/mlp.onnx")).expect("mlp.onnx");
    let model = ModelProto::decode(bytes.as_slice()).expect("mlp.onnx decodes");
    assert!(model.ir_version.is_some_and(|v| v >= 3), "ir_version {:?}", model.ir_version);
    assert!(
        model.opset_import.iter().any(|o| o.domain.as_deref().unwrap_or("").is_empty() && o.version == Some(17)),
        "opsets {:?}",
        model.opset_import
    );
    let g = model.graph.as_ref().expect("a graph");
    let names = |v: &[ValueInfoProto]| v.iter().map(|vi| vi.name.clone().unwrap_or_default()).collect::<Vec<_>>();
    assert_eq!(names(&g.input), ["input"]);
    assert_eq!(names(&g.output), ["output"]);
    let input_type = g.input[0].r#type.as_ref().and_then(|t| t.value.as_ref());
    let Some(type_proto::Value::TensorType(t)) = input_type else { panic!("input is not a tensor: {input_type:?}") };
    assert_eq!(t.elem_type, Some(tensor_proto::DataType::Float as i32));
    let dims: Vec<_> = t.shape.as_ref().expect("a shape").dim.iter().map(|d| d.value.clone()).collect();
    use tensor_shape_proto::dimension::Value::DimValue;
    assert_eq!(dims, [Some(DimValue(1)), Some(DimValue(1)), Some(DimValue(28)), Some(DimValue(28))]);

    let ops: Vec<&str> = g.node.iter().map(|n| n.op_type.as_deref().unwrap_or("")).collect();
    for op in ["Gemm", "Relu", "Flatten"] {
        assert!(ops.contains(&op), "no {op} among {ops:?}");
    }
    let gemm = g.node.iter().find(|n| n.op_type.as_deref() == Some("Gemm")).unwrap();
    for a in &gemm.attribute {
        let ty = attribute_proto::AttributeType::try_from(a.r#type.unwrap_or(0)).expect("a known attribute type");
        assert!(matches!(ty, attribute_proto::AttributeType::Float | attribute_proto::AttributeType::Int), "{a:?}");
    }

    assert!(!g.initializer.is_empty());
    for t in &g.initializer {
        assert_eq!(t.data_type, Some(tensor_proto::DataType::Float as i32), "{:?}", t.name);
        assert_ne!(t.data_location, Some(tensor_proto::DataLocation::External as i32));
        let numel: i64 = t.dims.iter().product();
        let bytes = match t.raw_data.as_ref() {
            Some(raw) if !raw.is_empty() => raw.len(),
            _ => t.float_data.len() * 4,
        };
        assert_eq!(bytes as i64, numel * 4, "initializer {:?} with dims {:?}", t.name, t.dims);
    }
    // Re-encoding keeps every field: the onnx package writes fields in tag order, as prost
    // does here, so the bytes come back identical (unpacked `dims`, packed `float_data`).
    let again = model.encode_to_vec();
    assert_eq!(ModelProto::decode(again.as_slice()).unwrap(), model);
    assert!(again == bytes, "re-encoding gives {} bytes, the file has {}", again.len(), bytes.len());
}
