//! Bad ONNX input: each case must fail with a clear message naming the node or tensor involved,
//! a non-zero exit code (not a crash), no panic, and no output file or header left behind.
//! The malformed models are built here with the ONNX protobuf structs.

use libtest_mimic::Trial;
use std::path::{Path, PathBuf};
use std::process::Command;
use xcc_frontend_onnx::proto::{
    attribute_proto, tensor_shape_proto, type_proto, AttributeProto, ModelProto, NodeProto, StringStringEntryProto,
    TensorProto, ValueInfoProto,
};
use xcc_test_suite::onnx_build::{
    floats, int64s, model, model_with_domains, node, symbolic, value, with_float, with_floats, with_graph, with_ints,
    FLOAT, INT64,
};
use xcc_test_suite::{clean_failure, run_trials, suite_dir, xcc_binary};

/// TensorProto.DataType INT32.
const INT32: i32 = 6;
/// TensorProto.DataType BOOL.
const BOOL: i32 = 9;

/// A valid one-node model: y = x + w.
fn add_model() -> Vec<u8> {
    model(
        vec![node("add0", "Add", &["x", "w"], &["y"])],
        vec![value("x", FLOAT, &[2, 2])],
        vec![value("y", FLOAT, &[2, 2])],
        vec![floats("w", &[2, 2], &[1.0; 4])],
    )
}

fn expect_failure(dir: &Path, case: &str, bytes: &[u8], expected: &[&str]) -> Result<(), String> {
    expect_failure_with(dir, case, bytes, &[], expected)
}

/// Same, with extra command-line arguments.
fn expect_failure_with(dir: &Path, case: &str, bytes: &[u8], args: &[&str], expected: &[&str]) -> Result<(), String> {
    let case_dir = dir.join(case);
    std::fs::create_dir_all(&case_dir).unwrap();
    let input = case_dir.join("model.onnx");
    std::fs::write(&input, bytes).unwrap();
    let output = case_dir.join("libm.a");
    let _ = std::fs::remove_file(&output);
    let _ = std::fs::remove_file(case_dir.join("m.h"));
    let out = Command::new(xcc_binary()).arg(&input).args(args).arg("-o").arg(&output).output().unwrap();
    let stderr =
        clean_failure(&out, expected, &[&output, &case_dir.join("m.h")]).map_err(|e| format!("{case}: {e}"))?;
    println!("{case}: {}", stderr.lines().next().unwrap_or(""));
    Ok(())
}

/// `bytes` (a model) importing `opsets` (domain, version) instead of its own.
fn with_opsets(bytes: &[u8], opsets: &[(&str, i64)]) -> Vec<u8> {
    use prost::Message;
    use xcc_frontend_onnx::proto::{ModelProto, OperatorSetIdProto};
    let mut m = ModelProto::decode(bytes).unwrap();
    m.opset_import = opsets
        .iter()
        .map(|&(domain, version)| OperatorSetIdProto { domain: Some(domain.into()), version: Some(version) })
        .collect();
    m.encode_to_vec()
}

/// The malformed models, each with the words its message must contain.
type Case = (&'static str, Vec<u8>, Vec<&'static str>);

fn bad_models(dir: &Path) -> Vec<Case> {
    let valid = add_model();
    let mut cases: Vec<(&str, Vec<u8>, Vec<&str>)> = vec![
        ("empty", Vec::new(), vec!["empty"]),
        ("truncated", valid[..valid.len() / 2].to_vec(), vec!["not a valid ONNX model"]),
        ("not-protobuf", vec![0xff, 0xff, 0xff, 0xff, 0x0f, 0x7a], vec!["not a valid ONNX model"]),
        (
            "old-opset-of-a-changed-operator",
            with_opsets(&valid, &[("", 5)]),
            vec!["unsupported default-domain opset 5", "unchanged since opset 1: Identity, Not, Transpose"],
        ),
        (
            "linear-attention-heads-that-do-not-divide",
            model(
                vec![with_int(
                    with_int(node("la0", "LinearAttention", &["q", "k", "v"], &["y", "s"]), "q_num_heads", 3),
                    "kv_num_heads",
                    2,
                )],
                vec![value("q", FLOAT, &[1, 2, 12]), value("k", FLOAT, &[1, 2, 12]), value("v", FLOAT, &[1, 2, 12])],
                vec![value("y", FLOAT, &[1, 2, 12])],
                vec![],
            ),
            vec!["la0", "q_num_heads (3) must be a positive multiple of kv_num_heads (2)"],
        ),
        (
            "causal-conv-weights-of-other-channels",
            model(
                vec![node("cc0", "CausalConvWithState", &["x", "w"], &["y", "s"])],
                vec![value("x", FLOAT, &[1, 2, 5]), value("w", FLOAT, &[3, 1, 2])],
                vec![value("y", FLOAT, &[1, 2, 5])],
                vec![],
            ),
            vec!["cc0", "CausalConvWithState's weights must be [2, 1, k], not float32 [3, 1, 2]"],
        ),
        (
            // Expanded into dense [N, N] cosine and sine matrices: a signal of 2^30 points must be
            // refused before they are made (a fuzz finding: 2^40 points overflowed their size).
            "dft-of-a-signal-too-long-for-dense-matrices",
            model(
                vec![node("dft0", "DFT", &["x"], &["y"])],
                vec![value("x", FLOAT, &[1, 1 << 30, 1])],
                vec![value("y", FLOAT, &[1, 1 << 30, 2])],
                vec![],
            ),
            vec!["dft0", "a transform of 1073741824 points", "--fold-budget"],
        ),
        (
            // Output columns up to the largest of ngram_indexes, through a dense scatter matrix:
            // an index of 2^40 must be refused before it is made (a fuzz finding).
            "tfidf-vectorizer-column-too-far",
            model(
                vec![with_string(
                    with_ints(
                        with_ints(with_ints(node("tfidf0", "TfIdfVectorizer", &["x"], &["y"]), "ngram_counts", &[0]), "pool_int64s", &[2, 3]),
                        "ngram_indexes",
                        &[0, 1 << 40],
                    ),
                    "mode",
                    "TF",
                )],
                vec![value("x", INT32, &[12])],
                vec![value("y", FLOAT, &[2])],
                vec![],
            ),
            vec!["tfidf0", "ngram_indexes reach column 1099511627776", "--fold-budget"],
        ),
        (
            // One element per item along the axis: 2^31 - 1 of them must be refused before they
            // are listed (a fuzz finding that took all memory).
            "split-to-sequence-of-too-many-elements",
            model(
                vec![
                    with_int(with_int(node("split0", "SplitToSequence", &["x"], &["seq"]), "axis", 1), "keepdims", 0),
                    with_int(node("concat0", "ConcatFromSequence", &["seq"], &["y"]), "axis", 0),
                ],
                vec![value("x", FLOAT, &[3, (1 << 31) - 1])],
                vec![value("y", FLOAT, &[3])],
                vec![],
            ),
            vec!["split0", "SplitToSequence would make 2147483647 elements"],
        ),
        (
            // The block's square overflowed i64 (a fuzz finding).
            "depth-to-space-of-a-block-too-large-to-square",
            model(
                vec![with_int(node("d2s0", "DepthToSpace", &["x"], &["y"]), "blocksize", i64::MAX)],
                vec![value("x", FLOAT, &[1, 8, 2, 3])],
                vec![value("y", FLOAT, &[1, 2, 4, 6])],
                vec![],
            ),
            vec!["d2s0", "blocksize 9223372036854775807 squared must divide the channels 8"],
        ),
        (
            // Pads near i64's limit overflowed the output size's check (an attribute sweep).
            "deform-conv-pads-near-the-integer-limit",
            model(
                vec![with_ints(node("dc1", "DeformConv", &["x", "w", "off"], &["y"]), "pads", &[i64::MAX, 0, 0, 0])],
                vec![value("x", FLOAT, &[1, 1, 3, 3]), value("w", FLOAT, &[1, 1, 2, 2]), value("off", FLOAT, &[1, 8, 2, 2])],
                vec![value("y", FLOAT, &[1, 1, 2, 2])],
                vec![],
            ),
            vec!["dc1", "do not fit"],
        ),
        (
            // A constant size of 2^40 points: the grid's coordinates would be a constant of
            // terabytes (an edge-sweep finding that ran out of memory).
            "affine-grid-of-a-size-past-the-constant-budget",
            at_opset(
                model(
                    vec![node("grid0", "AffineGrid", &["theta", "size"], &["grid"])],
                    vec![value("theta", FLOAT, &[2, 2, 3])],
                    vec![value("grid", FLOAT, &[2, 5, 6, 2])],
                    vec![int64s("size", &[4], &[2, 3, 5, 1 << 40])],
                ),
                20,
            ),
            vec!["grid0", "AffineGrid's coordinates of every point of size [2, 3, 5, 1099511627776]", "--fold-budget"],
        ),
        (
            // n_targets of 2^40: each leaf's dense row of weights would be terabytes (an
            // edge-sweep finding: a 64 GB allocation).
            "tree-ensemble-targets-past-the-constant-budget",
            model_with_domains(vec![tree_ensemble(1 << 40)], vec![value("x", FLOAT, &[3, 2])], vec![value("y", FLOAT, &[3, 1 << 40])], &[("ai.onnx.ml", 5)]),
            vec!["te0", "2 leaves' weights over n_targets 1099511627776", "--fold-budget"],
        ),
        (
            // Scan before opset 9 over a batch of 2^31 sequences: each entry's steps unrolled,
            // out of memory (an edge-sweep finding). The batch's steps count together.
            "scan8-batch-past-the-unrolled-steps",
            at_opset(
                model(
                    vec![scan8_node()],
                    vec![value("s0", FLOAT, &[1 << 31, 2]), value("xs", FLOAT, &[1 << 31, 3, 2])],
                    vec![value("s", FLOAT, &[1 << 31, 2]), value("ys", FLOAT, &[1 << 31, 3, 2])],
                    vec![],
                ),
                8,
            ),
            vec!["scan0", "Scan's batch of 2147483648 and length 3 unroll into more than 4096 steps"],
        ),
        (
            // nonpad_kv_seqlen holds one length per batch entry (a fuzz finding: an empty one).
            "attention-nonpad-lengths-not-one-per-batch",
            at_opset(
                model(
                    vec![node("attn0", "Attention", &["q", "k", "v", "", "", "", "lengths"], &["y"])],
                    vec![
                        value("q", FLOAT, &[2, 3, 4, 8]),
                        value("k", FLOAT, &[2, 3, 6, 8]),
                        value("v", FLOAT, &[2, 3, 6, 8]),
                        value("lengths", INT64, &[0]),
                    ],
                    vec![value("y", FLOAT, &[2, 3, 4, 8])],
                    vec![],
                ),
                24,
            ),
            vec!["attn0", "nonpad_kv_seqlen must be int64 [2], a length per batch, not int64 [0]"],
        ),
        (
            "deform-conv-offsets-that-do-not-fit",
            model(
                vec![node("dc0", "DeformConv", &["x", "w", "off"], &["y"])],
                vec![value("x", FLOAT, &[1, 1, 3, 3]), value("w", FLOAT, &[1, 1, 2, 2]), value("off", FLOAT, &[1, 8, 5, 5])],
                vec![value("y", FLOAT, &[1, 1, 5, 5])],
                vec![],
            ),
            vec!["dc0", "DeformConv's X float32 [1, 1, 3, 3], W float32 [1, 1, 2, 2] and offset float32 [1, 8, 5, 5] do not fit"],
        ),
        (
            "other-domain-operator-input-count",
            with_opsets(
                &model(
                    vec![NodeProto {
                        domain: Some("ai.onnx.preview".into()),
                        ..node("flex0", "FlexAttention", &["q"], &["y"])
                    }],
                    vec![value("q", FLOAT, &[1, 2, 3, 4])],
                    vec![value("y", FLOAT, &[1, 2, 3, 4])],
                    vec![],
                ),
                &[("", 17), ("ai.onnx.preview", 1)],
            ),
            vec!["flex0", "FlexAttention (opset 1) takes 3 inputs, not 1"],
        ),
        (
            "group-query-attention-seqlens-not-per-row",
            with_opsets(
                &model(
                    vec![{
                        let n = node("gqa0", "GroupQueryAttention", &["q", "k", "v", "", "", "lens", "total"], &["y"]);
                        let n = with_int(with_int(n, "num_heads", 2), "kv_num_heads", 1);
                        NodeProto { domain: Some("com.microsoft".into()), ..n }
                    }],
                    vec![value("q", FLOAT, &[2, 3, 16]), value("k", FLOAT, &[2, 3, 8]), value("v", FLOAT, &[2, 3, 8])],
                    vec![value("y", FLOAT, &[2, 3, 16])],
                    vec![int64s("lens", &[3], &[2, 2, 2]), int64s("total", &[], &[3])],
                ),
                &[("", 17), ("com.microsoft", 1)],
            ),
            vec!["gqa0", "seqlens_k 'lens' must be [batch], not int64 [3]"],
        ),
        (
            "default-domain-node-not-imported",
            with_opsets(
                &model(
                    vec![node("relu0", "Relu", &["x"], &["y"])],
                    vec![value("x", FLOAT, &[2])],
                    vec![value("y", FLOAT, &[2])],
                    vec![],
                ),
                &[("ai.onnx.preview.training", 1)],
            ),
            vec!["node 'relu0' (Relu) is in the default ONNX domain, which the model does not import"],
        ),
        (
            "cycle",
            model(
                vec![node("first", "Relu", &["b"], &["a"]), node("second", "Relu", &["a"], &["b"])],
                vec![value("x", FLOAT, &[2])],
                vec![value("b", FLOAT, &[2])],
                vec![],
            ),
            vec!["cycle", "first"],
        ),
        (
            "gather-constant-index-out-of-range",
            model(
                vec![node("embed0", "Gather", &["table", "ids"], &["y"])],
                vec![value("table", FLOAT, &[3, 2])],
                vec![value("y", FLOAT, &[2, 2])],
                vec![int64s("ids", &[2], &[0, 1 << 40])],
            ),
            vec!["embed0", "'ids'", "index 1099511627776 is out of range", "size 3"],
        ),
        (
            "gather-elements-constant-index-out-of-range",
            model(
                vec![node("pick0", "GatherElements", &["x", "idx"], &["y"])],
                vec![value("x", FLOAT, &[2, 2])],
                vec![value("y", FLOAT, &[2, 2])],
                vec![int64s("idx", &[2, 2], &[0, 1, -3, 0])],
            ),
            vec!["pick0", "'idx'", "index -3 is out of range"],
        ),
        (
            // ONNX Runtime refuses it too; the second input would be silently unused.
            "duplicate-input",
            model(
                vec![node("add0", "Add", &["x", "x"], &["y"])],
                vec![value("x", FLOAT, &[2]), value("x", FLOAT, &[2])],
                vec![value("y", FLOAT, &[2])],
                vec![],
            ),
            vec!["'x'", "two inputs of this name"],
        ),
        (
            "undefined-input",
            model(
                vec![node("relu0", "Relu", &["nowhere"], &["y"])],
                vec![value("x", FLOAT, &[2])],
                vec![value("y", FLOAT, &[2])],
                vec![],
            ),
            vec!["relu0", "'nowhere'"],
        ),
        (
            "missing-initializer",
            model(
                vec![node("add0", "Add", &["x", "w"], &["y"])],
                vec![value("x", FLOAT, &[2, 2])],
                vec![value("y", FLOAT, &[2, 2])],
                vec![],
            ),
            vec!["add0", "'w'"],
        ),
        (
            "unknown-op",
            model(
                vec![node("frob0", "Frobnicate", &["x"], &["t"]), node("frob1", "Frobnicate2", &["t"], &["y"])],
                vec![value("x", FLOAT, &[2])],
                vec![value("y", FLOAT, &[2])],
                vec![],
            ),
            vec![
                "2 unsupported node(s) of 2 operator(s)",
                "Frobnicate (domain ai.onnx, opset 17): 1 node(s): frob0",
                "Frobnicate2 (domain ai.onnx, opset 17): 1 node(s): frob1",
            ],
        ),
        (
            "unsupported-nodes-grouped-by-operator",
            model_with_domains(
                (0..5)
                    .map(|k| {
                        let (i, o) = (format!("t{k}"), format!("t{}", k + 1));
                        node(&format!("frob{k}"), "Frob", &[&i], &[&o])
                    })
                    .chain(std::iter::once({
                        let mut n = node("fused", "FusedThing", &["t5"], &["y"]);
                        n.domain = Some("com.example".into());
                        n
                    }))
                    .collect(),
                vec![value("t0", FLOAT, &[2])],
                vec![value("y", FLOAT, &[2])],
                &[("com.example", 3)],
            ),
            vec![
                "6 unsupported node(s) of 2 operator(s)",
                "FusedThing (domain com.example, opset 3): 1 node(s): fused",
                "Frob (domain ai.onnx, opset 17): 5 node(s): frob0, frob1, frob2, and 2 more",
            ],
        ),
        (
            "sqrt-of-integers",
            model(
                vec![node("sqrt0", "Sqrt", &["x"], &["y"])],
                vec![value("x", INT32, &[2])],
                vec![value("y", INT32, &[2])],
                vec![],
            ),
            vec!["sqrt0", "Sqrt is not supported on int32 tensors"],
        ),
        (
            "log-sum-exp-of-integers",
            model(
                vec![node("lse0", "ReduceLogSumExp", &["x"], &["y"])],
                vec![value("x", INT32, &[2, 3])],
                vec![value("y", INT32, &[1, 1])],
                vec![],
            ),
            vec!["lse0", "ReduceLogSumExp needs floating point, not int32"],
        ),
        (
            "pool-without-kernel-shape",
            model(
                vec![node("pool0", "MaxPool", &["x"], &["y"])],
                vec![value("x", FLOAT, &[1, 1, 4, 4])],
                vec![value("y", FLOAT, &[1, 1, 2, 2])],
                vec![],
            ),
            vec!["pool0", "kernel_shape"],
        ),
        (
            "unsupported-element-type",
            model(
                vec![node("relu0", "Relu", &["x"], &["y"])],
                vec![value("x", 14, &[2])],
                vec![value("y", 14, &[2])],
                vec![],
            ),
            vec!["'x'", "COMPLEX64"],
        ),
        (
            "add-shape-mismatch",
            model(
                vec![node("add0", "Add", &["x", "w"], &["y"])],
                vec![value("x", FLOAT, &[2, 3])],
                vec![value("y", FLOAT, &[2, 3])],
                vec![floats("w", &[2, 2], &[1.0; 4])],
            ),
            vec!["add0", "cannot be broadcast"],
        ),
    ];
    let external = |location: &str, offset: &str| TensorProto {
        name: Some("w".into()),
        dims: vec![2, 2],
        data_type: Some(FLOAT),
        data_location: Some(1),
        external_data: vec![
            StringStringEntryProto { key: Some("location".into()), value: Some(location.into()) },
            StringStringEntryProto { key: Some("offset".into()), value: Some(offset.into()) },
            StringStringEntryProto { key: Some("length".into()), value: Some("16".into()) },
        ],
        ..Default::default()
    };
    let ext_model = |t: TensorProto| {
        model(
            vec![node("add0", "Add", &["x", "w"], &["y"])],
            vec![value("x", FLOAT, &[2, 2])],
            vec![value("y", FLOAT, &[2, 2])],
            vec![t],
        )
    };
    cases.push((
        "external-escape",
        ext_model(external("../secret.bin", "0")),
        vec!["'w'", "escapes the model's directory"],
    ));
    cases.push((
        "external-absolute",
        ext_model(external("/etc/passwd", "0")),
        vec!["'w'", "escapes the model's directory"],
    ));
    cases.push((
        "external-offset",
        ext_model(external("weights.bin", "4096")),
        vec!["'w'", "past the end of the file"],
    ));
    cases.push((
        "dims-overflow",
        model(
            vec![node("relu0", "Relu", &["x"], &["y"])],
            vec![value("x", FLOAT, &[1 << 40, 1 << 40])],
            vec![value("y", FLOAT, &[1 << 40, 1 << 40])],
            vec![],
        ),
        vec!["'x'", "are too large: more than 281474976710656 bytes"],
    ));
    // The external-data cases read from the case directory: give them a small real file there.
    for c in ["external-offset", "external-escape", "external-absolute"] {
        std::fs::create_dir_all(dir.join(c)).unwrap();
        std::fs::write(dir.join(c).join("weights.bin"), [0u8; 64]).unwrap();
    }
    cases.extend(index_and_parameter_cases());
    cases
}

/// `bytes`' model importing the default domain at `version` instead of 17.
/// A TreeEnsemble (ai.onnx.ml 5) of one tree: `x[:, 0] <= 0.5` picks leaf 0 (1.0) or 1 (2.0), both
/// of target 0 of `targets`.
fn tree_ensemble(targets: i64) -> NodeProto {
    let mut n = node("te0", "TreeEnsemble", &["x"], &["y"]);
    n.domain = Some("ai.onnx.ml".into());
    let n = with_floats(n, "nodes_modes", &[0.0]);
    let n = with_floats(n, "nodes_splits", &[0.5]);
    let n = with_floats(n, "leaf_weights", &[1.0, 2.0]);
    let lists: [(&str, &[i64]); 7] = [
        ("nodes_featureids", &[0]),
        ("nodes_truenodeids", &[0]),
        ("nodes_falsenodeids", &[1]),
        ("nodes_trueleafs", &[1]),
        ("nodes_falseleafs", &[1]),
        ("leaf_targetids", &[0, 0]),
        ("tree_roots", &[0]),
    ];
    let n = lists.iter().fold(n, |n, (name, values)| with_ints(n, name, values));
    with_int(n, "n_targets", targets)
}

/// A Scan of opset 8 (a batch dim first, no sequence lengths) summing its scan input into a
/// state of `[2]` and emitting each running sum.
fn scan8_node() -> NodeProto {
    let body = xcc_frontend_onnx::proto::GraphProto {
        node: vec![node("add", "Add", &["acc", "x"], &["acc_out"]), node("id", "Identity", &["acc_out"], &["y"])],
        input: vec![value("acc", FLOAT, &[2]), value("x", FLOAT, &[2])],
        output: vec![value("acc_out", FLOAT, &[2]), value("y", FLOAT, &[2])],
        ..Default::default()
    };
    with_graph(with_int(node("scan0", "Scan", &["", "s0", "xs"], &["s", "ys"]), "num_scan_inputs", 1), "body", body)
}

fn at_opset(bytes: Vec<u8>, version: i64) -> Vec<u8> {
    use prost::Message;
    let mut m = ModelProto::decode(bytes.as_slice()).expect("just encoded");
    m.opset_import[0].version = Some(version);
    m.encode_to_vec()
}

/// A STRING attribute.
fn with_string(mut n: NodeProto, name: &str, value: &str) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::String as i32),
        s: Some(value.as_bytes().to_vec()),
        ..Default::default()
    });
    n
}

/// The index operators' shape rules and constant indices, and parameters given as inputs that
/// must hold one value.
fn index_and_parameter_cases() -> Vec<Case> {
    let one = |n: NodeProto, inputs: Vec<ValueInfoProto>, out: ValueInfoProto, inits: Vec<TensorProto>| {
        model(vec![n], inputs, vec![out], inits)
    };
    vec![
        (
            "gathernd-tuple-longer-than-rank",
            one(
                node("nd0", "GatherND", &["x", "idx"], &["y"]),
                vec![value("x", FLOAT, &[2, 2]), value("idx", INT64, &[1, 3])],
                value("y", FLOAT, &[1]),
                vec![],
            ),
            vec!["nd0", "index tuples of length 3", "rank 2"],
        ),
        (
            "gathernd-constant-index-out-of-range",
            one(
                node("nd1", "GatherND", &["x", "idx"], &["y"]),
                vec![value("x", FLOAT, &[2, 3])],
                value("y", FLOAT, &[1]),
                vec![int64s("idx", &[1, 2], &[1, 3])],
            ),
            vec!["nd1", "'idx'", "index 3 is out of range for axis 1 of size 3"],
        ),
        (
            "scatternd-updates-shape",
            one(
                node("snd0", "ScatterND", &["x", "idx", "upd"], &["y"]),
                vec![value("x", FLOAT, &[4]), value("idx", INT64, &[2, 1]), value("upd", FLOAT, &[3])],
                value("y", FLOAT, &[4]),
                vec![],
            ),
            vec!["snd0", "updates must have", "[3]", "[2]"],
        ),
        (
            "scatternd-constant-index-out-of-range",
            one(
                node("snd1", "ScatterND", &["x", "idx", "upd"], &["y"]),
                vec![value("x", FLOAT, &[4]), value("upd", FLOAT, &[1])],
                value("y", FLOAT, &[4]),
                vec![int64s("idx", &[1, 1], &[-5])],
            ),
            vec!["snd1", "'idx'", "index -5 is out of range for axis 0 of size 4"],
        ),
        (
            "scatter-elements-shapes-differ",
            one(
                node("se0", "ScatterElements", &["x", "idx", "upd"], &["y"]),
                vec![value("x", FLOAT, &[2, 2]), value("idx", INT64, &[2, 2]), value("upd", FLOAT, &[2, 1])],
                value("y", FLOAT, &[2, 2]),
                vec![],
            ),
            vec!["se0", "indices and updates", "[2, 2]", "[2, 1]"],
        ),
        (
            "scatter-elements-unknown-reduction",
            one(
                with_string(node("se1", "ScatterElements", &["x", "idx", "upd"], &["y"]), "reduction", "avg"),
                vec![value("x", FLOAT, &[2]), value("idx", INT64, &[2]), value("upd", FLOAT, &[2])],
                value("y", FLOAT, &[2]),
                vec![],
            ),
            vec!["se1", "reduction 'avg'"],
        ),
        (
            "clip-bound-not-a-scalar",
            one(
                node("clip0", "Clip", &["x", "lo"], &["y"]),
                vec![value("x", FLOAT, &[2])],
                value("y", FLOAT, &[2]),
                vec![floats("lo", &[2], &[0.0, 1.0])],
            ),
            vec!["clip0", "'lo'", "scalar"],
        ),
        (
            "pad-constant-value-not-one-element",
            one(
                node("pad0", "Pad", &["x", "pads", "fill"], &["y"]),
                vec![value("x", FLOAT, &[2]), value("fill", FLOAT, &[2])],
                value("y", FLOAT, &[4]),
                vec![int64s("pads", &[2], &[1, 1])],
            ),
            vec!["pad0", "'fill'", "one element"],
        ),
        (
            "concat-without-inputs",
            one(
                with_int(node("cat0", "Concat", &[], &["y"]), "axis", 0),
                vec![value("x", FLOAT, &[2])],
                value("y", FLOAT, &[2]),
                vec![],
            ),
            vec!["cat0", "Concat (opset 17) takes 1 or more inputs, not 0"],
        ),
        (
            "relu-with-an-empty-input",
            one(node("relu9", "Relu", &[""], &["y"]), vec![value("x", FLOAT, &[2])], value("y", FLOAT, &[2]), vec![]),
            vec!["relu9", "Relu's input 0 is required but left empty"],
        ),
        (
            "add-with-one-input",
            one(node("add9", "Add", &["x"], &["y"]), vec![value("x", FLOAT, &[2])], value("y", FLOAT, &[2]), vec![]),
            vec!["add9", "Add (opset 17) takes 2 inputs, not 1"],
        ),
        (
            "slice-without-starts-and-ends",
            one(
                node("slice9", "Slice", &["x"], &["y"]),
                vec![value("x", FLOAT, &[4])],
                value("y", FLOAT, &[4]),
                vec![],
            ),
            vec!["slice9", "Slice (opset 17) takes 3 to 5 inputs, not 1"],
        ),
        (
            "batch-norm-with-three-inputs",
            one(
                node("bn9", "BatchNormalization", &["x", "s", "b"], &["y"]),
                vec![value("x", FLOAT, &[1, 2, 2]), value("s", FLOAT, &[2]), value("b", FLOAT, &[2])],
                value("y", FLOAT, &[1, 2, 2]),
                vec![],
            ),
            vec!["bn9", "BatchNormalization (opset 17) takes 5 inputs, not 3"],
        ),
        (
            "constant-of-shape-too-large-to-fold",
            one(
                node("fill9", "ConstantOfShape", &["s"], &["y"]),
                vec![value("x", FLOAT, &[1])],
                value("y", FLOAT, &[1]),
                vec![int64s("s", &[2], &[1 << 20, 1 << 20])],
            ),
            vec!["fill9", "'y'", "float32 [1048576, 1048576]", "4398046511104 bytes"],
        ),
        (
            "range-too-large-to-fold",
            one(
                node("range9", "Range", &["a", "b", "c"], &["y"]),
                vec![value("x", FLOAT, &[1])],
                value("y", INT64, &[1]),
                vec![int64s("a", &[], &[0]), int64s("b", &[], &[1 << 40]), int64s("c", &[], &[1])],
            ),
            vec!["range9", "'y'", "int64 [1099511627776]", "compile time"],
        ),
        (
            "constant-integer-division-by-zero",
            one(
                node("div9", "Div", &["a", "b"], &["y"]),
                vec![value("x", FLOAT, &[1])],
                value("y", INT64, &[2]),
                vec![int64s("a", &[2], &[7, 8]), int64s("b", &[2], &[2, 0])],
            ),
            vec!["div9", "Div of constant integers divides by zero (element 1 of the result)"],
        ),
        (
            "run-time-integer-mod-by-a-constant-zero",
            one(
                node("mod9", "Mod", &["x", "b"], &["y"]),
                vec![value("x", INT64, &[3])],
                value("y", INT64, &[3]),
                vec![int64s("b", &[3], &[2, 3, 0])],
            ),
            vec!["mod9", "Mod's divisor 'b' is a constant with a 0 (element 2): an integer division by zero"],
        ),
        (
            // A fuzz finding: strides given as an empty list were indexed per spatial dim.
            "max-unpool-with-empty-strides",
            one(
                with_ints(
                    with_ints(node("unpool0", "MaxUnpool", &["x", "i"], &["y"]), "kernel_shape", &[2, 2]),
                    "strides",
                    &[],
                ),
                vec![value("x", FLOAT, &[1, 1, 2, 2]), value("i", INT64, &[1, 1, 2, 2])],
                value("y", FLOAT, &[1, 1, 4, 4]),
                vec![],
            ),
            vec!["unpool0", "MaxUnpool needs 2 strides and 4 pads"],
        ),
        (
            "strides-given-as-a-string",
            one(
                with_string(
                    with_ints(node("pool9", "MaxPool", &["x"], &["y"]), "kernel_shape", &[2, 2]),
                    "strides",
                    "two",
                ),
                vec![value("x", FLOAT, &[1, 1, 4, 4])],
                value("y", FLOAT, &[1, 1, 2, 2]),
                vec![],
            ),
            vec!["pool9", "attribute 'strides' must be a list of integers, not a string"],
        ),
        (
            "group-given-as-a-float",
            one(
                with_float(node("conv9", "Conv", &["x", "w"], &["y"]), "group", 1.0),
                vec![value("x", FLOAT, &[1, 1, 3, 3])],
                value("y", FLOAT, &[1, 1, 3, 3]),
                vec![floats("w", &[1, 1, 1, 1], &[1.0])],
            ),
            vec!["conv9", "attribute 'group' must be an integer, not a float"],
        ),
    ]
    .into_iter()
    .chain(fuzz_regressions())
    .chain(new_operator_cases())
    .chain(string_cases())
    .chain(fuzz_found_cases())
    .chain(optional_cases())
    .collect()
}

/// Optional graph inputs read other than through OptionalHasElement and OptionalGetElement.
fn optional_cases() -> Vec<Case> {
    use xcc_test_suite::onnx_build::optional;
    vec![
        (
            "optional-input-read-by-add",
            model(
                vec![node("add0", "Add", &["x", "x"], &["y"])],
                vec![optional("x", FLOAT, &[2])],
                vec![value("y", FLOAT, &[2])],
                vec![],
            ),
            vec!["add0", "reads the optional input 'x', which only OptionalHasElement and OptionalGetElement may read"],
        ),
        (
            "optional-input-as-an-output",
            model(
                vec![node("has0", "OptionalHasElement", &["x"], &["h"])],
                vec![optional("x", FLOAT, &[2])],
                vec![value("h", BOOL, &[]), value("x", FLOAT, &[2])],
                vec![],
            ),
            vec!["'x'", "an optional input that is also an output is not supported"],
        ),
    ]
}

/// TensorProto.DataType STRING.
const STRING: i32 = 8;

/// Shapes the fuzz runs found past a check: an Attention mask that broadcasts to neither the
/// heads nor the queries (it once fused into a module that did not verify), and Dropout's
/// training mode over an input whose mask would be drawn at compile time in 176 TB.
fn fuzz_found_cases() -> Vec<Case> {
    let attention = model(
        vec![with_int(
            with_int(node("attn0", "Attention", &["q", "k", "v", "mask"], &["y"]), "q_num_heads", 3),
            "kv_num_heads",
            3,
        )],
        vec![
            value("q", FLOAT, &[2, 4, 24]),
            value("k", FLOAT, &[2, 6, 24]),
            value("v", FLOAT, &[2, 6, 24]),
            value("mask", FLOAT, &[2, 6, 6]),
        ],
        vec![value("y", FLOAT, &[2, 4, 24])],
        vec![],
    );
    let dropout = model(
        vec![node("drop0", "Dropout", &["x", "", "t"], &["y"])],
        vec![value("x", FLOAT, &[1 << 40, 4, 5]), value("t", xcc_test_suite::onnx_build::BOOL, &[])],
        vec![value("y", FLOAT, &[1 << 40, 4, 5])],
        vec![],
    );
    vec![
        (
            "attention-mask-of-other-heads-and-queries",
            xcc_test_suite::onnx_build::with_opset(&attention, "", 23),
            vec!["cannot be broadcast together", "[2, 3, 4, 6]"],
        ),
        (
            "dropout-training-draws-too-many",
            dropout,
            vec!["drop0", "'x'", "float32 [1099511627776, 4, 5]", "draws its mask at compile time"],
        ),
    ]
}

/// STRING tensors where an operator would compute on them as numbers, and the string operators'
/// refusals.
fn string_cases() -> Vec<Case> {
    let one = |n: NodeProto, inputs: Vec<ValueInfoProto>, out: ValueInfoProto| {
        xcc_test_suite::onnx_build::with_opset(&model(vec![n], inputs, vec![out], vec![]), "", 20)
    };
    let words = |name: &str, dims: &[i64]| value(name, STRING, dims);
    let label = |n: NodeProto| {
        let mut n = with_ints(with_ints(n, "keys_int64s", &[1, 2]), "values_int64s", &[3, 4]);
        n.domain = Some("ai.onnx.ml".into());
        n
    };
    vec![
        (
            "add-of-strings",
            one(node("add0", "Add", &["x", "x"], &["y"]), vec![words("x", &[2])], words("y", &[2])),
            vec!["add0", "Add does not take strings like 'x'"],
        ),
        (
            "string-concat-of-numbers",
            one(
                node("cat0", "StringConcat", &["x", "s"], &["y"]),
                vec![value("x", FLOAT, &[2]), words("s", &[2])],
                words("y", &[2]),
            ),
            vec!["cat0", "StringConcat takes strings, not float32 like 'x'"],
        ),
        (
            "string-split-of-a-computed-string",
            xcc_test_suite::onnx_build::with_opset(
                &model(
                    vec![
                        node("cat0", "StringConcat", &["x", "x"], &["c"]),
                        node("split0", "StringSplit", &["c"], &["y", "n"]),
                    ],
                    vec![words("x", &[2])],
                    vec![words("y", &[2, -1]), value("n", INT64, &[2])],
                    vec![],
                ),
                "",
                20,
            ),
            vec!["split0", "depend on the strings of 'c', which must be a graph input"],
        ),
        (
            "image-decoder-of-a-computed-tensor",
            xcc_test_suite::onnx_build::with_opset(
                &model(
                    vec![node("copy0", "Identity", &["x"], &["c"]), node("decode0", "ImageDecoder", &["c"], &["y"])],
                    vec![value("x", 2, &[64])],
                    vec![value("y", 2, &[-1, -1, 3])],
                    vec![],
                ),
                "",
                20,
            ),
            vec!["decode0", "the sides of the image in 'c', which must be a graph input"],
        ),
        (
            "image-decoder-of-floats",
            one(
                node("decode0", "ImageDecoder", &["x"], &["y"]),
                vec![value("x", FLOAT, &[64])],
                value("y", 2, &[-1, -1, 3]),
            ),
            vec!["decode0", "ImageDecoder decodes a 1-D uint8 tensor, not float32"],
        ),
        (
            "regex-that-does-not-parse",
            one(
                with_string(node("re0", "RegexFullMatch", &["x"], &["y"]), "pattern", "(a"),
                vec![words("x", &[2])],
                value("y", BOOL, &[2]),
            ),
            vec!["re0", "RegexFullMatch's pattern '(a' is not one xcc compiles"],
        ),
        (
            "string-normalizer-of-a-matrix",
            one(node("norm0", "StringNormalizer", &["x"], &["y"]), vec![words("x", &[2, 3])], words("y", &[2, 3])),
            vec!["norm0", "StringNormalizer takes a [C] or [1, C] input, not [2, 3]"],
        ),
        (
            "string-normalizer-unknown-case-change",
            one(
                with_string(node("norm1", "StringNormalizer", &["x"], &["y"]), "case_change_action", "TITLE"),
                vec![words("x", &[3])],
                words("y", &[3]),
            ),
            vec!["norm1", "case_change_action is NONE, UPPER or LOWER, not 'TITLE'"],
        ),
        (
            "scatter-reduction-over-strings",
            one(
                with_string(node("scatter0", "ScatterElements", &["x", "i", "u"], &["y"]), "reduction", "add"),
                vec![words("x", &[3]), value("i", INT64, &[1]), words("u", &[1])],
                words("y", &[3]),
            ),
            vec!["scatter0", "a reduction over strings is not supported"],
        ),
        (
            "constant-of-shape-of-a-string",
            {
                let mut fill = node("fill0", "ConstantOfShape", &["shape"], &["y"]);
                fill.attribute.push(AttributeProto {
                    name: Some("value".into()),
                    r#type: Some(attribute_proto::AttributeType::Tensor as i32),
                    t: Some(TensorProto {
                        dims: vec![1],
                        data_type: Some(STRING),
                        string_data: vec![b"s".to_vec()],
                        ..Default::default()
                    }),
                    ..Default::default()
                });
                one(fill, vec![value("shape", INT64, &[1])], words("y", &[-1]))
            },
            vec!["fill0", "ConstantOfShape does not make strings like 'y'"],
        ),
        (
            "compress-of-strings-as-an-output",
            one(
                node("keep0", "Compress", &["x", "c"], &["y"]),
                vec![words("x", &[3]), value("c", BOOL, &[3])],
                words("y", &[-1]),
            ),
            vec!["a STRING output whose dims the run finds is not supported"],
        ),
        (
            "regex-negated-class-in-brackets",
            one(
                with_string(node("re1", "RegexFullMatch", &["x"], &["y"]), "pattern", r"[\W]"),
                vec![words("x", &[2])],
                value("y", BOOL, &[2]),
            ),
            vec!["re1", "\\W inside a bracket class"],
        ),
        (
            "label-encoder-without-keys",
            xcc_test_suite::onnx_build::with_opset(
                &one(
                    {
                        let mut n = with_ints(node("enc1", "LabelEncoder", &["x"], &["y"]), "keys_int64s", &[]);
                        n = with_ints(n, "values_int64s", &[]);
                        n.domain = Some("ai.onnx.ml".into());
                        n
                    },
                    vec![value("x", INT64, &[2])],
                    value("y", INT64, &[2]),
                ),
                "ai.onnx.ml",
                4,
            ),
            vec!["enc1", "LabelEncoder needs at least one key"],
        ),
        (
            "label-encoder-default-of-another-type",
            xcc_test_suite::onnx_build::with_opset(
                &one(
                    {
                        let mut n = label(node("enc2", "LabelEncoder", &["x"], &["y"]));
                        n.attribute.push(AttributeProto {
                            name: Some("default_tensor".into()),
                            r#type: Some(attribute_proto::AttributeType::Tensor as i32),
                            t: Some(floats("d", &[1], &[1.0])),
                            ..Default::default()
                        });
                        n
                    },
                    vec![value("x", INT64, &[2])],
                    value("y", INT64, &[2]),
                ),
                "ai.onnx.ml",
                4,
            ),
            vec!["enc2", "LabelEncoder's default_tensor must be one int64 value"],
        ),
        (
            "string-split-of-run-time-dims",
            one(
                node("split1", "StringSplit", &["x"], &["y", "n"]),
                vec![symbolic("x", STRING, &["b", "c"])],
                words("y", &[-1, -1, -1]),
            ),
            vec!["split1", "StringSplit takes run-time dims only in a vector of strings, not string [b, c]"],
        ),
        (
            "cast-to-e8m0-unknown-round-mode",
            xcc_test_suite::onnx_build::with_opset(
                &model(
                    vec![with_string(
                        with_int(node("cast8", "Cast", &["x"], &["y"]), "to", 24),
                        "round_mode",
                        "sideways",
                    )],
                    vec![value("x", FLOAT, &[2])],
                    vec![value("y", 24, &[2])],
                    vec![],
                ),
                "",
                24,
            ),
            vec!["cast8", "Cast's round_mode is up, down or nearest, not 'sideways'"],
        ),
        (
            "label-encoder-keys-of-another-type",
            xcc_test_suite::onnx_build::with_opset(
                &one(
                    label(node("enc0", "LabelEncoder", &["x"], &["y"])),
                    vec![words("x", &[2])],
                    value("y", INT64, &[2]),
                ),
                "ai.onnx.ml",
                4,
            ),
            vec!["enc0", "LabelEncoder's keys are int64, its input 'x' string"],
        ),
    ]
}

/// The refusals of the operators added for full ONNX coverage (issue 10), one per error path.
fn new_operator_cases() -> Vec<Case> {
    let one =
        |n: NodeProto, inputs: Vec<ValueInfoProto>, out: ValueInfoProto| model(vec![n], inputs, vec![out], vec![]);
    let contrib = |mut n: NodeProto, inputs: Vec<ValueInfoProto>, out: ValueInfoProto| {
        n.domain = Some("com.microsoft".into());
        model_with_domains(vec![n], inputs, vec![out], &[("com.microsoft", 1)])
    };
    vec![
        (
            "einsum-operand-count",
            one(
                with_string(node("es", "Einsum", &["a"], &["y"]), "equation", "ij,jk->ik"),
                vec![value("a", FLOAT, &[2, 3])],
                value("y", FLOAT, &[2, 3]),
            ),
            vec!["es", "the equation 'ij,jk->ik' names 2 operands, the node has 1"],
        ),
        (
            "det-of-a-non-square-matrix",
            one(node("dt", "Det", &["x"], &["y"]), vec![value("x", FLOAT, &[2, 3])], value("y", FLOAT, &[])),
            vec!["dt", "Det takes square matrices [..., M, M] of order at most 16, not float32 [2, 3]"],
        ),
        (
            "grid-sample-grid-of-wrong-width",
            one(
                node("gs", "GridSample", &["x", "grid"], &["y"]),
                vec![value("x", FLOAT, &[1, 1, 4, 4]), value("grid", FLOAT, &[1, 3, 3, 3])],
                value("y", FLOAT, &[1, 1, 3, 3]),
            ),
            vec!["gs", "the grid [N, ..., 2]", "float32 [1, 3, 3, 3]"],
        ),
        (
            "lstm-weights-of-wrong-shape",
            one(
                node("ls", "LSTM", &["x", "w", "r"], &["y"]),
                vec![value("x", FLOAT, &[2, 1, 3]), value("w", FLOAT, &[1, 8, 3]), value("r", FLOAT, &[1, 8, 3])],
                value("y", FLOAT, &[2, 1, 1, 3]),
            ),
            vec![
                "ls",
                "W must be [1, 12, 3] and R [1, 12, 3] (hidden_size 3), not float32 [1, 8, 3] and float32 [1, 8, 3]",
            ],
        ),
        (
            "col2im-block-of-zero",
            model(
                vec![node("ci", "Col2Im", &["x", "image", "block"], &["y"])],
                vec![value("x", FLOAT, &[1, 4, 9])],
                vec![value("y", FLOAT, &[1, 1, 4, 4])],
                vec![int64s("image", &[2], &[4, 4]), int64s("block", &[2], &[2, 0])],
            ),
            vec!["ci", "Col2Im's block_shape must hold positive sizes"],
        ),
        (
            "roi-align-regions-of-three-values",
            model(
                vec![node("ra", "RoiAlign", &["x", "rois", "idx"], &["y"])],
                vec![value("x", FLOAT, &[1, 2, 8, 8]), value("rois", FLOAT, &[3, 3]), value("idx", INT64, &[3])],
                vec![value("y", FLOAT, &[3, 2, 1, 1])],
                vec![],
            ),
            vec!["ra", "RoiAlign takes X [N, C, H, W], rois [R, 4] and batch_indices [R]"],
        ),
        (
            "roi-align-more-regions-than-batch-indices",
            model(
                vec![node("ra", "RoiAlign", &["x", "rois", "idx"], &["y"])],
                vec![value("x", FLOAT, &[1, 2, 8, 8]), value("rois", FLOAT, &[3, 4]), value("idx", INT64, &[2])],
                vec![value("y", FLOAT, &[2, 2, 1, 1])],
                vec![],
            ),
            vec!["ra", "RoiAlign has 3 regions but 2 batch indices"],
        ),
        (
            "max-roi-pool-without-pooled-shape",
            model(
                vec![node("rp", "MaxRoiPool", &["x", "rois"], &["y"])],
                vec![value("x", FLOAT, &[1, 2, 8, 8]), value("rois", FLOAT, &[3, 5])],
                vec![value("y", FLOAT, &[3, 2, 1, 1])],
                vec![],
            ),
            vec!["rp", "MaxRoiPool's pooled_shape must be two positive sizes"],
        ),
        (
            "a-dim-computed-from-a-found-count",
            model(
                vec![node("nz", "NonZero", &["x"], &["i"]), node("rs", "Reshape", &["i", "shape"], &["y"])],
                vec![value("x", FLOAT, &[6])],
                vec![value("y", INT64, &[-1, 2])],
                vec![int64s("shape", &[2], &[-1, 2])],
            ),
            vec!["reads a count an operator finds while running (NonZero's, Compress's)"],
        ),
        (
            "non-max-suppression-boxes-of-five-values",
            model(
                vec![node("nms", "NonMaxSuppression", &["boxes", "scores"], &["y"])],
                vec![value("boxes", FLOAT, &[1, 3, 5]), value("scores", FLOAT, &[1, 2, 3])],
                vec![value("y", INT64, &[-1, 3])],
                vec![],
            ),
            vec!["nms", "NonMaxSuppression takes float boxes [batches, boxes, 4]"],
        ),
        (
            "non-max-suppression-scores-of-other-boxes",
            model(
                vec![node("nms", "NonMaxSuppression", &["boxes", "scores"], &["y"])],
                vec![value("boxes", FLOAT, &[1, 3, 4]), value("scores", FLOAT, &[1, 2, 5])],
                vec![value("y", INT64, &[-1, 3])],
                vec![],
            ),
            vec!["nms", "NonMaxSuppression's scores must be [batches, classes, boxes] for boxes float32 [1, 3, 4]"],
        ),
        (
            "compress-with-an-integer-condition",
            model(
                vec![node("cp", "Compress", &["x", "c"], &["y"])],
                vec![value("x", FLOAT, &[4]), value("c", INT64, &[4])],
                vec![value("y", FLOAT, &[-1])],
                vec![],
            ),
            vec!["cp", "Compress's condition must be a 1-D bool tensor"],
        ),
        (
            "stft-window-of-another-length",
            model(
                vec![node("ft", "STFT", &["x", "step", "w", "len"], &["y"])],
                vec![value("x", FLOAT, &[1, 16, 1]), value("w", FLOAT, &[6])],
                vec![value("y", FLOAT, &[1, 1, 5, 2])],
                vec![int64s("step", &[], &[4]), int64s("len", &[], &[8])],
            ),
            vec!["ft", "STFT's frame_length must be the window's length"],
        ),
        (
            "stft-step-of-zero",
            model(
                vec![node("ft", "STFT", &["x", "step"], &["y"])],
                vec![value("x", FLOAT, &[1, 16, 1])],
                vec![value("y", FLOAT, &[1, 1, 9, 2])],
                vec![int64s("step", &[], &[0])],
            ),
            vec!["ft", "STFT's frame_step must be positive"],
        ),
        (
            "mel-weight-matrix-without-bins",
            model(
                vec![node("mel", "MelWeightMatrix", &["bins", "dft", "rate", "low", "high"], &["w"])],
                vec![value("low", FLOAT, &[]), value("high", FLOAT, &[])],
                vec![value("w", FLOAT, &[33, 0])],
                vec![int64s("bins", &[], &[0]), int64s("dft", &[], &[64]), int64s("rate", &[], &[16000])],
            ),
            vec!["mel", "MelWeightMatrix's num_mel_bins must be positive"],
        ),
        (
            "col2im-columns-not-the-block-origins",
            model(
                vec![node("ci", "Col2Im", &["x", "image", "block"], &["y"])],
                vec![value("x", FLOAT, &[1, 4, 8])],
                vec![value("y", FLOAT, &[1, 1, 4, 4])],
                vec![int64s("image", &[2], &[4, 4]), int64s("block", &[2], &[2, 2])],
            ),
            vec!["ci", "the input's dim 2 must be the number of block origins in the padded image"],
        ),
        (
            "dft-without-a-complex-dim",
            one(node("ft", "DFT", &["x"], &["y"]), vec![value("x", FLOAT, &[4, 3])], value("y", FLOAT, &[4, 3])),
            vec!["ft", "the input must be [..., N, 1 or 2], known at compile time, not float32 [4, 3]"],
        ),
        (
            "if-without-branches",
            one(node("cf", "If", &["c"], &["y"]), vec![value("c", BOOL, &[])], value("y", FLOAT, &[2])),
            vec!["cf", "If needs the graph attribute then_branch"],
        ),
        (
            "multi-head-attention-packed",
            contrib(
                with_int(node("mha", "MultiHeadAttention", &["q"], &["y"]), "num_heads", 2),
                vec![value("q", FLOAT, &[1, 4, 8])],
                value("y", FLOAT, &[1, 4, 8]),
            ),
            vec!["mha", "without separate key and value (packed QKV) is not supported"],
        ),
        (
            "attention-qkv-sizes-not-the-weights",
            contrib(
                with_ints(
                    with_int(node("att", "Attention", &["x", "w"], &["y"]), "num_heads", 2),
                    "qkv_hidden_sizes",
                    &[8, 8, 4],
                ),
                vec![value("x", FLOAT, &[1, 4, 8]), value("w", FLOAT, &[8, 24])],
                value("y", FLOAT, &[1, 4, 4]),
            ),
            vec![
                "att",
                "qkv_hidden_sizes [8, 8, 4] must be three sizes, Q's and K's equal, summing to the weights' 24",
            ],
        ),
        (
            "attention-shared-buffer",
            contrib(
                with_int(
                    with_int(node("att", "Attention", &["x", "w"], &["y"]), "num_heads", 2),
                    "past_present_share_buffer",
                    1,
                ),
                vec![value("x", FLOAT, &[1, 4, 8]), value("w", FLOAT, &[8, 24])],
                value("y", FLOAT, &[1, 4, 8]),
            ),
            vec!["att", "Attention with past_present_share_buffer, do_rotary or past_sequence_length is not supported"],
        ),
        (
            "attention-mask-shorter-than-the-keys",
            contrib(
                with_int(node("att", "Attention", &["x", "w", "", "m"], &["y"]), "num_heads", 2),
                vec![value("x", FLOAT, &[1, 4, 8]), value("w", FLOAT, &[8, 24]), value("m", INT32, &[1, 3])],
                value("y", FLOAT, &[1, 4, 8]),
            ),
            vec!["att", "Attention's mask_index int32 [1, 3] must cover the 4 keys"],
        ),
        (
            "if-at-run-time-branches-of-two-ranks",
            model(
                vec![if_node("cf", "a", "b", vec![])],
                vec![value("c", BOOL, &[])],
                vec![value("y", FLOAT, &[2])],
                vec![floats("a", &[2], &[1.0, 2.0]), floats("b", &[2, 1], &[1.0, 2.0])],
            ),
            vec![
                "cf",
                "If's branches give its output 'y' as float32 [2] and as float32 [2, 1]: xcc needs one type and rank",
            ],
        ),
        (
            "if-at-run-time-branch-of-found-dims",
            model(
                vec![if_node(
                    "cf",
                    "s",
                    "b",
                    vec![
                        node("nz0", "NonZero", &["x"], &["nz"]),
                        with_int(node("sum0", "ReduceSum", &["nz"], &["s"]), "keepdims", 0),
                    ],
                )],
                vec![value("c", BOOL, &[]), value("x", FLOAT, &[3])],
                vec![value("y", INT64, &[])],
                vec![int64s("b", &[], &[0])],
            ),
            vec!["nz", "a tensor whose dims its operator finds is not supported in an If branch that the run chooses"],
        ),
        (
            "matmul-nbits-weights-at-run-time",
            contrib(
                [("K", 32), ("N", 4), ("bits", 4), ("block_size", 16)]
                    .into_iter()
                    .fold(node("nb", "MatMulNBits", &["a", "b", "s"], &["y"]), |n, (k, v)| with_int(n, k, v)),
                vec![value("a", FLOAT, &[1, 32]), value("b", 2, &[4, 2, 8]), value("s", FLOAT, &[8])],
                value("y", FLOAT, &[1, 4]),
            ),
            vec!["nb", "MatMulNBits's input 'b' must be a constant (an initializer)"],
        ),
        (
            "matmul-nbits-g-idx-past-the-blocks",
            {
                let nb = [("K", 32), ("N", 4), ("bits", 4), ("block_size", 16)]
                    .into_iter()
                    .fold(node("nb", "MatMulNBits", &["a", "b", "s", "", "g"], &["y"]), |n, (k, v)| with_int(n, k, v));
                let bytes = |name: &str, dims: &[i64], data_type: i32, raw: Vec<u8>| TensorProto {
                    name: Some(name.into()),
                    dims: dims.to_vec(),
                    data_type: Some(data_type),
                    raw_data: Some(raw),
                    ..Default::default()
                };
                // 32 values of K in 2 blocks, one of them said to be in block 5.
                let g_idx: Vec<u8> =
                    (0..32i32).map(|i| if i == 7 { 5 } else { i / 16 }).flat_map(i32::to_le_bytes).collect();
                let inits = vec![
                    bytes("b", &[4, 2, 8], 2, vec![0x88; 64]),
                    floats("s", &[8], &[0.5; 8]),
                    bytes("g", &[32], INT32, g_idx),
                ];
                use prost::Message;
                let mut m = ModelProto::decode(
                    contrib(nb, vec![value("a", FLOAT, &[1, 32])], value("y", FLOAT, &[1, 4])).as_slice(),
                )
                .expect("just encoded");
                m.graph.as_mut().expect("a graph").initializer = inits;
                m.encode_to_vec()
            },
            vec!["nb", "MatMulNBits's g_idx holds 5, not a block of 0 to 1"],
        ),
    ]
}

/// What the onnx_model fuzz target found (`scripts/fuzz.sh`), each a panic or a module that did
/// not verify before its fix.
fn fuzz_regressions() -> Vec<Case> {
    let one =
        |n: NodeProto, inputs: Vec<ValueInfoProto>, out: ValueInfoProto| model(vec![n], inputs, vec![out], vec![]);
    let x4 = || value("x", FLOAT, &[1, 1, 5, 5]);
    vec![
        (
            "conv-weights-of-another-type",
            one(node("conv_t", "Conv", &["x", "w"], &["y"]), vec![x4(), value("w", INT64, &[1, 1, 3, 3])], x4()),
            vec!["conv_t", "Conv's inputs 'x' (float32) and 'w' (int64) must have one element type"],
        ),
        (
            "batchnorm-statistics-of-another-type",
            one(
                node("bn_t", "BatchNormalization", &["x", "s", "b", "m", "v"], &["y"]),
                vec![
                    x4(),
                    value("s", FLOAT, &[1]),
                    value("b", FLOAT, &[1]),
                    value("m", FLOAT, &[1]),
                    value("v", BOOL, &[1]),
                ],
                x4(),
            ),
            vec!["bn_t", "'x' (float32) and 'v' (bool) must have one element type"],
        ),
        (
            "bitcast-between-sizes",
            one(
                with_int(node("bc", "BitCast", &["a"], &["y"]), "to", 7),
                vec![value("a", FLOAT, &[2])],
                value("y", INT64, &[2]),
            ),
            vec!["bc", "BitCast needs element types of one size, not float32 (4 bytes) and int64 (8)"],
        ),
        (
            "attention-heads-not-grouping",
            one(
                node("attn", "Attention", &["q", "k", "v"], &["y"]),
                vec![
                    value("q", FLOAT, &[1, 3, 4, 8]),
                    value("k", FLOAT, &[1, 2, 4, 8]),
                    value("v", FLOAT, &[1, 2, 4, 8]),
                ],
                value("y", FLOAT, &[1, 3, 4, 8]),
            ),
            vec!["attn", "Q's 3 heads are not a multiple of K's and V's 2"],
        ),
        (
            "attention-3d-without-head-counts",
            one(
                node("attn3", "Attention", &["q", "k", "v"], &["y"]),
                vec![value("q", FLOAT, &[1, 4, 8]), value("k", FLOAT, &[1, 4, 8]), value("v", FLOAT, &[1, 4, 8])],
                value("y", FLOAT, &[1, 4, 8]),
            ),
            vec!["attn3", "3-D Q, K and V need the q_num_heads and kv_num_heads attributes"],
        ),
        (
            "nll-loss-with-float-targets",
            one(
                node("nll", "NegativeLogLikelihoodLoss", &["x", "t"], &["y"]),
                vec![value("x", FLOAT, &[2, 3]), value("t", FLOAT, &[2])],
                value("y", FLOAT, &[]),
            ),
            vec!["nll", "the targets must be int32 or int64, not float32"],
        ),
        (
            "rms-norm-of-integers",
            one(
                node("rms", "RMSNormalization", &["x", "s"], &["y"]),
                vec![value("x", INT64, &[2, 3]), value("s", INT64, &[3])],
                value("y", INT64, &[2, 3]),
            ),
            vec!["rms", "input 'x' must be floating point, not int64"],
        ),
        (
            "cumsum-axis-of-two-values",
            model(
                vec![node("cs", "CumSum", &["x", "ax"], &["y"])],
                vec![value("x", FLOAT, &[2, 3])],
                vec![value("y", FLOAT, &[2, 3])],
                vec![int64s("ax", &[2], &[0, 1])],
            ),
            vec!["cs", "CumSum's axis 'ax' must be one int32 or int64, not int64 [2]"],
        ),
        (
            "relu-of-float8",
            one(node("r8", "Relu", &["a"], &["y"]), vec![value("a", 17, &[2])], value("y", 17, &[2])),
            vec!["r8", "Relu does not take float8e4m3fn tensors like 'a' (xcc casts, quantizes and moves float8 and sub-byte tensors only)"],
        ),
        (
            "quantize-with-a-scale-per-wrong-axis",
            one(
                node("q", "QuantizeLinear", &["x", "s"], &["y"]),
                vec![value("x", FLOAT, &[2, 3]), value("s", FLOAT, &[2])],
                value("y", 2, &[2, 3]),
            ),
            vec!["q", "a per-axis scale or zero point must be [3], not float32 [2]"],
        ),
        (
            "matmul-integer-of-floats",
            one(
                node("mi", "MatMulInteger", &["a", "b"], &["y"]),
                vec![value("a", FLOAT, &[2, 3]), value("b", FLOAT, &[3, 2])],
                value("y", INT32, &[2, 2]),
            ),
            vec!["mi", "'a' must be int8 or uint8, not float32"],
        ),
        (
            "sequence-at-a-run-time-position",
            model(
                vec![node("pair", "SequenceConstruct", &["a", "b"], &["s"]), node("pick", "SequenceAt", &["s", "p"], &["y"])],
                vec![value("a", FLOAT, &[2]), value("b", FLOAT, &[2]), value("p", INT64, &[])],
                vec![value("y", FLOAT, &[2])],
                vec![],
            ),
            vec!["pick", "SequenceAt's position 'p' must be a constant"],
        ),
        (
            "sequence-at-past-the-end",
            model(
                vec![node("pair", "SequenceConstruct", &["a", "b"], &["s"]), node("pick", "SequenceAt", &["s", "p"], &["y"])],
                vec![value("a", FLOAT, &[2]), value("b", FLOAT, &[2])],
                vec![value("y", FLOAT, &[2])],
                vec![int64s("p", &[], &[2])],
            ),
            vec!["pick", "SequenceAt's position 2 is outside a sequence of 2"],
        ),
        (
            "concat-from-an-empty-sequence",
            model(
                vec![
                    node("none", "SequenceEmpty", &[], &["s"]),
                    with_int(node("join", "ConcatFromSequence", &["s"], &["y"]), "axis", 0),
                ],
                vec![value("a", FLOAT, &[2])],
                vec![value("y", FLOAT, &[2])],
                vec![],
            ),
            vec!["join", "ConcatFromSequence of an empty sequence"],
        ),
        (
            "split-to-sequence-sizes-short-of-the-axis",
            model(
                vec![with_int(node("parts", "SplitToSequence", &["x", "sizes"], &["s"]), "axis", 0), {
                    let join = node("join", "ConcatFromSequence", &["s"], &["y"]);
                    with_int(join, "axis", 0)
                }],
                vec![value("x", FLOAT, &[5, 2])],
                vec![value("y", FLOAT, &[5, 2])],
                vec![int64s("sizes", &[2], &[2, 2])],
            ),
            vec!["parts", "SplitToSequence's sizes [2, 2] do not cover the axis of 5"],
        ),
        (
            "sequence-erase-of-an-empty-sequence",
            model(
                vec![
                    node("none", "SequenceEmpty", &[], &["s"]),
                    node("drop", "SequenceErase", &["s"], &["t"]),
                    with_int(node("join", "ConcatFromSequence", &["t"], &["y"]), "axis", 0),
                ],
                vec![value("a", FLOAT, &[2])],
                vec![value("y", FLOAT, &[2])],
                vec![],
            ),
            vec!["drop", "SequenceErase of an empty sequence"],
        ),
        (
            "optional-without-a-value",
            model(
                vec![node("none", "Optional", &[], &["o"]), node("get", "OptionalGetElement", &["o"], &["y"])],
                vec![value("a", FLOAT, &[2])],
                vec![value("y", FLOAT, &[2])],
                vec![],
            ),
            vec!["none", "an Optional without a value is not supported"],
        ),
        (
            "random-uniform-without-a-shape",
            model(vec![node("draw", "RandomUniform", &[], &["y"])], vec![], vec![value("y", FLOAT, &[2])], vec![]),
            vec!["draw", "RandomUniform needs the shape attribute"],
        ),
        (
            "random-normal-of-integers",
            model(
                vec![with_int(with_ints(node("draw", "RandomNormal", &[], &["y"]), "shape", &[2]), "dtype", 7)],
                vec![],
                vec![value("y", INT64, &[2])],
                vec![],
            ),
            vec!["draw", "RandomNormal draws float16, bfloat16, float or double, not int64"],
        ),
        (
            "multinomial-of-float-classes",
            model(
                vec![with_int(node("pick", "Multinomial", &["x"], &["y"]), "dtype", 1)],
                vec![value("x", FLOAT, &[1, 3])],
                vec![value("y", FLOAT, &[1, 1])],
                vec![],
            ),
            vec!["pick", "Multinomial's dtype must be int32 or int64, not float32"],
        ),
        (
            "loop-without-a-trip-count",
            one(
                {
                    let mut n =
                        loop_node(vec![node("stop", "Not", &["c"], &["c_out"]), node("pass_a", "Identity", &["a"], &["a_out"])], &[2]);
                    n.input[0] = String::new();
                    n
                },
                vec![value("a0", FLOAT, &[2])],
                value("y", FLOAT, &[2]),
            ),
            vec!["lp", "a Loop without a trip count (one that runs until its condition) is not supported"],
        ),
        (
            "loop-carried-value-that-grows",
            one(
                loop_node(
                    vec![
                        node("pass_c", "Identity", &["c"], &["c_out"]),
                        with_int(node("grow", "Concat", &["a", "a"], &["a_out"]), "axis", 0),
                    ],
                    &[4],
                ),
                vec![value("m", INT64, &[]), value("a0", FLOAT, &[2])],
                value("y", FLOAT, &[2]),
            ),
            vec!["lp", "the loop-carried value 'a0' is float32 [2] before the loop and float32 [4] after an iteration"],
        ),
        (
            "loop-body-sized-by-its-iteration",
            model(
                vec![loop_node(
                    vec![
                        node("pass_c", "Identity", &["c"], &["c_out"]),
                        node("first", "Unsqueeze", &["i", "zero"], &["i1"]),
                        node("cut", "Slice", &["a", "zero", "i1"], &["part"]),
                        node("sum", "ReduceSum", &["part"], &["s"]),
                        node("add", "Add", &["a", "s"], &["a_out"]),
                    ],
                    &[2],
                )],
                vec![value("m", INT64, &[]), value("a0", FLOAT, &[2])],
                vec![value("y", FLOAT, &[2])],
                vec![int64s("zero", &[1], &[0])],
            ),
            vec!["lp", "a Loop body whose dims are read from data (the iteration number, a carried value)"],
        ),
        (
            "add-of-two-types",
            one(
                node("add_t", "Add", &["a", "b"], &["y"]),
                vec![value("a", FLOAT, &[2]), value("b", INT64, &[2])],
                value("y", FLOAT, &[2]),
            ),
            vec!["add_t", "'a' (float32) and 'b' (int64) must have one element type"],
        ),
        (
            "expand-shape-of-floats",
            one(
                node("ex_t", "Expand", &["x", "s"], &["y"]),
                vec![value("x", FLOAT, &[3]), value("s", FLOAT, &[2])],
                value("y", FLOAT, &[3]),
            ),
            vec!["ex_t", "Expand's input 's' must be int64, not float32"],
        ),
        (
            "node-without-outputs",
            model(
                vec![node("ex_o", "Expand", &["x", "s"], &[]), node("relu_o", "Relu", &["x"], &["y"])],
                vec![value("x", FLOAT, &[3]), value("s", INT64, &[1])],
                vec![value("y", FLOAT, &[3])],
                vec![],
            ),
            vec!["ex_o", "Expand needs its first output named"],
        ),
        (
            "gather-from-a-scalar",
            one(
                node("ga_s", "Gather", &["x", "i"], &["y"]),
                vec![value("x", FLOAT, &[]), value("i", INT64, &[3])],
                value("y", FLOAT, &[3]),
            ),
            vec!["ga_s", "Gather's data must have rank 1 or more"],
        ),
        (
            "split-of-a-scalar",
            one(node("sp_s", "Split", &["x"], &["y"]), vec![value("x", FLOAT, &[])], value("y", FLOAT, &[])),
            vec!["sp_s", "Split's input must have rank 1 or more"],
        ),
        (
            "maxpool-kernel-of-zero",
            one(with_ints(node("mp_k", "MaxPool", &["x"], &["y"]), "kernel_shape", &[0, 2]), vec![x4()], x4()),
            vec!["mp_k", "a kernel size of 0 is out of range"],
        ),
        (
            "maxpool-window-too-wide",
            one(with_ints(node("mp_w", "MaxPool", &["x"], &["y"]), "kernel_shape", &[2, 65536]), vec![x4()], x4()),
            vec!["mp_w", "a pooling window of 65536 is wider than xcc compiles (4096)"],
        ),
        (
            "lppool-kernel-product-overflows",
            one(
                with_ints(node("lp_k", "LpPool", &["x"], &["y"]), "kernel_shape", &[i64::MAX, 2]),
                vec![x4()],
                x4(),
            ),
            vec!["lp_k", "kernel_shape must be positive and its product fit in 64 bits"],
        ),
        (
            "maxpool-negative-stride",
            one(
                with_ints(
                    with_ints(node("mp_s", "MaxPool", &["x"], &["y"]), "kernel_shape", &[2, 2]),
                    "strides",
                    &[1, -1],
                ),
                vec![x4()],
                x4(),
            ),
            vec!["mp_s", "strides value -1 is out of range"],
        ),
        (
            "batchnorm-scale-not-per-channel",
            one(
                node("bn_c", "BatchNormalization", &["x", "s", "b", "m", "v"], &["y"]),
                vec![
                    x4(),
                    value("s", FLOAT, &[]),
                    value("b", FLOAT, &[1]),
                    value("m", FLOAT, &[1]),
                    value("v", FLOAT, &[1]),
                ],
                x4(),
            ),
            vec!["bn_c", "'s'", "one value per channel here, dims [1]"],
        ),
        (
            "where-condition-of-floats",
            one(
                node("wh_f", "Where", &["c", "a", "b"], &["y"]),
                vec![value("c", FLOAT, &[2]), value("a", FLOAT, &[2]), value("b", FLOAT, &[2])],
                value("y", FLOAT, &[2]),
            ),
            vec!["wh_f", "Where's input 'c' must be bool, not float32"],
        ),
        (
            "split-num-outputs-disagrees",
            one(
                with_int(node("sp_n", "Split", &["x"], &["y"]), "num_outputs", 1 << 31),
                vec![value("x", FLOAT, &[4])],
                value("y", FLOAT, &[4]),
            ),
            vec!["sp_n", "num_outputs is 2147483648, but the node has 1 outputs"],
        ),
        (
            "input-dims-too-large",
            one(
                node("relu_big", "Relu", &["x"], &["y"]),
                vec![value("x", FLOAT, &[0, 3, i64::MAX])],
                value("y", FLOAT, &[0, 3, i64::MAX]),
            ),
            vec!["'x'", "are too large"],
        ),
        (
            "concat-of-scalars",
            one(
                node("cat_s", "Concat", &["a", "b"], &["y"]),
                vec![value("a", FLOAT, &[]), value("b", FLOAT, &[])],
                value("y", FLOAT, &[2]),
            ),
            vec!["cat_s", "names no dim of a scalar"],
        ),
        (
            "squeeze-run-time-axes-of-no-unit-dim",
            one(
                node("sq_r", "Squeeze", &["x", "axes"], &["y"]),
                vec![value("x", FLOAT, &[3]), value("axes", INT64, &[1])],
                value("y", FLOAT, &[]),
            ),
            vec!["sq_r", "cannot all name dims of size 1"],
        ),
        (
            "convtranspose-pads-out-of-range",
            one(
                with_ints(node("ct_p", "ConvTranspose", &["x", "w"], &["y"]), "pads", &[1, i64::MIN, 1, 1]),
                vec![x4(), value("w", FLOAT, &[1, 1, 3, 3])],
                x4(),
            ),
            vec!["ct_p", "pads value -9223372036854775808 is out of range"],
        ),
        (
            "resize-linear-of-integers",
            model(
                vec![with_string(node("rs_i", "Resize", &["x", "", "sc"], &["y"]), "mode", "linear")],
                vec![value("x", INT64, &[1, 1, 2, 3])],
                vec![value("y", INT64, &[1, 1, 4, 6])],
                vec![floats("sc", &[4], &[1.0, 1.0, 2.0, 2.0])],
            ),
            vec!["rs_i", "Resize's linear mode takes floating point here, not int64"],
        ),
        (
            "clip-bound-of-many-values",
            one(
                node("clip_b", "Clip", &["x", "lo"], &["y"]),
                vec![value("x", FLOAT, &[3]), value("lo", FLOAT, &[3])],
                value("y", FLOAT, &[3]),
            ),
            vec!["clip_b", "Clip's parameter 'lo' must be a single value"],
        ),
    ]
}

/// A symbolic dim that no flag fixes stays symbolic: the run functions take it first. `--shape`
/// specializes it instead. An operator that does not take run-time dims yet names its input and
/// the flag that fixes it.
fn symbolic_dims_stay_symbolic_or_are_specialized() -> Result<(), String> {
    let dir = suite_dir().parent().unwrap().join("target/xcc-tests/onnx-shapes");
    std::fs::create_dir_all(&dir).unwrap();
    let batch = |mut v: ValueInfoProto| {
        if let Some(type_proto::Value::TensorType(t)) = v.r#type.as_mut().and_then(|t| t.value.as_mut()) {
            t.shape.as_mut().unwrap().dim[0].value =
                Some(tensor_shape_proto::dimension::Value::DimParam("batch".into()));
        }
        v
    };
    let relu = model(
        vec![node("relu0", "Relu", &["x"], &["y"])],
        vec![batch(value("x", FLOAT, &[2, 2]))],
        vec![value("y", FLOAT, &[2, 2])],
        vec![],
    );
    let compile = |case: &str, bytes: &[u8], args: &[&str]| -> Result<String, String> {
        let case_dir = dir.join(case);
        std::fs::create_dir_all(&case_dir).unwrap();
        let input = case_dir.join("model.onnx");
        std::fs::write(&input, bytes).unwrap();
        let out = Command::new(xcc_binary()).arg(&input).args(args).arg("-o").arg(case_dir.join("libm.a")).output();
        let out = out.map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("{case}: {}", String::from_utf8_lossy(&out.stderr)));
        }
        std::fs::read_to_string(case_dir.join("m.h")).map_err(|e| format!("{case}: m.h: {e}"))
    };
    let header = compile("symbolic", &relu, &[])?;
    for want in ["/* input 0: \"x\", float32 [batch, 2] */", "int32_t m_run(int64_t batch, const float *x, float *y"] {
        if !header.contains(want) {
            return Err(format!("symbolic: the header lacks {want}:\n{header}"));
        }
    }
    let header = compile("specialized", &relu, &["--shape", "x=3x2"])?;
    if !header.contains("#define M_INPUT0_SIZE 6") || header.contains("int64_t batch") {
        return Err(format!("specialized: the header does not give the bound size:\n{header}"));
    }
    let mut resize = node("resize0", "Resize", &["x", "", "scales"], &["y"]);
    resize.attribute.push(xcc_frontend_onnx::proto::AttributeProto {
        name: Some("mode".into()),
        r#type: Some(xcc_frontend_onnx::proto::attribute_proto::AttributeType::String as i32),
        s: Some(b"nearest".to_vec()),
        ..Default::default()
    });
    let resize = model(
        vec![resize],
        vec![batch(value("x", FLOAT, &[1, 1, 2, 2]))],
        vec![value("y", FLOAT, &[1, 1, 4, 4])],
        vec![xcc_test_suite::onnx_build::floats("scales", &[4], &[1.0, 1.0, 0.3, 2.0])],
    );
    // A scale that is no ratio of small integers, over a dim the run gives.
    expect_failure(
        &dir,
        "not-yet",
        &resize,
        &["Resize node 'resize0'", "scale 0.3", "ratios of small integers", "--dim"],
    )?;
    // A size that is no dim, computed before the run: refused, not an empty output.
    let negative = model(
        vec![node("resize1", "Resize", &["x", "", "", "sizes"], &["y"])],
        vec![batch(value("x", FLOAT, &[1, 1, 2, 2]))],
        vec![value("y", FLOAT, &[1, 1, 4, 4])],
        vec![xcc_test_suite::onnx_build::int64s("sizes", &[4], &[1, 1, -1, 4])],
    );
    expect_failure(&dir, "negative-size", &negative, &["Resize node 'resize1'", "output dim 2 would be -1"])
}

/// `--shape` may fill in open dims only: it names an input that exists, keeps the declared rank
/// and does not change a dim the model fixes.
fn shape_flags_that_contradict_the_model() -> Result<(), String> {
    let dir = suite_dir().parent().unwrap().join("target/xcc-tests/onnx-shape-flags");
    let bytes = add_model();
    expect_failure_with(&dir, "unknown-input", &bytes, &["--shape", "z=2x2"], &["--shape z", "no input named 'z'"])?;
    expect_failure_with(&dir, "fixed-dim", &bytes, &["--shape", "x=3x2"], &["'x'", "dimension 0 is fixed to 2"])?;
    expect_failure_with(&dir, "rank", &bytes, &["--shape", "x=2x2x1"], &["'x'", "rank 3", "rank 2"])?;
    expect_failure_with(&dir, "initializer", &bytes, &["--shape", "w=2x2"], &["no input named 'w'"])
}

/// A model whose inputs share symbolic dims: `ids` and `mask` are [batch, seq], `bias` is [seq].
fn symbolic_model() -> Vec<u8> {
    let sym = symbolic;
    model(
        vec![node("add0", "Add", &["ids", "mask"], &["s"]), node("add1", "Add", &["s", "bias"], &["y"])],
        vec![sym("ids", FLOAT, &["batch", "seq"]), sym("mask", FLOAT, &["batch", "seq"]), sym("bias", FLOAT, &["seq"])],
        vec![sym("y", FLOAT, &["batch", "seq"])],
        vec![],
    )
}

/// Operators that take run-time dims refuse the cases their code is not generated for, naming
/// the node and the dims: two dims that differ in every run, element counts that differ as
/// expressions, normalized dims or a squeezed dim known only at run time, a MatMul with a
/// vector, ConvTranspose's output_shape or weights over run-time dims, GatherND tuples whose
/// length is known only at run time, and a quantization with a scale per axis over them; an operator that takes none (ConstantOfShape, whose
/// shape's length is the output's rank) says how to fix the dims.
fn run_time_dims_the_operators_refuse() -> Result<(), String> {
    let dir = suite_dir().parent().unwrap().join("target/xcc-tests/onnx-run-time-dims");
    let one = |n: NodeProto, inputs: Vec<ValueInfoProto>, inits: Vec<TensorProto>| {
        model(vec![n], inputs, vec![value("y", FLOAT, &[1])], inits)
    };
    // Two dims that may be equal are checked equal by the run (`decoders` tests a mask shorter
    // than its cache); two that differ in every run are an error.
    let add = one(
        node("add0", "Add", &["a", "b"], &["y"]),
        vec![symbolic("a", FLOAT, &["seq"]), symbolic("b", FLOAT, &["seq + 1"])],
        vec![],
    );
    expect_failure(&dir, "broadcast", &add, &["Add node 'add0'", "[seq]", "[seq+1]", "differ in every run"])?;
    let reshape = one(
        node("reshape0", "Reshape", &["x", "shape"], &["y"]),
        vec![symbolic("x", FLOAT, &["seq", "3"])],
        vec![int64s("shape", &[2], &[2, 2])],
    );
    expect_failure(&dir, "reshape", &reshape, &["Reshape node 'reshape0'", "[seq, 3]", "[2, 2] for every value"])?;
    // ConvTranspose's output_shape over a run-time dim would make its pads run-time values.
    let shaped = with_ints(node("deconv0", "ConvTranspose", &["x", "w"], &["y"]), "output_shape", &[8]);
    let deconv = one(shaped, vec![symbolic("x", FLOAT, &["1", "1", "seq"])], vec![floats("w", &[1, 1, 3], &[1.0; 3])]);
    expect_failure(
        &dir,
        "conv-transpose-output-shape",
        &deconv,
        &["ConvTranspose node 'deconv0'", "output_shape over spatial dims known only at run time", "--dim"],
    )?;
    let deconv_w = one(
        node("deconv1", "ConvTranspose", &["x", "w"], &["y"]),
        vec![symbolic("x", FLOAT, &["1", "1", "4"]), symbolic("w", FLOAT, &["1", "1", "k"])],
        vec![],
    );
    expect_failure(
        &dir,
        "conv-transpose-weights",
        &deconv_w,
        &["ConvTranspose node 'deconv1'", "'w'", "must be static", "[1, 1, k]"],
    )?;
    // GatherND's index tuples must have a length known at compile time.
    let tuples = one(
        node("gathernd0", "GatherND", &["x", "idx"], &["y"]),
        vec![value("x", FLOAT, &[4, 4]), symbolic("idx", INT64, &["n", "len"])],
        vec![],
    );
    expect_failure(
        &dir,
        "gather-nd-tuple-length",
        &tuples,
        &["GatherND node 'gathernd0'", "the index tuples' length", "len", "compile time"],
    )?;
    // A quantization's scale per axis is shaped against the input's dims (one per tensor is
    // not: that case compiles, see tests/dynamic_dims.rs).
    let per_axis = one(
        node("quant0", "QuantizeLinear", &["x", "scale"], &["y"]),
        vec![symbolic("x", FLOAT, &["seq", "3"])],
        vec![floats("scale", &[3], &[0.1, 0.2, 0.3])],
    );
    expect_failure(
        &dir,
        "quantize-per-axis",
        &per_axis,
        &["QuantizeLinear node 'quant0'", "a scale or zero point per axis or block", "[seq, 3]"],
    )?;
    // A shape whose length (the output's rank) is known only at run time.
    let filled =
        one(node("fill1", "ConstantOfShape", &["shape"], &["y"]), vec![symbolic("shape", INT64, &["rank"])], vec![]);
    expect_failure(
        &dir,
        "constant-of-shape-rank",
        &filled,
        &["ConstantOfShape node 'fill1'", "does not take dims known only at run time", "--dim rank=N"],
    )?;
    let norm = one(
        node("norm0", "LayerNormalization", &["x", "scale"], &["y"]),
        vec![symbolic("x", FLOAT, &["2", "seq"])],
        vec![floats("scale", &[1], &[1.0])],
    );
    expect_failure(&dir, "layer-norm", &norm, &["LayerNormalization node 'norm0'", "normalized dims", "seq"])?;
    let squeeze = one(
        node("squeeze0", "Squeeze", &["x", "axes"], &["y"]),
        vec![symbolic("x", FLOAT, &["seq", "1"])],
        vec![int64s("axes", &[1], &[0])],
    );
    expect_failure(&dir, "squeeze", &squeeze, &["Squeeze node 'squeeze0'", "cannot squeeze dimension 0 of size seq"])?;
    let matmul = one(
        node("mm0", "MatMul", &["x", "v"], &["y"]),
        vec![symbolic("x", FLOAT, &["seq", "4"])],
        vec![floats("v", &[4], &[1.0; 4])],
    );
    expect_failure(&dir, "matmul-vector", &matmul, &["MatMul node 'mm0'", "[seq, 4] x [4]", "not supported yet"])?;
    // CNN operators take a batch and spatial dims at run time, not channels.
    let conv = one(
        node("conv0", "Conv", &["x", "w"], &["y"]),
        vec![symbolic("x", FLOAT, &["batch", "channels", "height", "4"])],
        vec![floats("w", &[1, 1, 1, 1], &[1.0])],
    );
    expect_failure(
        &dir,
        "conv-channels",
        &conv,
        &["Conv node 'conv0'", "'x'", "channels (dim 1) must be known", "[batch, channels, height, 4]"],
    )?;
    let pool = one(
        node("pool0", "GlobalAveragePool", &["x"], &["y"]),
        vec![symbolic("x", FLOAT, &["batch", "channels", "4", "4"])],
        vec![],
    );
    expect_failure(&dir, "pool-channels", &pool, &["GlobalAveragePool node 'pool0'", "channels (dim 1)"])?;
    // SAME padding with a stride: the pads would depend on the run-time dim.
    let same = with_ints(
        with_string(node("conv2", "Conv", &["x", "w"], &["y"]), "auto_pad", "SAME_UPPER"),
        "strides",
        &[2, 1],
    );
    let conv_same = one(
        same,
        vec![symbolic("x", FLOAT, &["batch", "1", "height", "4"])],
        vec![floats("w", &[1, 1, 3, 3], &[1.0; 9])],
    );
    expect_failure(
        &dir,
        "conv-same-strided-height",
        &conv_same,
        &["Conv node 'conv2'", "auto_pad SAME_UPPER with stride 2", "spatial dim 2", "--dim"],
    )?;
    let gemm_node = with_int(node("gemm0", "Gemm", &["x", "w"], &["y"]), "transA", 1);
    let gemm = one(gemm_node, vec![symbolic("x", FLOAT, &["4", "batch"])], vec![floats("w", &[4, 1], &[1.0; 4])]);
    expect_failure(&dir, "gemm-transposed", &gemm, &["Gemm node 'gemm0'", "only A's rows", "[4, batch]", "--dim"])?;
    let gemm_c = one(
        node("gemm1", "Gemm", &["x", "w", "c"], &["y"]),
        vec![symbolic("x", FLOAT, &["batch", "4"])],
        vec![floats("w", &[4, 1], &[1.0; 4]), floats("c", &[2, 1], &[1.0; 2])],
    );
    expect_failure(&dir, "gemm-c-rows", &gemm_c, &["Gemm node 'gemm1'", "'c'", "one row of 1 values", "[2, 1]"])?;
    let conv_w = one(
        node("conv1", "Conv", &["x", "w"], &["y"]),
        vec![symbolic("x", FLOAT, &["batch", "1", "4", "4"]), symbolic("w", FLOAT, &["filters", "1", "1", "1"])],
        vec![],
    );
    expect_failure(
        &dir,
        "conv-weights",
        &conv_w,
        &["Conv node 'conv1'", "'w'", "must be static", "[filters, 1, 1, 1]"],
    )?;
    let stats: Vec<TensorProto> = ["scale", "bias", "mean", "var"].iter().map(|n| floats(n, &[1], &[1.0])).collect();
    let bn_node =
        with_int(node("bn0", "BatchNormalization", &["x", "scale", "bias", "mean", "var"], &["y"]), "training_mode", 1);
    let bn = one(bn_node, vec![symbolic("x", FLOAT, &["batch", "1", "2", "2"])], stats);
    expect_failure(
        &dir,
        "batch-norm-training",
        &bn,
        &["BatchNormalization node 'bn0'", "training mode", "[batch, 1, 2, 2]"],
    )?;
    let flat_pool = one(node("pool1", "GlobalMaxPool", &["x"], &["y"]), vec![value("x", FLOAT, &[4])], vec![]);
    expect_failure(&dir, "pool-rank", &flat_pool, &["GlobalMaxPool node 'pool1'", "a batch and a channel dim", "[4]"])
}

/// Shapes computed from run-time dims that no run could have (`Concat -> Expand` with a negative
/// dim, a Gather of a shape past its rank), and a shape read from a run-time tensor, are errors
/// naming the node.
fn shapes_computed_from_run_time_dims() -> Result<(), String> {
    let dir = suite_dir().parent().unwrap().join("target/xcc-tests/onnx-shape-values");
    let x = || symbolic("x", FLOAT, &["seq", "4"]);
    let seq = |idx: i64| int64s("i0", &[], &[idx]);
    let out_of_range = model(
        vec![node("shape0", "Shape", &["x"], &["s"]), node("gather0", "Gather", &["s", "i0"], &["y"])],
        vec![x()],
        vec![value("y", INT64, &[1])],
        vec![seq(5)],
    );
    expect_failure(&dir, "gather-index", &out_of_range, &["Gather node 'gather0'", "index 5", "shape of 2 dims"])?;
    let expand = model(
        vec![
            node("shape0", "Shape", &["x"], &["s"]),
            node("gather0", "Gather", &["s", "i0"], &["n"]),
            node("unsqueeze0", "Unsqueeze", &["n", "axes"], &["n1"]),
            with_int(node("concat0", "Concat", &["n1", "minus"], &["target"]), "axis", 0),
            node("expand0", "Expand", &["x", "target"], &["y"]),
        ],
        vec![x()],
        vec![value("y", FLOAT, &[1])],
        vec![seq(0), int64s("axes", &[1], &[0]), int64s("minus", &[1], &[-2])],
    );
    expect_failure(&dir, "expand-negative", &expand, &["Expand node 'expand0'", "negative dim -2"])?;
    // Along an axis other than the gathered one, the indices may not be longer than the data.
    let wide = model(
        vec![node("gather1", "GatherElements", &["x", "idx"], &["y"])],
        vec![x(), value("idx", INT64, &[1, 5])],
        vec![value("y", FLOAT, &[1])],
        vec![],
    );
    expect_failure(
        &dir,
        "gather-elements-indices-too-long",
        &wide,
        &["GatherElements node 'gather1'", "dim 1 is 5, more than the data's 4"],
    )?;
    // A shape given as an input is read at run time; one computed from input data is not yet.
    let reshape = model(
        vec![
            // Abs is not among the operators whose integer results the run computes first.
            node("abs0", "Abs", &["target"], &["absolute"]),
            node("reshape0", "Reshape", &["x", "absolute"], &["y"]),
        ],
        vec![x(), value("target", INT64, &[2])],
        vec![value("y", FLOAT, &[1])],
        vec![],
    );
    let expand_data = model(
        vec![node("expand1", "Expand", &["x", "target"], &["y"])],
        vec![x(), value("target", INT64, &[2])],
        vec![value("y", FLOAT, &[1])],
        vec![],
    );
    expect_failure(
        &dir,
        "expand-data-shape-of-run-time-input",
        &expand_data,
        &["Expand node 'expand1'", "static dims"],
    )?;
    let mat = || value("m", FLOAT, &[4, 5]);
    let topk_computed = model(
        vec![node("double1", "Add", &["k", "k"], &["twice"]), node("topk0", "TopK", &["m", "twice"], &["v", "i"])],
        vec![mat(), value("k", INT64, &[1])],
        vec![value("v", FLOAT, &[4, -1]), value("i", INT64, &[4, -1])],
        vec![],
    );
    expect_failure(&dir, "topk-k-computed", &topk_computed, &["TopK node 'topk0'", "'twice'", "graph input"])?;
    let topk_big = model(
        vec![node("topk1", "TopK", &["m", "nine"], &["v", "i"])],
        vec![mat()],
        vec![value("v", FLOAT, &[4, -1]), value("i", INT64, &[4, -1])],
        vec![int64s("nine", &[1], &[9])],
    );
    expect_failure(&dir, "topk-k-past-the-axis", &topk_big, &["TopK node 'topk1'", "K = 9", "0..=5"])?;
    // Pads computed from an input by Add, Sub, Max, Div, Concat, ... are read at run time
    // (the CenterCropPad node tests); through an operator outside that list they are refused.
    let pads_computed = model(
        vec![node("abs2", "Abs", &["p"], &["positive"]), node("pad0", "Pad", &["m", "positive"], &["y"])],
        vec![mat(), value("p", INT64, &[4])],
        vec![value("y", FLOAT, &[-1, -1])],
        vec![],
    );
    expect_failure(
        &dir,
        "pad-pads-computed",
        &pads_computed,
        &["Pad node 'pad0'", "'positive'", "pads must be", "computed from those"],
    )?;
    let split_short = model(
        vec![with_int(node("split0", "Split", &["m", "sizes"], &["a", "b"]), "axis", 1)],
        vec![mat()],
        vec![value("a", FLOAT, &[4, -1]), value("b", FLOAT, &[4, -1])],
        vec![int64s("sizes", &[2], &[2, 2])],
    );
    expect_failure(&dir, "split-sizes-short", &split_short, &["Split node 'split0'", "[2, 2]", "dimension 5"])?;
    let text = |name: &str, v: &str| AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::String as i32),
        s: Some(v.as_bytes().to_vec()),
        ..Default::default()
    };
    let mut crop = node("resize1", "Resize", &["m", "box", "", "sizes"], &["y"]);
    crop.attribute.push(text("coordinate_transformation_mode", "tf_crop_and_resize"));
    let roi_only = model(
        vec![crop],
        vec![mat(), value("box", FLOAT, &[4])],
        vec![value("y", FLOAT, &[-1, -1])],
        vec![int64s("sizes", &[2], &[2, 2])],
    );
    expect_failure(&dir, "resize-roi-alone-at-run-time", &roi_only, &["Resize node 'resize1'", "roi as a constant"])?;
    let ratio_computed = model(
        vec![
            node("double4", "Add", &["r", "r"], &["twice"]),
            node("dropout1", "Dropout", &["m", "twice", "train"], &["y"]),
        ],
        vec![mat(), value("r", FLOAT, &[]), value("train", 9, &[])],
        vec![value("y", FLOAT, &[4, 5])],
        vec![],
    );
    expect_failure(
        &dir,
        "dropout-ratio-computed",
        &ratio_computed,
        &["Dropout node 'dropout1'", "'twice'", "graph input"],
    )?;
    let float_range = model(
        vec![
            node("square3", "Mul", &["start", "start"], &["squared"]),
            node("floor3", "Floor", &["squared"], &["whole"]),
            node("sin3", "Sin", &["whole"], &["wave"]),
            node("range1", "Range", &["wave", "limit", "delta"], &["y"]),
        ],
        vec![value("start", FLOAT, &[]), value("limit", FLOAT, &[]), value("delta", FLOAT, &[])],
        vec![value("y", FLOAT, &[1])],
        vec![],
    );
    expect_failure(&dir, "range-float-computed-start", &float_range, &["Range node 'range1'", "start", "graph input"])?;
    expect_failure(
        &dir,
        "reshape-run-time-tensor",
        &reshape,
        &["Reshape node 'reshape0'", "'absolute'", "compile-time constant or computed from dims"],
    )
}

/// An INT attribute.
fn with_int(mut n: NodeProto, name: &str, value: i64) -> NodeProto {
    n.attribute.push(AttributeProto {
        name: Some(name.into()),
        r#type: Some(attribute_proto::AttributeType::Int as i32),
        i: Some(value),
        ..Default::default()
    });
    n
}

/// A symbolic dim is one size wherever the inputs use it: `--dim` sets it by name, one input's
/// `--shape` sets it for the others, and sources that disagree are errors.
fn symbolic_dims_are_unified() -> Result<(), String> {
    let dir = suite_dir().parent().unwrap().join("target/xcc-tests/onnx-dims");
    let bytes = symbolic_model();
    expect_failure_with(
        &dir,
        "conflict",
        &bytes,
        &["--dim", "seq=4", "--shape", "ids=2x5"],
        &["'ids'", "--shape ids=2x5", "'seq'", "5", "--dim seq=4"],
    )?;
    expect_failure_with(
        &dir,
        "conflicting-shapes",
        &bytes,
        &["--shape", "ids=2x5", "--shape", "bias=6"],
        &["'seq'", "6", "5"],
    )?;
    expect_failure_with(&dir, "unknown", &bytes, &["--dim", "length=3"], &["--dim length", "batch, seq"])?;
    expect_failure_with(&dir, "not-a-number", &bytes, &["--dim", "batch=two"], &["--dim 'batch=two'"])?;
    // Accepted: --dim alone, one input's --shape sizing the others, and a symbol left to run time.
    for (case, args) in [
        ("by-name", &["--dim", "batch=2", "--dim", "seq=5"][..]),
        ("by-shape", &["--shape", "ids=2x5"]),
        ("seq-at-run-time", &["--dim", "batch=2"]),
    ] {
        let out_dir = dir.join(case);
        std::fs::create_dir_all(&out_dir).unwrap();
        let input = out_dir.join("model.onnx");
        std::fs::write(&input, &bytes).unwrap();
        let out = Command::new(xcc_binary()).arg(&input).args(args).arg("-o").arg(out_dir.join("libm.a")).output();
        let out = out.map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("{case}: {}", String::from_utf8_lossy(&out.stderr)));
        }
        let header = std::fs::read_to_string(out_dir.join("m.h")).map_err(|e| format!("m.h: {e}"))?;
        let wants: &[&str] = if case == "seq-at-run-time" {
            &[
                "/* input 1: \"mask\", float32 [2, seq] */",
                "/* input 2: \"bias\", float32 [seq] */",
                "m_run(int64_t seq,",
            ]
        } else {
            &["/* input 1: \"mask\", float32 [2, 5] */", "/* input 2: \"bias\", float32 [5] */"]
        };
        for want in wants {
            if !header.contains(want) {
                return Err(format!("{case}: the header lacks {want}:\n{header}"));
            }
        }
    }
    Ok(())
}

/// Ranges of symbolic dims (`--dim seq=1..2048`, a `--shape` place `1..2048`): malformed or
/// empty ones, a range for a dim the model fixes, sources that disagree, maxima at which a
/// tensor passes 2^44 bytes, and a dim that shrinks as its symbol grows (no one workspace then
/// serves the range) are errors; accepted ranges appear in the header with
/// `NAME_workspace_size_max`.
fn dim_ranges() -> Result<(), String> {
    let dir = suite_dir().parent().unwrap().join("target/xcc-tests/onnx-dim-ranges");
    let bytes = symbolic_model();
    expect_failure_with(&dir, "not-a-range", &bytes, &["--dim", "seq=1..x"], &["--dim 'seq=1..x'", "MIN..MAX"])?;
    expect_failure_with(&dir, "empty", &bytes, &["--dim", "seq=5..4"], &["--dim 'seq=5..4'"])?;
    expect_failure_with(&dir, "bad-shape", &bytes, &["--shape", "ids=2x..x"], &["--shape 'ids=2x..x'"])?;
    expect_failure_with(
        &dir,
        "conflict",
        &bytes,
        &["--dim", "seq=..8", "--shape", "ids=2x1..16"],
        &["'ids'", "'seq'", "1..16", "--dim seq=1..8"],
    )?;
    expect_failure_with(&dir, "fixed-dim", &add_model(), &["--shape", "x=1..2x2"], &["'x'", "fixed to 2", "1..2"])?;
    expect_failure_with(
        &dir,
        "too-large",
        &bytes,
        &["--dim", "batch=..1000000", "--dim", "seq=..100000000"],
        &["[batch, seq]", "2^44", "maxima"],
    )?;
    let shrinking = model(
        vec![
            node("shape0", "Shape", &["x"], &["n"]),
            node("sub0", "Sub", &["hundred", "n"], &["rest"]),
            node("fill0", "ConstantOfShape", &["rest"], &["y"]),
        ],
        vec![symbolic("x", FLOAT, &["seq"])],
        vec![value("y", FLOAT, &[1])],
        vec![int64s("hundred", &[1], &[100])],
    );
    expect_failure_with(&dir, "shrinking", &shrinking, &["--dim", "seq=..8"], &["'y'", "-seq+100", "shrinks"])?;
    // The second half of a Split in two is what the first leaves, which does not grow with seq
    // (as ONNX defines it, 4 -> 2 + 2 but 5 -> 3 + 2 and 6 -> 3 + 3: the check is structural).
    let halves = model(
        vec![with_int(node("split0", "Split", &["x"], &["a", "b"]), "num_outputs", 2)],
        vec![symbolic("x", FLOAT, &["seq"])],
        vec![value("a", FLOAT, &[1]), value("b", FLOAT, &[1])],
        vec![],
    );
    expect_failure_with(
        &dir,
        "computed-dim-may-shrink",
        &halves,
        &["--dim", "seq=..8"],
        &["'b'", "computed as seq - floor_div(seq+1, 2)", "may shrink"],
    )?;
    let case_dir = dir.join("accepted");
    std::fs::create_dir_all(&case_dir).unwrap();
    std::fs::write(case_dir.join("model.onnx"), &bytes).unwrap();
    let out = Command::new(xcc_binary())
        .arg(case_dir.join("model.onnx"))
        .args(["--shape", "ids=1..3x2..16", "-o"])
        .arg(case_dir.join("libm.a"))
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("accepted: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let header = std::fs::read_to_string(case_dir.join("m.h")).map_err(|e| format!("m.h: {e}"))?;
    for want in [
        "#define M_DIM0_MIN 1\n#define M_DIM0_MAX 3",
        "#define M_DIM1_MIN 2\n#define M_DIM1_MAX 16",
        "size_t m_workspace_size_max(void);",
    ] {
        if !header.contains(want) {
            return Err(format!("accepted: the header lacks {want}:\n{header}"));
        }
    }
    Ok(())
}

/// The fold budget: a Range of 2^20 int64 values from constants (8 MiB) is folded into the
/// library by default, and with `--fold-budget` below its size computed when the model runs,
/// the library staying small and the values the same (a 100-byte model once made a 671 MB one).
fn fold_budget() -> Result<(), String> {
    const N: i64 = 1 << 20;
    let dir = suite_dir().parent().unwrap().join("target/xcc-tests/onnx-fold-budget");
    let bytes = model(
        vec![node("range0", "Range", &["a", "b", "c"], &["y"])],
        vec![],
        vec![value("y", INT64, &[N])],
        vec![int64s("a", &[], &[0]), int64s("b", &[], &[N]), int64s("c", &[], &[1])],
    );
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("model.onnx"), &bytes).unwrap();
    let mut sizes = Vec::new();
    for (lib, flags) in [("folded", &[][..]), ("run", &["--fold-budget", "1000000"][..])] {
        let path = dir.join(format!("lib{lib}.a"));
        let out = Command::new(xcc_binary())
            .arg(dir.join("model.onnx"))
            .args(flags)
            .args(["--name", "m", "-o"])
            .arg(&path)
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("{lib}: {}", String::from_utf8_lossy(&out.stderr)));
        }
        sizes.push(std::fs::metadata(&path).map_err(|e| e.to_string())?.len());
    }
    if sizes[0] < 8 << 20 || sizes[1] > 1 << 20 {
        return Err(format!("the libraries are {} bytes folded and {} computed at run time", sizes[0], sizes[1]));
    }
    let harness = dir.join("harness.c");
    let program = format!(
        "#include \"m.h\"\n#include <stdio.h>\n#include <stdlib.h>\n\
         int main(void) {{\n  int64_t *y = malloc(8 * {N});\n  if (m_run_alloc(y)) return 2;\n  \
         for (int64_t i = 0; i < {N}; i++) if (y[i] != i) {{ printf(\"y[%lld] = %lld\\n\", (long long)i, (long long)y[i]); return 1; }}\n  \
         puts(\"ok\");\n  return 0;\n}}\n"
    );
    std::fs::write(&harness, program).unwrap();
    let prog = dir.join("prog");
    xcc_test_suite::link_c("cc", &harness, &[&dir.join("librun.a")], &prog)?;
    let out = Command::new(&prog).output().map_err(|e| e.to_string())?;
    if !out.status.success() || String::from_utf8_lossy(&out.stdout).trim() != "ok" {
        return Err(format!("the run-time Range: {}", String::from_utf8_lossy(&out.stdout)));
    }
    Ok(())
}

/// One test per malformed model (`onnx-errors/NAME`), and the symbolic-shape case.
fn main() -> std::process::ExitCode {
    let dir: PathBuf = suite_dir().parent().unwrap().join("target/xcc-tests/onnx-errors");
    let mut trials: Vec<Trial> = bad_models(&dir)
        .into_iter()
        .map(|(name, bytes, expected)| {
            let dir = dir.clone();
            Trial::test(format!("onnx-errors/{name}"), move || Ok(expect_failure(&dir, name, &bytes, &expected)?))
        })
        .collect();
    trials.push(Trial::test("onnx-errors/symbolic-dims-stay-symbolic-or-are-specialized", || {
        Ok(symbolic_dims_stay_symbolic_or_are_specialized()?)
    }));
    trials.push(Trial::test("onnx-errors/symbolic-dims-are-unified", || Ok(symbolic_dims_are_unified()?)));
    trials.push(Trial::test("onnx-errors/dim-ranges", || Ok(dim_ranges()?)));
    trials.push(Trial::test("onnx-errors/fold-budget", || Ok(fold_budget()?)));
    trials.push(Trial::test("onnx-errors/run-time-dims-the-operators-refuse", || {
        Ok(run_time_dims_the_operators_refuse()?)
    }));
    trials.push(Trial::test("onnx-errors/shapes-computed-from-run-time-dims", || {
        Ok(shapes_computed_from_run_time_dims()?)
    }));
    trials.push(Trial::test("onnx-errors/shape-flags-that-contradict-the-model", || {
        Ok(shape_flags_that_contradict_the_model()?)
    }));
    run_trials(trials)
}

/// `If(c) -> y` whose then branch runs `then_nodes` and gives `then_out`, and whose else branch
/// gives `else_out` (names from around it).
fn if_node(name: &str, then_out: &str, else_out: &str, then_nodes: Vec<NodeProto>) -> NodeProto {
    let branch = |nodes: Vec<NodeProto>, out: &str| xcc_frontend_onnx::proto::GraphProto {
        node: nodes,
        output: vec![ValueInfoProto { name: Some(out.into()), ..Default::default() }],
        ..Default::default()
    };
    let n = with_graph(node(name, "If", &["c"], &["y"]), "then_branch", branch(then_nodes, then_out));
    with_graph(n, "else_branch", branch(vec![], else_out))
}

/// `Loop(m, "", a0) -> y` whose body runs `nodes` over (i, c, a) and gives (c_out, a_out), with
/// a_out of dims `a_out`.
fn loop_node(nodes: Vec<NodeProto>, a_out: &[i64]) -> NodeProto {
    let body = xcc_frontend_onnx::proto::GraphProto {
        node: nodes,
        input: vec![value("i", INT64, &[]), value("c", BOOL, &[]), value("a", FLOAT, &[2])],
        output: vec![value("c_out", BOOL, &[]), value("a_out", FLOAT, a_out)],
        ..Default::default()
    };
    with_graph(node("lp", "Loop", &["m", "", "a0"], &["y"]), "body", body)
}
