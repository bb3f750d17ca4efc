"""Operator cases checked against ONNX Runtime, beyond the ONNX node tests: each a one-node model
with seeded random inputs, written in the node tests' layout (DIR/NAME/model.onnx and
DIR/NAME/test_data_set_0/{input,output}_K.pb), its outputs computed here by ONNX Runtime, or by
onnx's reference implementation for the modes ONNX Runtime lacks (batch-first recurrences).

usage: gen_cases.py DIR
Prints how many cases it wrote; a case ONNX Runtime refuses is left out, and named.
"""

import os
import platform
import shutil
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator


def recurrent(kind, name, rng, seq=5, batch=3, inp=4, hidden=6, direction="forward", layout=0,
              lens=None, peepholes=False, initial=False, outputs=("Y", "Y_h"), bias=True, **attrs):
    """One RNN, GRU or LSTM node; `lens` gives sequence_lens."""
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    dirs = 2 if direction == "bidirectional" else 1
    x_shape = [batch, seq, inp] if layout else [seq, batch, inp]
    feeds = {
        "X": rng.standard_normal(x_shape).astype(np.float32),
        "W": (rng.standard_normal([dirs, gates * hidden, inp]) * 0.5).astype(np.float32),
        "R": (rng.standard_normal([dirs, gates * hidden, hidden]) * 0.5).astype(np.float32),
    }
    if bias:
        feeds["B"] = (rng.standard_normal([dirs, 2 * gates * hidden]) * 0.3).astype(np.float32)
    names = ["X", "W", "R", "B" if bias else ""]
    if lens is not None:
        feeds["sequence_lens"] = np.array(lens, dtype=np.int32)
    names.append("sequence_lens" if lens is not None else "")
    state = [batch, dirs, hidden] if layout else [dirs, batch, hidden]
    if initial:
        feeds["initial_h"] = rng.standard_normal(state).astype(np.float32)
    names.append("initial_h" if initial else "")
    if kind == "LSTM":
        if initial:
            feeds["initial_c"] = rng.standard_normal(state).astype(np.float32)
        names.append("initial_c" if initial else "")
        if peepholes:
            feeds["P"] = (rng.standard_normal([dirs, 3 * hidden]) * 0.3).astype(np.float32)
        names.append("P" if peepholes else "")
    while names and names[-1] == "":
        names.pop()
    all_outputs = ["Y", "Y_h", "Y_c"] if kind == "LSTM" else ["Y", "Y_h"]
    node_outputs = [o if o in outputs else "" for o in all_outputs]
    while node_outputs[-1] == "":
        node_outputs.pop()
    node = helper.make_node(kind, names, node_outputs, hidden_size=hidden, direction=direction, **attrs)
    if layout:
        node.attribute.append(helper.make_attribute("layout", 1))
    return name, node, feeds, [o for o in node_outputs if o]


def cases(rng):
    yield recurrent("LSTM", "lstm_forward", rng)
    yield recurrent("LSTM", "lstm_reverse_initial_state", rng, direction="reverse", initial=True, outputs=("Y", "Y_h", "Y_c"))
    yield recurrent("LSTM", "lstm_bidirectional_lengths", rng, direction="bidirectional", lens=[5, 2, 4],
                    outputs=("Y", "Y_h", "Y_c"))
    yield recurrent("LSTM", "lstm_batch_first", rng, layout=1, direction="bidirectional", initial=True)
    yield recurrent("LSTM", "lstm_peepholes_clip", rng, peepholes=True, clip=0.7, outputs=("Y", "Y_c"))
    yield recurrent("LSTM", "lstm_input_forget", rng, input_forget=1, outputs=("Y_h",))
    yield recurrent("LSTM", "lstm_activations", rng, activations=["HardSigmoid", "Tanh", "Relu"])
    yield recurrent("GRU", "gru_forward", rng)
    yield recurrent("GRU", "gru_linear_before_reset", rng, linear_before_reset=1, direction="bidirectional")
    yield recurrent("GRU", "gru_reverse_lengths", rng, direction="reverse", lens=[3, 5, 1], initial=True)
    # onnx's reference implementation (the oracle for batch-first) ignores sequence_lens.
    yield recurrent("GRU", "gru_batch_first", rng, layout=1, linear_before_reset=1)
    yield recurrent("GRU", "gru_clip", rng, clip=0.5, outputs=("Y_h",))
    yield recurrent("RNN", "rnn_relu_bidirectional", rng, direction="bidirectional", activations=["Relu", "Relu"])
    yield recurrent("RNN", "rnn_lengths_initial", rng, lens=[2, 5, 3], initial=True)
    yield recurrent("RNN", "rnn_batch_first_reverse", rng, layout=1, direction="reverse")
    # Weights as a model's constants, which xcc projects every step's input with one GEMM and
    # multiplies each step's state with R^T in another: each kind, direction, layout, lengths,
    # initial states, peepholes, clip, no bias, and GRU with and without linear_before_reset.
    constant = ("W", "R", "B")
    yield *recurrent("LSTM", "lstm_constant_weights", rng, seq=7, batch=2, inp=5, hidden=16), constant
    yield *recurrent("LSTM", "lstm_constant_bidirectional_lengths", rng, direction="bidirectional",
                     lens=[5, 2, 4], initial=True, peepholes=True, clip=0.9, outputs=("Y", "Y_h", "Y_c")), constant
    yield *recurrent("LSTM", "lstm_constant_batch_first", rng, layout=1, direction="reverse", batch=1,
                     hidden=9), constant
    yield *recurrent("LSTM", "lstm_constant_no_bias", rng, bias=False, outputs=("Y_h",)), ("W", "R")
    yield *recurrent("GRU", "gru_constant_weights", rng, lens=[3, 5, 1], initial=True, hidden=8), constant
    yield *recurrent("GRU", "gru_constant_linear_before_reset", rng, linear_before_reset=1,
                     direction="bidirectional", clip=0.6), constant
    yield *recurrent("GRU", "gru_constant_batch_first", rng, layout=1, direction="reverse", initial=True), constant
    yield *recurrent("RNN", "rnn_constant_bidirectional_lengths", rng, direction="bidirectional", lens=[2, 5, 3],
                     initial=True), constant
    # A hidden size that is a multiple of 16: the state update steps through 16 units at once
    # (vectors), with weights as inputs and as constants, every variant above. Their own
    # generator, so that the cases after them keep their inputs.
    r16 = np.random.default_rng(1207)
    yield recurrent("LSTM", "lstm_units16_bidirectional_lengths", r16, direction="bidirectional", lens=[5, 2, 4],
                    hidden=32, initial=True, peepholes=True, clip=0.8, outputs=("Y", "Y_h", "Y_c"))
    yield recurrent("LSTM", "lstm_units16_activations", r16, hidden=16, input_forget=1,
                    activations=["HardSigmoid", "Tanh", "Relu"])
    yield *recurrent("LSTM", "lstm_units16_constant_batch_first", r16, layout=1, direction="reverse", batch=1,
                     hidden=16, outputs=("Y", "Y_h", "Y_c")), constant
    yield recurrent("GRU", "gru_units16_batch_first", r16, layout=1, hidden=16, initial=True)
    yield *recurrent("GRU", "gru_units16_constant_linear_before_reset", r16, linear_before_reset=1, hidden=16,
                     direction="bidirectional", clip=0.6, lens=[3, 5, 1]), constant
    yield *recurrent("GRU", "gru_units16_constant_reverse_lengths", r16, direction="reverse", lens=[3, 5, 1],
                     initial=True, hidden=32), constant
    yield *recurrent("RNN", "rnn_units16_constant_bidirectional_lengths", r16, direction="bidirectional",
                     lens=[2, 5, 3], initial=True, hidden=16, activations=["Tanh", "Softsign"]), constant


MS = "com.microsoft"

# A statically quantized model's float output (QDQ or QOperator) is within 2% of its largest
# magnitude of ONNX Runtime's (the harness reads `tolerance`: rtol atol). Both requantize every
# activation, and where a sum lands near a rounding boundary the two round it apart by one step
# (ONNX Runtime's requantization differs between its kernels and between CPUs: measured, on an
# AVX2 machine 10% of ResNet-18's QOperator logits move by 0.04 of about 15, none on an
# AVX-512 VNNI one), which moves the outputs downstream.
QDQ_TOLERANCE = 0.02

# ONNX Runtime's quantized contrib kernels requantize in fixed point or with their own float
# order; xcc dequantizes, computes in float and rounds half to even. Their integer results may
# differ by one step, which these cases allow (the harness reads `integer-tolerance`).
ROUNDS_ITS_OWN_WAY = {"QLinearAdd", "QLinearMul", "QLinearSigmoid", "QLinearSoftmax", "QLinearLeakyRelu", "QLinearGlobalAveragePool",
                      "QLinearConcat", "QGemm"}


def contrib(name, op, feeds, outputs=("Y",), inits=None, **attrs):
    """One com.microsoft node; `feeds` in input order (None for an absent input), `inits` the
    inputs that are initializers (constants in the model)."""
    names = [k if v is not None else "" for k, v in feeds.items()]
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node(op, names, list(outputs), domain=MS, **attrs)
    runtime = {k: v for k, v in feeds.items() if v is not None}
    return name, node, runtime, [o for o in outputs if o], inits or {}


def u8(rng, shape):
    return rng.integers(0, 256, shape).astype(np.uint8)


def i8(rng, shape):
    return rng.integers(-128, 128, shape).astype(np.int8)


def f32(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def scalar(v, dtype=np.float32):
    return np.array(v, dtype=dtype)


def contrib_cases(rng):
    x = f32(rng, [2, 3, 8])
    yield contrib("ms_gelu", "Gelu", {"X": x})
    yield contrib("ms_bias_gelu", "BiasGelu", {"A": f32(rng, [2, 3, 8]), "B": f32(rng, [8])})
    yield contrib("ms_fast_gelu_bias", "FastGelu", {"X": f32(rng, [2, 3, 8]), "bias": f32(rng, [8])})
    yield contrib("ms_fast_gelu", "FastGelu", {"X": f32(rng, [2, 3, 8])})
    yield contrib("ms_quick_gelu", "QuickGelu", {"X": f32(rng, [2, 3, 8])}, alpha=1.5)
    yield contrib("ms_fused_matmul_trans_b", "FusedMatMul", {"A": f32(rng, [2, 4, 5]), "B": f32(rng, [2, 6, 5])},
                  alpha=0.5, transB=1)
    yield contrib("ms_fused_matmul_trans_a", "FusedMatMul", {"A": f32(rng, [5, 4]), "B": f32(rng, [5, 6])}, transA=1)
    # Their own generator, so that the cases after them keep their inputs.
    r = np.random.default_rng(77)
    yield contrib("ms_fused_matmul_trans_batch_a", "FusedMatMul",
                  {"A": f32(r, [2, 3, 4, 5]), "B": f32(r, [3, 4, 5, 6])}, transBatchA=1)
    yield contrib("ms_fused_matmul_trans_batch_b_trans_b", "FusedMatMul",
                  {"A": f32(r, [3, 4, 2, 5]), "B": f32(r, [6, 3, 4, 5])}, transBatchB=1, transB=1, alpha=0.7)
    yield contrib("ms_fused_gemm_leaky_relu", "FusedGemm",
                  {"A": f32(r, [3, 5]), "B": f32(r, [4, 5]), "C": f32(r, [4])},
                  transB=1, alpha=0.5, beta=2.0, activation="LeakyRelu", activation_alpha=0.3)
    yield contrib("ms_fused_gemm_relu", "FusedGemm", {"A": f32(r, [5, 3]), "B": f32(r, [5, 4])},
                  transA=1, activation="Relu")
    angles = np.arange(12)[:, None] / (10000 ** (np.arange(4) / 4))[None, :]
    cos4, sin4 = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)
    yield contrib("ms_rotary_embedding", "RotaryEmbedding",
                  {"input": f32(r, [2, 5, 16]), "position_ids": r.integers(0, 12, [2, 5]).astype(np.int64),
                   "cos_cache": cos4, "sin_cache": sin4}, num_heads=2)
    yield contrib("ms_rotary_embedding_start_position_interleaved", "RotaryEmbedding",
                  {"input": f32(r, [2, 5, 16]), "position_ids": np.array([3], dtype=np.int64),
                   "cos_cache": cos4, "sin_cache": sin4}, interleaved=1)
    yield contrib("ms_rotary_embedding_4d_partial", "RotaryEmbedding",
                  {"input": f32(r, [2, 3, 5, 16]), "position_ids": r.integers(0, 12, [2, 5]).astype(np.int64),
                   "cos_cache": cos4, "sin_cache": sin4}, num_heads=3, rotary_embedding_dim=8)
    yield contrib("ms_fused_conv_relu", "FusedConv",
                  {"X": f32(rng, [1, 3, 8, 8]), "W": f32(rng, [4, 3, 3, 3]), "B": f32(rng, [4])},
                  activation="Relu", pads=[1, 1, 1, 1])
    yield contrib("ms_fused_conv_sum_leaky", "FusedConv",
                  {"X": f32(rng, [1, 3, 8, 8]), "W": f32(rng, [4, 3, 3, 3]), "B": f32(rng, [4]),
                   "Z": f32(rng, [1, 4, 6, 6])}, activation="LeakyRelu", activation_params=[0.2])
    yield contrib("ms_skip_layer_norm", "SkipLayerNormalization",
                  {"input": f32(rng, [2, 3, 8]), "skip": f32(rng, [2, 3, 8]), "gamma": f32(rng, [8]),
                   "beta": f32(rng, [8]), "bias": f32(rng, [8])}, outputs=("Y", "", "", "sum"), epsilon=1e-5)
    # ONNX Runtime registers SimplifiedLayerNormalization in the default domain.
    name, node, feeds, outputs, inits = contrib("simplified_layer_norm", "SimplifiedLayerNormalization",
                                                {"X": f32(rng, [2, 3, 8]), "scale": f32(rng, [8])}, epsilon=1e-5)
    node.domain = ""
    yield name, node, feeds, outputs, inits
    yield contrib("ms_skip_simplified_layer_norm", "SkipSimplifiedLayerNormalization",
                  {"input": f32(rng, [2, 3, 8]), "skip": f32(rng, [2, 3, 8]), "gamma": f32(rng, [8]),
                   "bias": f32(rng, [8])}, epsilon=1e-5)
    yield contrib("ms_multi_head_attention", "MultiHeadAttention",
                  {"query": f32(rng, [2, 4, 16]), "key": f32(rng, [2, 6, 16]), "value": f32(rng, [2, 6, 16])},
                  num_heads=2)
    yield contrib("ms_multi_head_attention_bias_mask", "MultiHeadAttention",
                  {"query": f32(rng, [2, 4, 16]), "key": f32(rng, [2, 6, 16]), "value": f32(rng, [2, 6, 16]),
                   "bias": f32(rng, [48]), "key_padding_mask": np.array([[1, 1, 1, 1, 0, 0], [1] * 6], np.int32),
                   "attention_bias": f32(rng, [1, 2, 4, 6])}, num_heads=2)
    yield contrib("ms_multi_head_attention_causal", "MultiHeadAttention",
                  {"query": f32(rng, [1, 5, 8]), "key": f32(rng, [1, 5, 8]), "value": f32(rng, [1, 5, 8])},
                  num_heads=2, unidirectional=1, scale=0.3)
    q = lambda shape: (u8(rng, shape), scalar(0.05), scalar(128, np.uint8))  # noqa: E731
    (a, a_s, a_z), (b, b_s, b_z) = q([2, 3, 4]), q([2, 3, 4])
    y_s, y_z = scalar(0.08), scalar(120, np.uint8)
    for op in ["QLinearAdd", "QLinearMul"]:
        yield contrib(f"ms_{op.lower()}", op, {"A": a, "A_scale": a_s, "A_zero_point": a_z, "B": b, "B_scale": b_s,
                                               "B_zero_point": b_z, "C_scale": y_s, "C_zero_point": y_z})
    yield contrib("ms_qlinear_sigmoid", "QLinearSigmoid",
                  {"X": a, "X_scale": a_s, "X_zero_point": a_z, "Y_scale": scalar(1 / 256), "Y_zero_point": scalar(0, np.uint8)})
    yield contrib("ms_qlinear_leaky_relu", "QLinearLeakyRelu",
                  {"X": a, "X_scale": a_s, "X_zero_point": a_z, "Y_scale": y_s, "Y_zero_point": y_z}, alpha=0.1)
    p = u8(rng, [1, 3, 4, 4])
    yield contrib("ms_qlinear_global_average_pool", "QLinearGlobalAveragePool",
                  {"X": p, "x_scale": a_s, "x_zero_point": a_z, "y_scale": y_s, "y_zero_point": y_z})
    yield contrib("ms_qlinear_concat", "QLinearConcat",
                  {"Y_scale": y_s, "Y_zero_point": y_z, "A": a, "A_scale": a_s, "A_zero_point": a_z,
                   "B": b, "B_scale": scalar(0.07), "B_zero_point": scalar(100, np.uint8)}, axis=1)
    # 7-bit weights: on a CPU without AVX-512 VNNI ONNX Runtime multiplies uint8 by int8 with
    # vpmaddubsw, whose pairs of products saturate at 16 bits; halved, they stay exact.
    ga, gb = u8(rng, [3, 5]), i8(rng, [5, 4]) // 2
    gemm = {"A": ga, "a_scale": scalar(0.02), "a_zero_point": scalar(130, np.uint8), "B": gb,
            "b_scale": scalar(0.03), "b_zero_point": scalar(0, np.int8), "C": rng.integers(-500, 500, [4]).astype(np.int32)}
    yield contrib("ms_qgemm_float", "QGemm", dict(gemm))
    yield contrib("ms_qgemm_quantized", "QGemm", dict(gemm, y_scale=scalar(0.05), y_zero_point=scalar(128, np.uint8)))
    yield contrib("ms_matmul_integer_to_float", "MatMulIntegerToFloat",
                  {"A": u8(rng, [2, 3, 5]), "B": i8(rng, [5, 4]) // 2, "a_scale": scalar(0.02), "b_scale": f32(rng, [4], 0.01),
                   "a_zero_point": scalar(120, np.uint8), "b_zero_point": None, "bias": f32(rng, [4])})
    yield contrib("ms_dynamic_quantize_matmul", "DynamicQuantizeMatMul",
                  {"A": f32(rng, [3, 5]), "B": i8(rng, [5, 4]), "b_scale": scalar(0.02), "b_zero_point": None,
                   "bias": f32(rng, [4])})
    k, n, block = 32, 6, 16
    nbits = {"A": f32(rng, [2, k]), "B": u8(rng, [n, k // block, block // 2]), "scales": f32(rng, [n * (k // block)], 0.1)}
    yield contrib("ms_matmul_nbits", "MatMulNBits", nbits, inits=("B", "scales"), K=k, N=n, bits=4, block_size=block)
    zp = dict(nbits, zero_points=u8(rng, [n * 1]))
    yield contrib("ms_matmul_nbits_zero_points", "MatMulNBits", zp, inits=("B", "scales", "zero_points"),
                  K=k, N=n, bits=4, block_size=block)
    # com.microsoft Attention (packed QKV), with a generator of its own so the cases above keep
    # their inputs: key lengths as the mask, a 3-D mask with unequal V size and a bias, a past.
    r = np.random.default_rng(91)
    yield contrib("ms_attention_key_lengths", "Attention",
                  {"input": f32(r, [2, 4, 16]), "weights": f32(r, [16, 48], 0.25), "bias": f32(r, [48], 0.1),
                   "mask_index": np.array([4, 2], np.int32)}, num_heads=2)
    mask3 = np.ones((2, 3, 3), np.int32)
    mask3[0, :, 2] = 0
    mask3[1, 1, 0] = 0
    yield contrib("ms_attention_mask_3d_sizes", "Attention",
                  {"input": f32(r, [2, 3, 8]), "weights": f32(r, [8, 28], 0.3), "bias": None, "mask_index": mask3,
                   "past": None, "attention_bias": f32(r, [1, 2, 3, 3])},
                  num_heads=2, qkv_hidden_sizes=[8, 8, 12], scale=0.4)
    yield contrib("ms_attention_past_causal", "Attention",
                  {"input": f32(r, [1, 2, 8]), "weights": f32(r, [8, 24], 0.3), "bias": f32(r, [24], 0.1),
                   "mask_index": np.array([[1, 0, 1, 1, 1]], np.int32), "past": f32(r, [2, 1, 2, 3, 4])},
                  outputs=("Y", "present"), num_heads=2, unidirectional=1)


def nbits_cases(rng):
    """MatMulNBits with 2-, 4- and 8-bit weights as the packed kernel takes them (blocks of 32 to 256), over
    ragged sizes: K short of a whole block, N of 1 and of a partial group of columns, one row and
    rows past a chunk, 3-D A, zero points and none, a bias, and `accuracy_level` 0 (float
    arithmetic) and 4 (A quantized to int8 per block, as ONNX Runtime computes it)."""
    configs = [
        # (name, A shape, N, block, zero points, bias, accuracy_level)
        ("decode", [1, 256], 64, 32, False, False, 0),
        ("ragged_k", [3, 100], 13, 32, True, False, 0),
        ("one_column", [5, 96], 1, 32, True, True, 0),
        ("batched", [2, 5, 192], 7, 64, True, False, 0),
        ("rows_past_chunk", [37, 128], 10, 128, False, True, 0),
        ("block_256", [2, 300], 6, 256, True, False, 0),
        # A prompt in f32 through the panels: rows past a chunk of 128, K over one panel's slice
        # (1,024 values of 8 columns) and ragged, more groups of 8 columns than stripes (64) and
        # a partial group; `accuracy_level` 1 computes as 0 does.
        ("rows_panels", [130, 1100], 530, 32, True, True, 0),
        ("rows_panels_block_128", [2, 6, 2304], 20, 128, False, False, 1),
        ("int8_decode", [1, 512], 48, 32, False, False, 4),
        ("int8_ragged_k", [3, 100], 13, 32, True, True, 4),
        ("int8_batched", [2, 17, 160], 9, 64, True, False, 4),
        ("int8_block_128", [4, 256], 5, 128, False, False, 4),
        # A prompt's rows through the turned weights: whole groups of 8 columns, rows past one
        # chunk of 16, K ragged; blocks of several runs.
        ("int8_rows_past_chunk", [37, 200], 24, 32, True, False, 4),
        ("int8_rows_block_128", [5, 384], 16, 128, False, True, 4),
        # Blocks of 16, each padded to a run of 32 (A's blocks too): float and int8 products,
        # K ragged, a batch, rows past a chunk, one row.
        ("block_16_ragged_k", [3, 100], 13, 16, True, True, 0),
        ("block_16_batched", [2, 5, 96], 9, 16, False, False, 1),
        ("block_16_rows_panels", [130, 272], 20, 16, True, False, 0),
        ("int8_block_16_decode", [1, 256], 24, 16, True, False, 4),
        ("int8_block_16_ragged_k", [19, 200], 16, 16, False, True, 4),
    ]
    # 8-bit weights: bytes as they are (with zero points, one byte each).
    configs8 = [
        ("bits8_decode", [1, 256], 24, 32, False, False, 0),
        ("bits8_ragged_k", [3, 100], 13, 32, True, True, 0),
        ("bits8_rows_panels", [66, 1060], 40, 32, True, False, 0),
        ("bits8_int8_decode", [1, 512], 20, 32, True, False, 4),
        ("bits8_int8_batched", [2, 9, 192], 11, 64, False, True, 4),
        ("bits8_int8_rows", [19, 128], 16, 32, True, False, 4),
        ("bits8_block_16", [3, 100], 13, 16, True, False, 0),
        ("bits8_int8_block_16", [5, 96], 10, 16, True, True, 4),
    ]
    for name, a_shape, n, block, zero_points, bias, level in configs8:
        k = a_shape[-1]
        blocks = -(-k // block)
        feeds = {"A": f32(rng, a_shape), "B": u8(rng, [n, blocks, block]),
                 "scales": (rng.random(n * blocks) * 0.004 + 0.001).astype(np.float32),
                 "zero_points": u8(rng, [n * blocks]) if zero_points else None, "g_idx": None,
                 "bias": f32(rng, [n]) if bias else None}
        inits = [x for x in ("B", "scales", "zero_points", "bias") if feeds[x] is not None]
        yield contrib(f"ms_matmul_nbits_packed_{name}", "MatMulNBits", feeds, inits=inits, K=k, N=n, bits=8,
                      block_size=block, accuracy_level=level)
    # 2-bit weights (four per byte, zero points too): a nibble each in the 4-bit kernel's layout,
    # blocks of 16 padded to a run.
    r = np.random.default_rng(52)  # their own, so the cases above and below keep their inputs
    configs2 = [
        ("bits2_decode", [1, 256], 24, 32, False, False, 0),
        ("bits2_rows", [20, 200], 16, 64, True, True, 0),
        ("bits2_int8_decode", [1, 256], 24, 32, True, False, 4),
        ("bits2_int8_rows", [19, 128], 16, 32, False, False, 4),
        ("bits2_block_16", [3, 64], 10, 16, True, False, 0),
    ]
    for name, a_shape, n, block, zero_points, bias, level in configs2:
        k = a_shape[-1]
        blocks = -(-k // block)
        feeds = {"A": f32(r, a_shape), "B": u8(r, [n, blocks, block // 4]),
                 "scales": (r.random(n * blocks) * 0.05 + 0.01).astype(np.float32),
                 "zero_points": u8(r, [n * -(-blocks // 4)]) if zero_points else None, "g_idx": None,
                 "bias": f32(r, [n]) if bias else None}
        inits = [x for x in ("B", "scales", "zero_points", "bias") if feeds[x] is not None]
        yield contrib(f"ms_matmul_nbits_packed_{name}", "MatMulNBits", feeds, inits=inits, K=k, N=n, bits=2,
                      block_size=block, accuracy_level=level)
    # g_idx, each K index's block: as most exporters write it (`i // block`, packed as without
    # it), and reordered as GPTQ's act-order writes it (dequantized at compile time); ONNX Runtime
    # computes in f32 with g_idx, at every accuracy_level. No zero points: ONNX Runtime 1.32's CPU
    # kernel leaves them out where g_idx is given, which the operator's definition does not.
    # Act-order is packed with K sorted by block (A's columns gathered to match), also where K is
    # ragged; groups of other sizes (uneven) are dequantized.
    k, n, block = 128, 12, 32
    act_order = r.permutation(np.arange(k) // block).astype(np.int32)
    ragged_order = r.permutation(np.arange(100) // block).astype(np.int32)
    uneven = r.integers(0, k // block, k).astype(np.int32)
    for name, g_idx, level in [("g_idx_in_order", np.arange(k, dtype=np.int32) // block, 4),
                               ("g_idx_act_order", act_order, 0), ("g_idx_act_order_level_4", act_order, 4),
                               ("g_idx_act_order_ragged", ragged_order, 0), ("g_idx_uneven", uneven, 0)]:
        k = len(g_idx)
        blocks = -(-k // block)
        feeds = {"A": f32(r, [3, k]), "B": u8(r, [n, blocks, block // 2]),
                 "scales": (r.random(n * blocks) * 0.05 + 0.01).astype(np.float32),
                 "zero_points": None, "g_idx": g_idx, "bias": None}
        yield contrib(f"ms_matmul_nbits_{name}", "MatMulNBits", feeds, inits=["B", "scales", "g_idx"],
                      K=k, N=n, bits=4, block_size=block, accuracy_level=level)
    for name, a_shape, n, block, zero_points, bias, level in configs:
        k = a_shape[-1]
        blocks = -(-k // block)
        feeds = {"A": f32(rng, a_shape), "B": u8(rng, [n, blocks, block // 2]),
                 "scales": (rng.random(n * blocks) * 0.05 + 0.01).astype(np.float32)}
        inits = ["B", "scales"]
        feeds["zero_points"] = u8(rng, [n * -(-blocks // 2)]) if zero_points else None
        if zero_points:
            inits.append("zero_points")
        feeds["g_idx"] = None
        feeds["bias"] = f32(rng, [n]) if bias else None
        if bias:
            inits.append("bias")
        yield contrib(f"ms_matmul_nbits_packed_{name}", "MatMulNBits", feeds, inits=inits, K=k, N=n, bits=4,
                      block_size=block, accuracy_level=level)


def attention_cases(rng):
    """The default domain's Attention (opset 23) in the form one fused kernel computes (f32, no
    soft cap): grouped heads over a past of 37 keys (a key count past several blocks of 8, not a
    multiple of 8), a bool mask with one row masked everywhere (its output is zeros), causal
    3-D prompts of 20 queries, and a float mask broadcast over heads."""
    b, hq, hkv, d = 2, 8, 2, 16
    past = {"past_key": f32(rng, [b, hkv, 37, d]), "past_value": f32(rng, [b, hkv, 37, 24])}
    q, k, v = f32(rng, [b, hq, 1, d]), f32(rng, [b, hkv, 1, d]), f32(rng, [b, hkv, 1, 24])
    node = helper.make_node("Attention", ["Q", "K", "V", "", "past_key", "past_value"], ["Y", "present_key", "present_value"])
    yield "attention_fused_gqa_past", node, dict(Q=q, K=k, V=v, **past), ["Y", "present_key", "present_value"], ()
    mask = rng.random([b, 1, 3, 38]) > 0.3
    mask[1, 0, 2, :] = False
    q3 = f32(rng, [b, hq, 3, d])
    node = helper.make_node("Attention", ["Q", "K", "V", "attn_mask", "past_key", "past_value"], ["Y"])
    yield ("attention_fused_bool_mask_masked_row", node,
           dict(Q=q3, K=k, V=v, attn_mask=mask, **past), ["Y"], ())
    node = helper.make_node("Attention", ["Q", "K", "V"], ["Y"], is_causal=1, q_num_heads=4, kv_num_heads=2, scale=0.3)
    yield ("attention_fused_causal_3d", node,
           dict(Q=f32(rng, [2, 20, 4 * 8]), K=f32(rng, [2, 20, 2 * 8]), V=f32(rng, [2, 20, 2 * 16])), ["Y"], ())
    node = helper.make_node("Attention", ["Q", "K", "V", "attn_mask"], ["Y"])
    yield ("attention_fused_float_mask", node,
           dict(Q=f32(rng, [1, 4, 5, 8]), K=f32(rng, [1, 4, 11, 8]), V=f32(rng, [1, 4, 11, 8]),
                attn_mask=f32(rng, [5, 11])), ["Y"], ())
    # A left-padded batch under a causal mask: row 0's first 19 keys masked (two whole blocks of 8
    # that the kernel skips before any key counts, then a partial one), every row's keys after
    # its own masked (whole blocks skipped after the running softmax has begun).
    causal = np.tril(np.ones([24, 24], dtype=bool))
    padded = np.broadcast_to(causal, [2, 1, 24, 24]).copy()
    padded[0, :, :, :19] = False
    node = helper.make_node("Attention", ["Q", "K", "V", "attn_mask"], ["Y"])
    yield ("attention_fused_left_padded_causal", node,
           dict(Q=f32(rng, [2, 2, 24, 8]), K=f32(rng, [2, 2, 24, 8]), V=f32(rng, [2, 2, 24, 8]),
                attn_mask=padded), ["Y"], ())


def control_cases(rng):
    """If, Loop and Scan with bodies that read outer-scope values: unrolled by xcc where the counts
    are constants, a loop at run time where the count or condition is an input, or the count is
    past the unrolling limit."""
    f = TensorProto.FLOAT
    x = f32(rng, [3, 4])
    w = f32(rng, [4])
    # If on a run-time condition (a graph input): only the taken branch runs.
    then_b = helper.make_graph([helper.make_node("Mul", ["x", "w"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", f, [3, 4])])
    else_b = helper.make_graph([helper.make_node("Sub", ["x", "w"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", f, [3, 4])])
    for taken in [True, False]:
        node = helper.make_node("If", ["c"], ["y"], then_branch=then_b, else_branch=else_b)
        yield f"if_run_time_{str(taken).lower()}", node, {"c": np.array(taken), "x": x, "w": w}, ["y"], {}
    # Loop: a fixed count (an initializer), a carried sum, a scan output, an outer value read.
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["i_f"], to=f),
         helper.make_node("Mul", ["i_f", "w"], ["step"]),
         helper.make_node("Add", ["acc", "step"], ["acc_out"]),
         helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Relu", ["acc_out"], ["seen"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc", f, [4])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), helper.make_tensor_value_info("acc_out", f, [4]),
         helper.make_tensor_value_info("seen", f, [4])])
    node = helper.make_node("Loop", ["trips", "", "acc0"], ["acc", "seen_all"], body=body)
    yield "loop_fixed_count", node, {"trips": np.array(5, np.int64), "acc0": f32(rng, [4]), "w": w}, ["acc", "seen_all"], \
        ("trips",)
    # The same loop with its trip count read at run time: an scf.for over the count.
    yield "loop_run_time_count", node, {"trips": np.array(7, np.int64), "acc0": f32(rng, [4]), "w": w}, \
        ["acc", "seen_all"], ()
    # A run-time condition given as an input (false: no iteration, the scan outputs empty).
    node = helper.make_node("Loop", ["trips", "go", "acc0"], ["acc", "seen_all"], body=body)
    for go in [True, False]:
        feeds = {"trips": np.array(4, np.int64), "go": np.array(go), "acc0": f32(rng, [4]), "w": w}
        yield f"loop_run_time_condition_{str(go).lower()}", node, feeds, ["acc", "seen_all"], ()
    # A loop that stops where its body's condition turns false (the sum passes a limit), with
    # scan outputs as long as the run finds; and one whose condition input is false.
    until = helper.make_graph(
        [helper.make_node("Add", ["acc", "w"], ["acc_out"]),
         helper.make_node("ReduceSum", ["acc_out"], ["total"], keepdims=0),
         helper.make_node("Less", ["total", "limit"], ["cond_out"]),
         helper.make_node("Mul", ["acc_out", "acc_out"], ["squares"])],
        "until",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc", f, [4])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), helper.make_tensor_value_info("acc_out", f, [4]),
         helper.make_tensor_value_info("squares", f, [4])])
    node = helper.make_node("Loop", ["trips", "", "acc0"], ["acc", "squares_all"], body=until)
    steps = np.abs(w) + 0.25
    feeds = {"trips": np.array(50, np.int64), "acc0": np.zeros(4, np.float32), "w": steps,
             "limit": np.array(9.5 * steps.sum(), np.float32)}
    yield "loop_until_condition", node, feeds, ["acc", "squares_all"], ()
    feeds = dict(feeds, trips=np.array(6, np.int64))
    yield "loop_until_condition_or_count", node, feeds, ["acc", "squares_all"], ()
    # A while loop as torch exports one: the largest trip count, no scan output.
    until_only = helper.make_graph(list(until.node)[:3], "until_only", list(until.input), list(until.output)[:2])
    node = helper.make_node("Loop", ["trips", "", "acc0"], ["acc"], body=until_only)
    feeds = dict(feeds, trips=np.array(np.iinfo(np.int64).max, np.int64))
    yield "loop_while_condition", node, feeds, ["acc"], ()
    # Two carried values swapped each iteration (p, q) -> (q, p + q), past the unrolling limit.
    fib = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]), helper.make_node("Identity", ["q"], ["p_out"]),
         helper.make_node("Add", ["p", "q"], ["q_out"])],
        "fib",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("p", TensorProto.INT64, [3]), helper.make_tensor_value_info("q", TensorProto.INT64, [3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("p_out", TensorProto.INT64, [3]),
         helper.make_tensor_value_info("q_out", TensorProto.INT64, [3])])
    node = helper.make_node("Loop", ["trips", "", "p0", "q0"], ["p", "q"], body=fib)
    feeds = {"trips": np.array(5000, np.int64), "p0": np.array([0, 1, 2], np.int64), "q0": np.array([1, 1, 3], np.int64)}
    yield "loop_swap_past_unrolling", node, feeds, ["p", "q"], ("trips",)
    # A Loop of 600 inside a Loop of 600, both counts constants: unrolled, 360,000 copies of the
    # inner body, past xcc's budget, so the outer one runs as a loop around the inner's copies.
    inner = helper.make_graph(
        [helper.make_node("Identity", ["ic"], ["ic_out"]), helper.make_node("Add", ["ia", "w"], ["ia_out"])],
        "inner",
        [helper.make_tensor_value_info("ii", TensorProto.INT64, []), helper.make_tensor_value_info("ic", TensorProto.BOOL, []),
         helper.make_tensor_value_info("ia", f, [4])],
        [helper.make_tensor_value_info("ic_out", TensorProto.BOOL, []), helper.make_tensor_value_info("ia_out", f, [4])])
    outer = helper.make_graph(
        [helper.make_node("Constant", [], ["inner_trips"], value=helper.make_tensor("six_hundred", TensorProto.INT64, [], [600])),
         helper.make_node("Identity", ["oc"], ["oc_out"]),
         helper.make_node("Loop", ["inner_trips", "", "oa"], ["oa_out"], body=inner)],
        "outer",
        [helper.make_tensor_value_info("oi", TensorProto.INT64, []), helper.make_tensor_value_info("oc", TensorProto.BOOL, []),
         helper.make_tensor_value_info("oa", f, [4])],
        [helper.make_tensor_value_info("oc_out", TensorProto.BOOL, []), helper.make_tensor_value_info("oa_out", f, [4])])
    node = helper.make_node("Loop", ["trips", "", "acc0"], ["acc"], body=outer)
    feeds = {"trips": np.array(600, np.int64), "acc0": f32(rng, [4]), "w": np.full(4, 0.5, np.float32)}
    yield "loop_nested_past_unrolling_budget", node, feeds, ["acc"], ("trips",)
    # 21 Loops of 2 iterations, each inside the one before (2^21 innermost bodies): the model's
    # unrolling budget is shared by every level, so the outer levels run as loops at run time.
    # Fixed inputs (no draws), so that the cases after it keep theirs.
    deepest = None
    for d in range(21):
        nodes = [helper.make_node("Identity", [f"nc{d}"], [f"nc_out{d}"])]
        carried = f"na{d}"
        if deepest is not None:
            nodes.append(deepest[0])
            carried = deepest[1]
        nodes.append(helper.make_node("Add", [carried, "w"], [f"na_out{d}"]))
        level = helper.make_graph(
            nodes, f"level{d}",
            [helper.make_tensor_value_info(f"ni{d}", TensorProto.INT64, []),
             helper.make_tensor_value_info(f"nc{d}", TensorProto.BOOL, []),
             helper.make_tensor_value_info(f"na{d}", f, [4])],
            [helper.make_tensor_value_info(f"nc_out{d}", TensorProto.BOOL, []),
             helper.make_tensor_value_info(f"na_out{d}", f, [4])])
        source = "acc0" if d == 20 else f"na{d + 1}"
        result = "acc" if d == 20 else f"nested{d}"
        deepest = (helper.make_node("Loop", ["two", "", source], [result], body=level), result)
    feeds = {"two": np.array(2, np.int64), "acc0": np.array([0.5, -1.0, 3.0, 0.0], np.float32),
             "w": np.full(4, 0.25, np.float32)}
    yield "loop_nested_21_levels_of_2", deepest[0], feeds, ["acc"], ("two", "w")
    # Scan: a running state, one input scanned backwards, the output stacked along axis 1.
    sbody = helper.make_graph(
        [helper.make_node("Add", ["s", "row"], ["s_out"]), helper.make_node("Mul", ["s_out", "w"], ["o"])],
        "scan_body",
        [helper.make_tensor_value_info("s", f, [4]), helper.make_tensor_value_info("row", f, [4])],
        [helper.make_tensor_value_info("s_out", f, [4]), helper.make_tensor_value_info("o", f, [4])])
    node = helper.make_node("Scan", ["s0", "rows"], ["s_final", "outs"], body=sbody, num_scan_inputs=1,
                            scan_input_directions=[1], scan_output_axes=[1])
    yield "scan_reverse_axis1", node, {"s0": f32(rng, [4]), "rows": f32(rng, [6, 4]), "w": w}, ["s_final", "outs"], {}


def scan8_cases(rng):
    """Scan at opset 8: a batch of three running sums, the input scanned backwards, no sequence_lens."""
    f = TensorProto.FLOAT
    sbody = helper.make_graph(
        [helper.make_node("Add", ["s", "row"], ["s_out"]), helper.make_node("Mul", ["s_out", "row"], ["o"])],
        "scan8_body",
        [helper.make_tensor_value_info("s", f, [4]), helper.make_tensor_value_info("row", f, [4])],
        [helper.make_tensor_value_info("s_out", f, [4]), helper.make_tensor_value_info("o", f, [4])])
    node = helper.make_node("Scan", ["", "s0", "rows"], ["s_final", "outs"], body=sbody, num_scan_inputs=1,
                            directions=[1])
    yield "scan8_batched_reverse", node, {"s0": f32(rng, [3, 4]), "rows": f32(rng, [3, 6, 4])}, ["s_final", "outs"], ()


def einsum_cases(rng):
    """Einsum equations beyond the node tests: attention's, implicit outputs, ellipses, traces."""
    for name, eq, shapes in [
        ("einsum_attention_scores", "bhqd,bhkd->bhqk", [[2, 3, 4, 8], [2, 3, 5, 8]]),
        ("einsum_implicit_matmul", "ij,jk", [[3, 4], [4, 5]]),
        ("einsum_ellipsis_matmul", "...ij,...jk->...ik", [[2, 3, 4], [2, 4, 5]]),
        ("einsum_outer_product", "i,j->ij", [[3], [4]]),
        ("einsum_trace", "ii", [[4, 4]]),
        ("einsum_three_operands", "ij,jk,kl->il", [[2, 3], [3, 4], [4, 2]]),
        ("einsum_broadcast_sum", "bij,j->bi", [[2, 3, 4], [4]]),
    ]:
        feeds = {f"x{k}": f32(rng, shape) for k, shape in enumerate(shapes)}
        yield name, helper.make_node("Einsum", list(feeds), ["y"], equation=eq), feeds, ["y"], {}


def grid_sample_cases(rng):
    """GridSample with grids reaching past [-1, 1], every mode and padding, both alignments."""
    for mode, padding, align in [("linear", "zeros", 0), ("linear", "border", 1), ("linear", "reflection", 0),
                                 ("nearest", "reflection", 1), ("cubic", "zeros", 0), ("cubic", "border", 0),
                                 ("cubic", "reflection", 1)]:
        feeds = {"X": f32(rng, [2, 3, 5, 7]), "grid": (rng.uniform(-1.6, 1.6, [2, 4, 6, 2])).astype(np.float32)}
        node = helper.make_node("GridSample", ["X", "grid"], ["Y"], mode=mode, padding_mode=padding,
                                align_corners=align)
        yield f"grid_sample_{mode}_{padding}_{align}", node, feeds, ["Y"], {}
    for dims, align in [([2, 3, 5, 7], 0), ([2, 3, 5, 7], 1), ([1, 2, 3, 4, 5], 0)]:
        r = len(dims) - 2
        feeds = {"theta": f32(rng, [dims[0], r, r + 1]), "size": np.array(dims, np.int64)}
        node = helper.make_node("AffineGrid", ["theta", "size"], ["grid"], align_corners=align)
        yield f"affine_grid_{r}d_{align}", node, feeds, ["grid"], ("size",)
    feeds = {"X": f32(rng, [1, 2, 3, 4, 5]), "grid": (rng.uniform(-1.3, 1.3, [1, 2, 3, 4, 3])).astype(np.float32)}
    node = helper.make_node("GridSample", ["X", "grid"], ["Y"], mode="linear", padding_mode="border")
    yield "grid_sample_volumetric_border", node, feeds, ["Y"], {}


def resize_cases(rng):
    """Cubic Resize, up and down, with antialias, exclude_outside and another coefficient; the
    scales constant (compile-time tables) or read at run time."""
    for name, scales, attrs, constant in [
        ("resize_cubic_up", [1, 1, 1.7, 2.3], {}, True),
        ("resize_cubic_down_antialias", [1, 1, 0.6, 0.45], {"antialias": 1}, True),
        ("resize_cubic_exclude_outside", [1, 1, 1.5, 0.8], {"exclude_outside": 1, "cubic_coeff_a": -0.5}, True),
        ("resize_cubic_run_time_scales", [1, 1, 1.4, 0.7], {"antialias": 1}, False),
    ]:
        feeds = {"X": f32(rng, [1, 2, 7, 9]), "roi": None, "scales": np.array(scales, np.float32)}
        node = helper.make_node("Resize", ["X", "", "scales"], ["Y"], mode="cubic", **attrs)
        del feeds["roi"]
        yield name, node, feeds, ["Y"], ("scales",) if constant else ()


def dft_cases(rng):
    """DFT forward and inverse, real and complex, one-sided, padded and truncated lengths."""
    for name, shape, attrs, length in [
        ("dft_complex_axis2", [2, 5, 8, 2], {"axis": 2}, None),
        ("dft_real_onesided_padded", [2, 7, 3, 1], {"axis": 1, "onesided": 1}, 12),
        ("dft_inverse_truncated", [1, 9, 4, 2], {"axis": 1, "inverse": 1}, 6),
        ("dft_irfft", [3, 5, 2], {"axis": 1, "inverse": 1, "onesided": 1}, None),
    ]:
        feeds = {"x": f32(rng, shape)}
        inputs = ["x"]
        if length is not None:
            feeds["length"] = np.array(length, np.int64)
            inputs.append("length")
        # Opset 19's DFT, where the axis is an attribute.
        node = helper.make_node("DFT", inputs, ["y"], **attrs)
        yield name, node, feeds, ["y"], ("length",) if length is not None else ()


def scatter_cases(rng):
    """Col2Im with strides, dilations and pads (its shapes constant, and read at run time); MaxUnpool
    of a real MaxPool's indices; TensorScatter. (MaxUnpool's output_shape is left to the node
    tests: ONNX Runtime reads the indices in output_shape's layout, where ONNX's reference and
    test data read them in the unpooled one and pad.)"""
    cols = f32(rng, [2, 2 * 3 * 2, 12])
    node = helper.make_node("Col2Im", ["input", "image_shape", "block_shape"], ["y"], strides=[2, 1],
                            dilations=[1, 2], pads=[1, 0, 0, 1])
    shapes = {"image_shape": np.array([6, 5], np.int64), "block_shape": np.array([3, 2], np.int64)}
    yield "col2im_strides_dilations_pads", node, {"input": cols, **shapes}, ["y"], ("image_shape", "block_shape")
    # The same with both shapes read at run time: the image's dims are the run's.
    yield "col2im_shapes_at_run_time", node, {"input": cols, **shapes}, ["y"], ()
    x = f32(rng, [1, 2, 6, 6])
    pooled = np.zeros([1, 2, 3, 3], np.float32)
    indices = np.zeros([1, 2, 3, 3], np.int64)
    for c in range(2):
        for i in range(3):
            for j in range(3):
                window = x[0, c, 2 * i:2 * i + 2, 2 * j:2 * j + 2]
                a, b = np.unravel_index(np.argmax(window), (2, 2))
                pooled[0, c, i, j] = window[a, b]
                indices[0, c, i, j] = c * 36 + (2 * i + a) * 6 + (2 * j + b)
    node = helper.make_node("MaxUnpool", ["x", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2])
    yield "maxunpool_of_maxpool", node, {"x": pooled, "i": indices}, ["y"], ()
    cache, update = f32(rng, [2, 3, 6, 4]), f32(rng, [2, 3, 2, 4])
    for mode, starts in [("linear", [0, 3]), ("circular", [5, 2])]:
        node = helper.make_node("TensorScatter", ["cache", "update", "at"], ["y"], mode=mode)
        yield (f"tensor_scatter_{mode}", node, {"cache": cache, "update": update, "at": np.array(starts, np.int64)},
               ["y"], ())


def roi_cases(rng):
    """At opset 21, the newest ONNX Runtime runs. RoiAlign over regions inside, across the edge and past it, tiny and inverted ones, with the
    sample grid fixed and decided per region (sampling_ratio 0), average and max, both coordinate
    modes, opset 10's form and float64; MaxRoiPool over non-negative features (ONNX Runtime starts
    its maxima at the smallest positive float, see max_roi_pool.rs)."""
    x = f32(rng, [2, 3, 12, 10])
    boxes = np.array([[0.5, 1.0, 7.5, 9.0], [-3.0, -2.0, 4.0, 3.5], [6.0, 8.0, 14.0, 15.0], [2.2, 3.3, 2.4, 3.4],
                      [5.0, 6.0, 1.0, 2.0], [0.0, 0.0, 9.0, 11.0], [12.0, 14.0, 20.0, 30.0]], np.float32)
    batches = np.array([0, 1, 1, 0, 1, 0, 1], np.int64)
    for name, attrs, opset in [
        ("roi_align_adaptive_avg", {"output_height": 3, "output_width": 2}, 21),
        ("roi_align_adaptive_max", {"output_height": 2, "output_width": 3, "mode": "max"}, 21),
        ("roi_align_scaled_ratio_3", {"output_height": 4, "output_width": 4, "sampling_ratio": 3,
                                       "spatial_scale": 0.5}, 21),
        ("roi_align_output_half_pixel", {"output_height": 3, "output_width": 3,
                                          "coordinate_transformation_mode": "output_half_pixel"}, 21),
        ("roi_align_opset10", {"output_height": 2, "output_width": 2, "spatial_scale": 0.75}, 10),
    ]:
        node = helper.make_node("RoiAlign", ["X", "rois", "batch_indices"], ["Y"], **attrs)
        yield name, node, {"X": x, "rois": boxes, "batch_indices": batches}, ["Y"], (), opset
    node = helper.make_node("RoiAlign", ["X", "rois", "batch_indices"], ["Y"], output_height=2, output_width=3)
    feeds = {"X": x.astype(np.float64), "rois": boxes.astype(np.float64), "batch_indices": batches}
    yield "roi_align_float64", node, feeds, ["Y"], (), 21
    features = np.abs(f32(rng, [2, 3, 12, 10]))
    regions = np.concatenate([batches[:, None].astype(np.float32), boxes * 2.0], axis=1)
    for name, attrs in [
        ("max_roi_pool", {"pooled_shape": [3, 2], "spatial_scale": 1.0}),
        ("max_roi_pool_scaled", {"pooled_shape": [2, 4], "spatial_scale": 0.5}),
    ]:
        node = helper.make_node("MaxRoiPool", ["X", "rois"], ["Y"], **attrs)
        yield name, node, {"X": features, "rois": regions}, ["Y"], (), 21


def spectral_cases(rng):
    """STFT of a real signal with a Hann window (one-sided), of a complex one without a window
    (two-sided), and with its step and length read at run time; MelWeightMatrix with constant
    inputs and with every input read at run time, in float and float64."""
    hann = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(16) / 16)).astype(np.float32)
    step = np.array(6, np.int64)
    node = helper.make_node("STFT", ["signal", "frame_step", "window"], ["y"])
    yield ("stft_hann_onesided", node, {"signal": f32(rng, [2, 64, 1]), "frame_step": step, "window": hann}, ["y"],
           ("frame_step", "window"))
    node = helper.make_node("STFT", ["signal", "frame_step", "", "frame_length"], ["y"], onesided=0)
    feeds = {"signal": f32(rng, [1, 40, 2]), "frame_step": np.array(5, np.int64), "frame_length": np.array(10, np.int64)}
    yield "stft_complex_two_sided", node, feeds, ["y"], ("frame_step", "frame_length")
    yield "stft_run_time_framing", node, dict(feeds), ["y"], ()
    mel = {"num_mel_bins": np.array(10, np.int64), "dft_length": np.array(64, np.int64),
           "sample_rate": np.array(16000, np.int64), "lower_edge_hertz": np.array(20.0, np.float32),
           "upper_edge_hertz": np.array(7600.0, np.float32)}
    node = helper.make_node("MelWeightMatrix", list(mel), ["w"])
    yield "mel_weight_matrix", node, mel, ["w"], tuple(mel)
    node = helper.make_node("MelWeightMatrix", list(mel), ["w"], output_datatype=TensorProto.DOUBLE)
    yield "mel_weight_matrix_run_time_f64", node, dict(mel), ["w"], ()


def empty_cases(rng):
    """Tensors with a dim of 0 fixed at compile time, whose operators write nothing (xcc lowers
    none of them): a Slice to an empty range, a Conv over it with SAME padding and an
    elementwise step, then a Concat of the empty result with a real tensor and a reduction that
    reads the empty one (its identity). ONNX Runtime 1.32 refuses the Conv over an empty input
    ("Invalid input shape"): onnx's reference implementation is the oracle."""
    x = f32(rng, [1, 2, 5, 6])
    y = f32(rng, [1, 2, 4, 6])
    w = f32(rng, [2, 2, 3, 3])
    ends = {"starts": np.array([3], np.int64), "ends": np.array([3], np.int64), "axes": np.array([2], np.int64)}
    nodes = [helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["empty"]),
             helper.make_node("Conv", ["empty", "w"], ["conv"], auto_pad="SAME_UPPER"),
             helper.make_node("Relu", ["conv"], ["act"]),
             helper.make_node("ReduceSum", ["act"], ["total"], keepdims=0),
             helper.make_node("Concat", ["act", "y"], ["joined"], axis=2)]
    yield "empty_slice_conv_concat", nodes, {"x": x, "y": y, "w": w, **ends}, ["joined", "total"], ("w", *ends)


def data_sized_cases(rng):
    """Outputs as long as the data decides, which the run finds: NonMaxSuppression over many
    overlapping boxes (two batches, three classes; corners and centers; with and without a
    score threshold), NonZero of a 3-D tensor, Compress along an axis with a short condition,
    a float Range over bounds computed by float arithmetic, and Unique of repeated slices
    (sorted) and of repeated floats (in first-seen order)."""
    centers = rng.uniform(0, 20, [2, 40, 2]).astype(np.float32)
    sizes = rng.uniform(6, 14, [2, 40, 2]).astype(np.float32)
    corners = np.concatenate([centers - sizes / 2, centers + sizes / 2], axis=2)[:, :, [1, 0, 3, 2]]
    scores = rng.uniform(0, 1, [2, 3, 40]).astype(np.float32)
    limits = {"max_output_boxes_per_class": np.array([12], np.int64), "iou_threshold": np.array([0.3], np.float32),
              "score_threshold": np.array([0.25], np.float32)}
    names = ["boxes", "scores", *limits]
    node = helper.make_node("NonMaxSuppression", names, ["selected"])
    yield "non_max_suppression_corners", node, {"boxes": corners, "scores": scores, **limits}, ["selected"], ()
    node = helper.make_node("NonMaxSuppression", names[:4], ["selected"], center_point_box=1)
    feeds = {"boxes": np.concatenate([centers, sizes], axis=2), "scores": scores, **limits}
    del feeds["score_threshold"]
    yield "non_max_suppression_centers_no_threshold", node, feeds, ["selected"], ()
    x = rng.integers(-1, 2, [3, 4, 5]).astype(np.int32) * rng.integers(0, 2, [3, 4, 5]).astype(np.int32)
    yield "non_zero_3d", helper.make_node("NonZero", ["x"], ["y"]), {"x": x}, ["y"], ()
    yield "non_zero_scalar", helper.make_node("NonZero", ["x"], ["y"]), {"x": np.array(3.5, np.float32)}, ["y"], ()
    # Only the count is read: NonZero's output itself is otherwise dead.
    nodes = [helper.make_node("NonZero", ["x"], ["where"]), helper.make_node("Shape", ["where"], ["y"])]
    yield "non_zero_count_only", nodes, {"x": x}, ["y"], ()
    node = helper.make_node("Compress", ["x", "condition"], ["y"], axis=1)
    feeds = {"x": f32(rng, [2, 7, 3]), "condition": np.array([1, 0, 1, 1, 0, 1], bool)}
    yield "compress_axis_short_condition", node, feeds, ["y"], ()
    slices = rng.integers(0, 3, [4, 6, 2]).astype(np.int64)[:, rng.integers(0, 3, 6), :]
    outputs = ["y", "indices", "inverse", "counts"]
    yield ("unique_sorted_slices", helper.make_node("Unique", ["x"], outputs, axis=1), {"x": slices}, outputs, ())
    # A float Range whose bounds are computed from inputs by float arithmetic: its length is a
    # data dim the run computes from them.
    nodes = [helper.make_node("Add", ["start", "start"], ["twice"]),
             helper.make_node("Sub", ["limit", "start"], ["shortened"]),
             helper.make_node("Range", ["twice", "shortened", "delta"], ["y"])]
    feeds = {"start": np.array(0.5, np.float32), "limit": np.array(7.25, np.float32), "delta": np.array(0.75, np.float32)}
    yield "range_of_computed_float_bounds", nodes, feeds, ["y"], ()
    floats = rng.choice(np.array([1.5, -2.0, 0.25, 7.0, -0.5], np.float32), [5, 6])
    yield ("unique_first_seen_floats", helper.make_node("Unique", ["x"], outputs, sorted=0), {"x": floats}, outputs,
           ())


def sequence_cases(rng):
    """Sequences built and read inside the graph (their lengths known at compile time): split
    into a sequence and stacked back along a new axis; constructed, inserted into, erased from,
    read at a position and measured; and mapped by a body over a sequence and a tensor."""
    x = f32(rng, [6, 4])
    nodes = [helper.make_node("SplitToSequence", ["x", "two"], ["parts"], axis=0),
             helper.make_node("ConcatFromSequence", ["parts"], ["y"], axis=1, new_axis=1)]
    yield "sequence_split_and_stack", nodes, {"x": x, "two": np.array(2, np.int64)}, ["y"], ("two",)
    feeds = {"a": f32(rng, [2, 3]), "b": f32(rng, [2, 3]), "c": f32(rng, [2, 3]), "d": f32(rng, [2, 3]),
             "one": np.array(1, np.int64), "last": np.array(-1, np.int64)}
    nodes = [helper.make_node("SequenceConstruct", ["a", "b", "c"], ["abc"]),
             helper.make_node("SequenceInsert", ["abc", "d", "one"], ["adbc"]),
             helper.make_node("SequenceErase", ["adbc", "last"], ["adb"]),
             helper.make_node("SequenceAt", ["adb", "one"], ["second"]),
             helper.make_node("SequenceLength", ["adb"], ["n"]),
             helper.make_node("ConcatFromSequence", ["adb"], ["joined"], axis=0)]
    yield "sequence_edit_and_read", nodes, feeds, ["second", "n", "joined"], ("one", "last")
    body = helper.make_graph(
        [helper.make_node("Mul", ["row", "w"], ["scaled"]), helper.make_node("ReduceSum", ["scaled"], ["total"])],
        "map_body",
        [helper.make_tensor_value_info("row", TensorProto.FLOAT, [4]), helper.make_tensor_value_info("w", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("scaled", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("total", TensorProto.FLOAT, [1])])
    nodes = [helper.make_node("SplitToSequence", ["x"], ["rows"], axis=0, keepdims=0),
             helper.make_node("SequenceMap", ["rows", "w"], ["scaled_rows", "totals"], body=body),
             helper.make_node("ConcatFromSequence", ["scaled_rows"], ["y"], axis=0, new_axis=1),
             helper.make_node("ConcatFromSequence", ["totals"], ["t"], axis=0)]
    yield "sequence_map_rows", nodes, {"x": x, "w": f32(rng, [4])}, ["y", "t"], ()


def det_cases(rng):
    """Det of random matrices, one needing a row swap (a zero first pivot), a singular one."""
    m = f32(rng, [3, 5, 5])
    yield "det_batch_5x5", helper.make_node("Det", ["x"], ["y"]), {"x": m}, ["y"], ()
    pivot = np.array([[0, 2, 1], [3, 1, 4], [1, 5, 9]], np.float32)
    singular = np.array([[1, 2, 3], [2, 4, 6], [1, 0, 1]], np.float32)
    yield "det_pivot_and_singular", helper.make_node("Det", ["x"], ["y"]), {"x": np.stack([pivot, singular])}, ["y"], ()


def whole_reduction_cases(rng):
    """Reductions of a whole tensor to one value, over enough elements for the vector lowering
    (four accumulators of 64 bytes, a partial vector at the end): min and max of floats (the
    smallest value placed last, the largest first), of int32 and of uint8, an int64 sum, and a
    run-time quantization's min and max (DynamicQuantizeLinear)."""
    x = f32(rng, [5, 1001])
    x[-1, -1], x[0, 0] = -9.0, 9.0
    yield "reduce_min_whole_f32", helper.make_node("ReduceMin", ["x"], ["y"], keepdims=0), {"x": x}, ["y"], ()
    yield "reduce_max_whole_f32", helper.make_node("ReduceMax", ["x"], ["y"], keepdims=0), {"x": x}, ["y"], ()
    ints = rng.integers(-2**31, 2**31 - 1, [7, 123]).astype(np.int32)
    yield "reduce_max_whole_int32", helper.make_node("ReduceMax", ["x"], ["y"], keepdims=1), {"x": ints}, ["y"], ()
    bytes_ = rng.integers(3, 256, [1000]).astype(np.uint8)
    bytes_[997] = 2
    yield "reduce_min_whole_uint8", helper.make_node("ReduceMin", ["x"], ["y"], keepdims=0), {"x": bytes_}, ["y"], ()
    longs = rng.integers(-2**40, 2**40, [3, 301]).astype(np.int64)
    yield "reduce_sum_whole_int64", helper.make_node("ReduceSum", ["x"], ["y"], keepdims=0), {"x": longs}, ["y"], ()
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "scale", "zero"])
    yield "dynamic_quantize_linear_large", node, {"x": f32(rng, [4, 999], 3.0)}, ["y", "scale", "zero"], ()


def gather_block_quantized_cases(rng):
    """GatherBlockQuantized over uint8 bytes holding two 4-bit values each: with packed zero
    points (an odd count of blocks: a nibble over), and without (8 by default)."""
    data, scales = u8(rng, [6, 24]), f32(rng, [6, 3], 0.1)
    indices = np.array([[0, 5, 2], [2, 2, 1]], np.int64)
    yield contrib("ms_gather_block_quantized_zero_points", "GatherBlockQuantized",
                  {"data": data, "indices": indices, "scales": scales, "zero_points": u8(rng, [6, 2])},
                  inits=("data", "scales", "zero_points"), block_size=16, bits=4, gather_axis=0, quantize_axis=1)
    yield contrib("ms_gather_block_quantized", "GatherBlockQuantized",
                  {"data": data, "indices": indices, "scales": scales}, inits=("data", "scales"), block_size=16,
                  bits=4, gather_axis=0, quantize_axis=1)


def gqa_cases(rng):
    """GroupQueryAttention as ONNX Runtime's LLM exports use it: a prompt, a decode step over a
    past with rotary embeddings, a local window and a softcap, and packed QKV with interleaved
    rotation, a head sink and smooth_softmax; seqlens_k and total_sequence_length given at run time
    (an unpadded batch)."""
    def lengths(batch, total):
        return {"seqlens_k": np.full([batch], total - 1, np.int32), "total_sequence_length": scalar(total, np.int32)}

    def rotary(max_pos, half):
        angles = np.arange(max_pos)[:, None] / (100.0 ** (np.arange(half)[None, :] / half))
        return {"cos_cache": np.cos(angles).astype(np.float32), "sin_cache": np.sin(angles).astype(np.float32)}

    feeds = {"query": f32(rng, [2, 5, 32]), "key": f32(rng, [2, 5, 16]), "value": f32(rng, [2, 5, 16]),
             "past_key": None, "past_value": None, **lengths(2, 5)}
    yield contrib("ms_gqa_prompt", "GroupQueryAttention", feeds, ("Y", "present_key", "present_value"),
                  num_heads=4, kv_num_heads=2)
    # ONNX Runtime rotates heads of a multiple of 16 features.
    feeds = {"query": f32(rng, [2, 1, 64]), "key": f32(rng, [2, 1, 32]), "value": f32(rng, [2, 1, 32]),
             "past_key": f32(rng, [2, 2, 6, 16]), "past_value": f32(rng, [2, 2, 6, 16]), **lengths(2, 7),
             **rotary(16, 8)}
    yield contrib("ms_gqa_decode_rotary_window_softcap", "GroupQueryAttention", feeds,
                  ("Y", "present_key", "present_value"), num_heads=4, kv_num_heads=2, do_rotary=1,
                  local_window_size=3, softcap=2.0)
    # A sink per head (head_sink, input 11), and smooth_softmax (a sink of 0), over a past.
    feeds = {"query": f32(rng, [2, 1, 64]), "key": f32(rng, [2, 1, 32]), "value": f32(rng, [2, 1, 32]),
             "past_key": f32(rng, [2, 2, 6, 16]), "past_value": f32(rng, [2, 2, 6, 16]), **lengths(2, 7),
             "cos_cache": None, "sin_cache": None, "position_ids": None, "attention_bias": None,
             "head_sink": f32(rng, [4])}
    yield contrib("ms_gqa_head_sink", "GroupQueryAttention", feeds, ("Y", "present_key", "present_value"),
                  num_heads=4, kv_num_heads=2)
    feeds = {k: v for k, v in feeds.items() if k != "head_sink"}
    yield contrib("ms_gqa_smooth_softmax", "GroupQueryAttention", feeds, ("Y", "present_key", "present_value"),
                  num_heads=4, kv_num_heads=2, smooth_softmax=1)
    feeds = {"query": f32(rng, [1, 3, 128]), "key": None, "value": None, "past_key": f32(rng, [1, 2, 2, 16]),
             "past_value": f32(rng, [1, 2, 2, 16]), **lengths(1, 5), **rotary(8, 8)}
    yield contrib("ms_gqa_packed_interleaved_rotary", "GroupQueryAttention", feeds,
                  ("Y", "present_key", "present_value"), num_heads=4, kv_num_heads=2, do_rotary=1,
                  rotary_interleaved=1, scale=0.2)


def integer_matmul_cases(rng):
    """MatMulInteger with constant weights (the integer micro-kernel's packed quads): K and N
    not multiples of 4 and 16, rows past a tile, a batch, each signedness, zero points per
    tensor and per column of B."""
    node = helper.make_node("MatMulInteger", ["A", "B", "a_zero"], ["Y"])
    # B in 7 bits where A is unsigned and B signed, as in the QGemm case (ONNX Runtime's
    # vpmaddubsw on CPUs without VNNI); the other signedness pairs keep full-range bytes.
    feeds = {"A": u8(rng, [2, 5, 37]), "B": i8(rng, [37, 21]) // 2, "a_zero": scalar(131, np.uint8)}
    yield "matmul_integer_u8_i8_batched_ragged", node, feeds, ["Y"], ("B", "a_zero")
    node = helper.make_node("MatMulInteger", ["A", "B", "a_zero", "b_zero"], ["Y"])
    feeds = {"A": i8(rng, [7, 64]), "B": u8(rng, [64, 48]), "a_zero": scalar(-3, np.int8), "b_zero": u8(rng, [48])}
    yield "matmul_integer_i8_u8_zero_points_per_column", node, feeds, ["Y"], ("B", "a_zero", "b_zero")
    node = helper.make_node("MatMulInteger", ["A", "B"], ["Y"])
    yield "matmul_integer_u8_u8", node, {"A": u8(rng, [3, 33]), "B": u8(rng, [33, 16])}, ["Y"], ("B",)
    # Convolutions of one image as the weights times the gathered windows (K = 3 * 9 = 27 and
    # P = 4 * 5 = 20 past whole quads and panels), and of two images as windows times weights.
    node = helper.make_node("ConvInteger", ["X", "W", "x_zero"], ["Y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                            strides=[2, 2])
    yield ("conv_integer_image_padded_strided", node,
           {"X": u8(rng, [1, 3, 7, 9]), "W": i8(rng, [5, 3, 3, 3]), "x_zero": scalar(119, np.uint8)}, ["Y"], ("W", "x_zero"))
    yield ("conv_integer_batch_padded_strided", node,
           {"X": u8(rng, [2, 3, 7, 9]), "W": i8(rng, [5, 3, 3, 3]), "x_zero": scalar(119, np.uint8)}, ["Y"], ("W", "x_zero"))
    # Depthwise: the float convolution in f32, exact for sums of 9 products of bytes.
    node = helper.make_node("ConvInteger", ["X", "W", "x_zero"], ["Y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                            group=6)
    yield ("conv_integer_depthwise", node,
           {"X": u8(rng, [1, 6, 8, 8]), "W": i8(rng, [6, 1, 3, 3]), "x_zero": scalar(200, np.uint8)}, ["Y"], ("W", "x_zero"))
    node = helper.make_node("ConvInteger", ["X", "W", "x_zero", "w_zero"], ["Y"], kernel_shape=[1, 1])
    yield ("conv_integer_pointwise_weight_zero_points", node,
           {"X": u8(rng, [1, 8, 6, 6]), "W": i8(rng, [12, 8, 1, 1]), "x_zero": scalar(7, np.uint8),
            "w_zero": i8(rng, [12])}, ["Y"], ("W", "x_zero", "w_zero"))
    yield "matmul_integer_i8_i8", node, {"A": i8(rng, [9, 130]), "B": i8(rng, [130, 70])}, ["Y"], ("B",)
    # Convolutions over planes in channel quads (weights without zero points): dilated taps
    # and uneven pads over channels short of a quad and rows past a tile; 440 positions
    # (blocks of 64 and a masked last group); strides as phases with unsigned weights (the
    # widened bytes, no vpdpbusd) and a batch; a strided 1x1.
    node = helper.make_node("ConvInteger", ["X", "W", "x_zero"], ["Y"], kernel_shape=[3, 3], dilations=[2, 2],
                            pads=[2, 1, 0, 3])
    yield ("conv_integer_planes_dilated_ragged", node,
           {"X": u8(rng, [1, 5, 11, 13]), "W": i8(rng, [7, 5, 3, 3]), "x_zero": scalar(77, np.uint8)}, ["Y"], ("W", "x_zero"))
    node = helper.make_node("ConvInteger", ["X", "W", "x_zero"], ["Y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    yield ("conv_integer_planes_wide", node,
           {"X": u8(rng, [1, 8, 20, 20]), "W": i8(rng, [16, 8, 3, 3]), "x_zero": scalar(128, np.uint8)}, ["Y"], ("W", "x_zero"))
    node = helper.make_node("ConvInteger", ["X", "W", "x_zero"], ["Y"], kernel_shape=[2, 3], strides=[3, 2],
                            pads=[1, 0, 1, 2])
    yield ("conv_integer_planes_u8_u8_strided_batch", node,
           {"X": u8(rng, [2, 4, 9, 10]), "W": u8(rng, [6, 4, 2, 3]), "x_zero": scalar(9, np.uint8)}, ["Y"], ("W", "x_zero"))
    node = helper.make_node("ConvInteger", ["X", "W"], ["Y"], kernel_shape=[1, 1], strides=[2, 2])
    yield "conv_integer_planes_pointwise_strided", node, {"X": u8(rng, [1, 16, 7, 7]), "W": i8(rng, [8, 16, 1, 1])}, ["Y"], ("W",)


def qlinear_softmax_cases(rng):
    """QLinearSoftmax (com.microsoft) over uint8, along the last axis (opset 13's meaning) and
    over the flattened dims from axis 1 (opset 12's)."""
    x = u8(rng, [2, 3, 10])
    for opset, axis in [(13, -1), (12, 1)]:
        yield contrib(f"ms_qlinear_softmax_opset{opset}", "QLinearSoftmax",
                      {"X": x, "X_scale": scalar(0.05), "x_zero_point": scalar(128, np.uint8),
                       "y_scale": scalar(1 / 256), "y_zero_point": scalar(0, np.uint8)}, opset=opset, axis=axis)


def classic_ml_cases(rng):
    """TfIdfVectorizer's IDF and TFIDF weightings over skips; DeformConv with strides, dilations,
    pads, groups, offset groups, a mask and a bias; TreeEnsemble's other aggregations, NaN
    tracking and a post transform; Binarizer and ArrayFeatureExtractor's other shapes."""
    pool = [2, 3, 4, 2, 3, 3, 4, 1, 1]  # unigrams 2, 3, 4; bigrams (2, 3), (3, 4), (1, 1)
    for name, mode, weights, shape, lengths in [
        ("tfidf_idf_weighted", "IDF", [0.5, 1.5, 2.0, 3.0, 0.25, 4.0], [3, 9], (1, 2)),
        ("tfidf_tfidf_vector", "TFIDF", [1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [11], (1, 2)),
        ("tfidf_idf_unweighted_bigrams", "IDF", None, [2, 7], (2, 2)),
    ]:
        attrs = dict(mode=mode, min_gram_length=lengths[0], max_gram_length=lengths[1], max_skip_count=2,
                     ngram_counts=[0, 3], ngram_indexes=[0, 1, 2, 3, 4, 5], pool_int64s=pool)
        if weights:
            attrs["weights"] = weights
        node = helper.make_node("TfIdfVectorizer", ["X"], ["Y"], **attrs)
        yield name, node, {"X": rng.integers(0, 6, shape).astype(np.int64)}, ["Y"], ()
    node = helper.make_node("DeformConv", ["X", "W", "offset", "B", "mask"], ["Y"], kernel_shape=[3, 2],
                            strides=[2, 1], dilations=[1, 2], pads=[1, 0, 2, 1], group=2, offset_group=2)
    feeds = {"X": f32(rng, [2, 4, 7, 6]), "W": f32(rng, [6, 2, 3, 2]),
             "offset": rng.uniform(-2.0, 2.0, [2, 2 * 3 * 2 * 2, 4, 5]).astype(np.float32),
             "B": f32(rng, [6]), "mask": rng.uniform(0.0, 1.0, [2, 2 * 3 * 2, 4, 5]).astype(np.float32)}
    yield "deform_conv_strided_dilated_grouped", node, feeds, ["Y"], ("W", "B")
    x = f32(rng, [7, 3])
    x[2, 1] = np.nan
    x[5, 0] = np.nan
    # post_transform stays NONE: ONNX Runtime 1.32 reads TreeEnsemble's codes 1 and 2 as
    # LOGISTIC and its two-class form, where ONNX defines 1 as SOFTMAX and 2 as LOGISTIC.
    for aggregate, post in [(0, 0), (2, 0), (3, 0)]:
        node = helper.make_node(
            "TreeEnsemble", ["X"], ["Y"], domain="ai.onnx.ml", n_targets=2, aggregate_function=aggregate,
            post_transform=post, tree_roots=[0, 3],
            nodes_featureids=[0, 1, 2, 1, 0], nodes_modes=helper.make_tensor("m", TensorProto.UINT8, [5], [0, 3, 5, 1, 4]),
            nodes_splits=helper.make_tensor("s", TensorProto.FLOAT, [5], [0.1, -0.3, 0.2, 0.0, float(x[1, 0])]),
            nodes_truenodeids=[1, 0, 2, 4, 3], nodes_trueleafs=[0, 1, 1, 0, 1],
            nodes_falsenodeids=[2, 1, 3, 4, 4], nodes_falseleafs=[0, 1, 1, 1, 1],
            nodes_missing_value_tracks_true=[1, 0, 0, 1, 0],
            leaf_targetids=[0, 1, 0, 1, 0, 1], leaf_weights=helper.make_tensor("w", TensorProto.FLOAT, [6],
                                                                                [1.5, -2.0, 0.25, 3.0, -1.0, 0.75]))
        yield f"tree_ensemble_aggregate{aggregate}_post{post}", node, {"X": x}, ["Y"], ()
    node = helper.make_node("Binarizer", ["X"], ["Y"], domain="ai.onnx.ml", threshold=0.3)
    yield "binarizer_float", node, {"X": f32(rng, [4, 5])}, ["Y"], ()
    node = helper.make_node("ArrayFeatureExtractor", ["X", "i"], ["Y"], domain="ai.onnx.ml")
    yield "array_feature_extractor_vector", node, {"X": f32(rng, [6]), "i": np.array([[4, 0, 4]], np.int64)}, ["Y"], ()


WORDS = ["alpha", "Beta", "GAMMA", "delta", "épée", "Straße", "monday", "x-ray", "the", "fox"]


def string_cases(rng):
    """STRING pipelines over random phrases (UTF-8 among them): joined with a constant and matched
    by a pattern; split at spaces at most once, compared, and encoded to ids. (StringNormalizer
    has no oracle here: ONNX Runtime needs an en_US.UTF-8 locale this machine lacks, and the
    onnx reference implementation removes stopwords as words and strips accents; the node tests
    carry its cases.)"""
    def phrase():
        return " ".join(rng.choice(WORDS, rng.integers(1, 4)))
    x = np.array([phrase() for _ in range(8)] + ["monday", ""], dtype=object)
    nodes = [helper.make_node("StringConcat", ["x", "bang"], ["c"]),
             helper.make_node("RegexFullMatch", ["c"], ["m"], pattern=r"[a-zß]+( [\w\-]+)*!")]
    feeds = {"x": x, "bang": np.array(["!"], dtype=object)}
    yield "strings_join_match", nodes, feeds, ["c", "m"], ("bang",)
    nodes = [helper.make_node("StringSplit", ["x"], ["parts", "count"], delimiter=" ", maxsplit=1),
             helper.make_node("Equal", ["x", "probe"], ["same"]),
             helper.make_node("LabelEncoder", ["x"], ["id"], domain="ai.onnx.ml", keys_strings=WORDS,
                              values_int64s=list(range(len(WORDS))), default_int64=-7)]
    # ONNX Runtime splits "" at a delimiter into no parts, the onnx reference (Python's str.split)
    # into one empty part, as xcc does: the split case has a leading space where the other has "".
    split_x = np.where(x == "", " fox", x).reshape(2, 5)
    feeds = {"x": split_x, "probe": np.array(["monday", "fox", "", "alpha", "GAMMA"], dtype=object)}
    yield "strings_split_compare_encode", nodes, feeds, ["parts", "count", "same", "id"], ("probe",)


def string_cast_cases(rng):
    """Cast and CastLike between strings and numbers. Strings with a number at their start, after
    whitespace ("3abc", hex, "infinity", out of the type's range); numbers of every kind written
    back (NaN, infinities, -0, large and tiny values)."""
    reals = np.array(["1.5", " 2", "-INF", "nan", "1e-5", "0x1p3", "3abc", "1e50", "-0", "42", "+Infinity",
                      "1e-50", "-123.456e2", "7."], dtype=object)
    # (ONNX Runtime's Python gives no bfloat16 or float8 outputs to compare with.)
    to_reals = [("f32", TensorProto.FLOAT), ("f64", TensorProto.DOUBLE), ("f16", TensorProto.FLOAT16)]
    nodes = [helper.make_node("Cast", ["x"], [name], to=to) for name, to in to_reals]
    yield "cast_strings_to_reals", nodes, {"x": reals.reshape(2, 7)}, [n for n, _ in to_reals], ()
    ints = np.array(["12", "-7", " 4", "+3", "2.7", "1e3", "300", "-1", "9223372036854775807", "0", "0x10", "65536"],
                    dtype=object)
    to_ints = [("i64", TensorProto.INT64), ("i32", TensorProto.INT32), ("i8", TensorProto.INT8),
               ("u8", TensorProto.UINT8), ("u16", TensorProto.UINT16), ("u64", TensorProto.UINT64),
               ("b", TensorProto.BOOL)]
    nodes = [helper.make_node("Cast", ["x"], [name], to=to) for name, to in to_ints]
    yield "cast_strings_to_integers", nodes, {"x": ints}, [n for n, _ in to_ints], ()
    special = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e20, 1e-7, 123456789.0, 16777216.0, 0.1, 1 / 3, 3.4e38]
    f = np.concatenate([np.array(special), rng.standard_normal(12) * 10.0 ** rng.integers(-8, 9, 12)])
    with np.errstate(over="ignore"):
        halves = f.astype(np.float16)
    feeds = {"f32": f.astype(np.float32).reshape(4, 6), "f64": f * (1 + 1e-12), "f16": halves,
             "i64": np.array([0, -5, 2 ** 62, -2 ** 63, 17], np.int64),
             "u64": np.array([0, 2 ** 64 - 1, 10], np.uint64), "i8": np.array([-128, 127, 0], np.int8),
             "b": np.array([True, False])}
    nodes = [helper.make_node("Cast", [k], [f"s_{k}"], to=TensorProto.STRING) for k in feeds]
    yield "cast_numbers_to_strings", nodes, feeds, [f"s_{k}" for k in feeds], ()
    # CastLike takes the target type from its second input: strings both ways.
    nodes = [helper.make_node("CastLike", ["x", "like"], ["s"]), helper.make_node("CastLike", ["s", "x"], ["back"])]
    feeds = {"x": (rng.standard_normal(8) * 100).astype(np.float32), "like": np.array(["0"], dtype=object)}
    yield "castlike_strings_round_trip", nodes, feeds, ["s", "back"], ("like",)


def image_cases(rng):
    """ImageDecoder over images Pillow writes (seeded pixels), checked by onnx's reference
    implementation (Pillow; ONNX Runtime has no ImageDecoder): PNG with every filter (`optimize`),
    palettes, gray and alpha; BMP of 24 bits and 4-bit palettes; binary PGM and PPM; uncompressed
    TIFF. RGB and BGR only from RGB images (the reference returns a palette's indices, or four
    channels, where ONNX's RGB is three); Grayscale from every kind."""
    import io

    from PIL import Image

    h, w = 13, 21
    smooth = np.cumsum(rng.integers(0, 40, (h, w, 3)), axis=1) % 256
    rgb = Image.fromarray(smooth.astype(np.uint8))
    kinds = {
        "png_rgb": (rgb, "PNG", {"optimize": True}),
        "png_palette": (rgb.quantize(12), "PNG", {}),
        "png_gray": (rgb.convert("L"), "PNG", {}),
        "png_rgba": (rgb.convert("RGBA"), "PNG", {}),
        "bmp_rgb": (rgb, "BMP", {}),
        "bmp_palette4": (rgb.quantize(16), "BMP", {}),
        "ppm_rgb": (rgb, "PPM", {}),
        "pgm_gray": (rgb.convert("L"), "PPM", {}),
        "tiff_rgb": (rgb, "TIFF", {}),
        "tiff_gray": (rgb.convert("L"), "TIFF", {}),
    }
    for kind, (image, fmt, options) in kinds.items():
        encoded = io.BytesIO()
        image.save(encoded, fmt, **options)
        feeds = {"x": np.frombuffer(encoded.getvalue(), np.uint8).copy()}
        formats = ["RGB", "BGR", "Grayscale"] if image.mode == "RGB" else ["Grayscale"]
        for pixel_format in formats:
            node = helper.make_node("ImageDecoder", ["x"], ["y"], pixel_format=pixel_format)
            yield f"image_decoder_{kind}_{pixel_format.lower()}", node, feeds, ["y"], ()


def write(out, name, node, feeds, output_names, inits=(), opset=22):
    """One case: `node` (or a list of nodes, the last one naming the case's operator) over `feeds`."""
    inits = [numpy_helper.from_array(feeds[k], k) for k in inits]
    feeds = {k: v for k, v in feeds.items() if k not in {t.name for t in inits}}
    inputs = [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape))
              for k, v in feeds.items()]
    outputs = [helper.make_empty_tensor_value_info(o) for o in output_names]
    nodes = node if isinstance(node, list) else [node]
    node = nodes[-1]
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
    imports = [helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)]
    if node.domain == "ai.onnx.ml":
        imports.append(helper.make_opsetid("ai.onnx.ml", 5))
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = 10
    options = ort.SessionOptions()
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        results = session.run(output_names, feeds)
        oracle = "onnxruntime"
    except Exception as e:  # noqa: BLE001 - ONNX Runtime lacks some modes (batch-first recurrences)
        if os.environ.get("XCC_GALLERY_VERBOSE"):
            print(f"{name}: onnxruntime: {str(e).splitlines()[0]}", file=sys.stderr)
        try:
            results = ReferenceEvaluator(model).run(output_names, feeds)
            oracle = "the onnx reference implementation"
        except Exception as e:  # noqa: BLE001 - a case neither oracle runs is named and left out
            print(f"left out {name}: no oracle runs it: {str(e).splitlines()[0]}", file=sys.stderr)
            return None
    # The outputs typed as the oracle computed them (the harness reads the model's output types).
    del model.graph.output[:]
    model.graph.output.extend(
        helper.make_tensor_value_info(o, helper.np_dtype_to_tensor_dtype(r.dtype), list(r.shape))
        for o, r in zip(output_names, results))
    case = os.path.join(out, f"test_{name}")
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(case, "model.onnx"))
    for k, (key, value) in enumerate(feeds.items()):
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, key).SerializeToString())
    for k, (key, value) in enumerate(zip(output_names, results)):
        with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(value, key).SerializeToString())
    if node.op_type in ("Resize", "DFT", "STFT"):
        # Cubic weights sum terms of both signs, and a transform's exact zeros (the imaginary
        # part of a real signal's DC bin) come out of an FFT as rounding noise: where results
        # cancel to nearly zero, float32 orders differ by about 1e-6, past the relative tolerance
        # of so small a value.
        with open(os.path.join(case, "tolerance"), "w") as f:
            f.write("1e-3 1e-5\n")
    if node.op_type in ("RNN", "GRU", "LSTM"):
        # States of magnitude up to 1 summed over the steps in another order (GEMMs against
        # ONNX Runtime's): an output that cancels to about 1e-6 differs by a few float32 steps of
        # the values it came from, past 1e-7 (a GRU of 32 units: 1.3e-7 at -4.1e-6).
        with open(os.path.join(case, "tolerance"), "w") as f:
            f.write("1e-3 1e-6\n")
    if node.op_type == "MatMulNBits" and next(a.i for a in node.attribute if a.name == "K") > 1024:
        # Sums of over a thousand products of magnitude 0.5 (outputs up to about 40) in another
        # order than ONNX Runtime's: where they cancel to about 1e-3, float32 orders differ by a
        # few 1e-6 (3.3e-6 at -7.3e-4), past the relative tolerance of so small a value.
        with open(os.path.join(case, "tolerance"), "w") as f:
            f.write("1e-3 1e-5\n")
    if node.op_type in ROUNDS_ITS_OWN_WAY:
        with open(os.path.join(case, "integer-tolerance"), "w") as f:
            f.write("1\n")
    return oracle


SHARED_MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "models")
QUANTIZED = ["mlp", "squeezenet1_1", "mobilenet_v2", "resnet18", "encoder"]
# The forms each model is quantized to (all three by default). The encoder's static forms are
# left out: ONNX Runtime runs their softmax and layer norms on its own quantized kernels, whose
# rounding moves the outputs past QDQ_TOLERANCE (0.1 of 4.8 at worst).
QUANTIZED_FORMS = {"encoder": ["dynamic"]}
# Where a run-time quantization (DynamicQuantizeLinear) puts an activation one step apart, the
# encoder's layer norms spread it: absolute 5e-3 of the largest output on top of the usual 1e-4
# (measured: 1e-4 suffices against ONNX Runtime on an AVX-512 VNNI CPU, 1.3e-3 is needed on an
# AVX2 one, whose kernels round ONNX Runtime's activations differently).
DYNAMIC_TOLERANCE = {"encoder": 5e-3}


def quantized_models(out, tmp):
    """The shared CNNs (and the MLP) quantized by ONNX Runtime's quantizer: static QDQ and
    QOperator (uint8 activations, int8 weights, calibrated on seeded inputs) and dynamic (int8
    weights), each run by ONNX Runtime on the model's reference input. None without ../shared."""
    import json

    from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    # The benchmark's calibration reader (four seeded inputs), so both quantize alike.
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
    from quantize import Calibration

    manifest_path = os.path.join(SHARED_MODELS, "manifest.json")
    if not os.path.isfile(manifest_path):
        print("skipped the quantized models: ../shared/models is missing", file=sys.stderr)
        return []
    manifest = json.load(open(manifest_path))

    written = []
    for model in QUANTIZED:
        entry = manifest[model]
        iname, shape = entry["input"]["name"], entry["input"]["shape"]
        pre = os.path.join(tmp, f"{model}_pre.onnx")
        quant_pre_process(os.path.join(SHARED_MODELS, entry["file"]), pre, skip_symbolic_shape=True)
        x = np.fromfile(os.path.join(SHARED_MODELS, f"{model}.input.bin"), dtype=np.float32).reshape(shape)
        for form in QUANTIZED_FORMS.get(model, ["qdq", "qoperator", "dynamic"]):
            path = os.path.join(tmp, f"{model}_{form}.onnx")
            # reduce_range: 7-bit weights, as ONNX Runtime advises for CPUs without AVX-512 VNNI,
            # where its uint8 x int8 kernels (vpmaddubsw) saturate pairs of full-range products,
            # so its outputs would depend on the machine. Exact everywhere with 7 bits.
            if form == "dynamic":
                quantize_dynamic(pre, path, weight_type=QuantType.QInt8, reduce_range=True)
            else:
                fmt = QuantFormat.QDQ if form == "qdq" else QuantFormat.QOperator
                quantize_static(pre, path, Calibration(iname, shape), quant_format=fmt, reduce_range=True,
                                activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)
            session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
            y = session.run(None, {iname: x})[0]
            case = os.path.join(out, f"test_quantized_{model}_{form}")
            data = os.path.join(case, "test_data_set_0")
            os.makedirs(data, exist_ok=True)
            os.replace(path, os.path.join(case, "model.onnx"))
            with open(os.path.join(data, "input_0.pb"), "wb") as f:
                f.write(numpy_helper.from_array(x, iname).SerializeToString())
            with open(os.path.join(data, "output_0.pb"), "wb") as f:
                f.write(numpy_helper.from_array(y, "output").SerializeToString())
            if form != "dynamic":
                with open(os.path.join(case, "tolerance"), "w") as f:
                    f.write(f"0 {QDQ_TOLERANCE * float(np.abs(y).max())}\n")
            if form == "dynamic" and model in DYNAMIC_TOLERANCE:
                with open(os.path.join(case, "tolerance"), "w") as f:
                    f.write(f"1e-4 {DYNAMIC_TOLERANCE[model] * float(np.abs(y).max())}\n")
            written.append("onnxruntime")
    # The QDQ SqueezeNet for AArch64 with sdot alone (its uint8 activations shifted to signed
    # bytes), under qemu where the cross tools are at hand.
    if shutil.which("aarch64-linux-gnu-gcc") and shutil.which("qemu-aarch64"):
        source = os.path.join(out, "test_quantized_squeezenet1_1_qdq")
        if os.path.isdir(source):
            case = os.path.join(out, "test_quantized_squeezenet1_1_qdq_aarch64_dotprod")
            shutil.copytree(source, case)
            with open(os.path.join(case, "xcc-flags"), "w") as f:
                f.write("--target=aarch64 --mattr=+dotprod\n")
            written.append("onnxruntime")
    return written


def optimized_models(out):
    """The shared models as ONNX Runtime saves them after its extended graph optimizations (its
    contrib operators: FusedConv, FusedGemm, Gelu, SkipLayerNormalization, ...), each run by ONNX
    Runtime on the model's reference input. None without ../shared."""
    import json

    manifest_path = os.path.join(SHARED_MODELS, "manifest.json")
    if not os.path.isfile(manifest_path):
        print("skipped the optimized models: ../shared/models is missing", file=sys.stderr)
        return []
    written = []
    for model, entry in sorted(json.load(open(manifest_path)).items()):
        case = os.path.join(out, f"test_ort_optimized_{model}")
        data = os.path.join(case, "test_data_set_0")
        os.makedirs(data, exist_ok=True)
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        options.optimized_model_filepath = os.path.join(case, "model.onnx")
        ort.InferenceSession(os.path.join(SHARED_MODELS, entry["file"]), options, providers=["CPUExecutionProvider"])
        iname, shape = entry["input"]["name"], entry["input"]["shape"]
        x = np.fromfile(os.path.join(SHARED_MODELS, f"{model}.input.bin"), dtype=np.float32).reshape(shape)
        session = ort.InferenceSession(os.path.join(case, "model.onnx"), providers=["CPUExecutionProvider"])
        y = session.run(None, {iname: x})[0]
        with open(os.path.join(data, "input_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(x, iname).SerializeToString())
        with open(os.path.join(data, "output_0.pb"), "wb") as f:
            f.write(numpy_helper.from_array(y, "output").SerializeToString())
        # Float32 in another order, as for the shared models: 1e-4 of the largest output.
        with open(os.path.join(case, "tolerance"), "w") as f:
            f.write(f"1e-4 {1e-4 * float(np.abs(y).max())}\n")
        written.append("onnxruntime")
    return written


def torch_exported(out):
    """The cases gen_torch_cases.py writes in the converters' venv (torch), where it exists."""
    import subprocess

    here = os.path.dirname(os.path.abspath(__file__))
    python = os.path.join(here, "..", "..", ".venv-torch", "bin", "python")
    if not os.path.exists(python):
        print("skipped the torch-exported models: no .venv-torch (scripts/setup.sh makes it)", file=sys.stderr)
        return []
    done = subprocess.run([python, os.path.join(here, "gen_torch_cases.py"), out], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"gen_torch_cases.py failed:\n{done.stderr}")
    count = int(done.stdout.strip().splitlines()[-1].split()[1])
    return ["onnxruntime"] * count


def main():
    out = sys.argv[1]
    ort.set_default_logger_severity(3)
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20261126)
    oracles = [write(out, *case) for case in cases(rng)]
    oracles += [write(out, *case) for case in contrib_cases(rng)]
    oracles += [write(out, *case) for case in nbits_cases(np.random.default_rng(1134))]
    # MatMulNBits for AArch64 under qemu: every case with i8mm (`usdot` for 8-bit weights), the
    # int8 ones again with dotprod alone (8-bit weights shifted to signed for `sdot`).
    if shutil.which("aarch64-linux-gnu-gcc") and shutil.which("qemu-aarch64"):
        for suffix, features in [("aarch64_dotprod_i8mm", "+dotprod,+i8mm"), ("aarch64_dotprod", "+dotprod")]:
            for name, *case in nbits_cases(np.random.default_rng(1134)):
                if features == "+dotprod" and "int8" not in name:
                    continue
                oracles.append(write(out, f"{name}_{suffix}", *case))
                if oracles[-1]:
                    with open(os.path.join(out, f"test_{name}_{suffix}", "xcc-flags"), "w") as f:
                        f.write(f"--target=aarch64 --mattr={features}\n")
    else:
        print("skipped: MatMulNBits for AArch64 (aarch64-linux-gnu-gcc or qemu-aarch64 not found)", file=sys.stderr)
    oracles += [write(out, *case, opset=23) for case in attention_cases(np.random.default_rng(1135))]
    oracles += [write(out, *case) for case in control_cases(rng)]
    oracles += [write(out, *case) for case in einsum_cases(rng)]
    oracles += [write(out, *case, opset=8) for case in scan8_cases(np.random.default_rng(1129))]
    oracles += [write(out, *case) for case in grid_sample_cases(rng)]
    oracles += [write(out, *case) for case in resize_cases(rng)]
    oracles += [write(out, *case, opset=19) for case in dft_cases(rng)]
    oracles += [write(out, *case, opset=24) for case in scatter_cases(rng)]
    oracles += [write(out, *case) for case in det_cases(rng)]
    oracles += [write(out, *case) for case in spectral_cases(np.random.default_rng(1128))]
    oracles += [write(out, *case) for case in data_sized_cases(np.random.default_rng(1129))]
    oracles += [write(out, *case) for case in empty_cases(np.random.default_rng(1136))]
    oracles += [write(out, *case) for case in sequence_cases(np.random.default_rng(1130))]
    oracles += [write(out, *case, opset=20) for case in string_cases(np.random.default_rng(1131))]
    oracles += [write(out, *case, opset=21) for case in string_cast_cases(np.random.default_rng(1132))]
    oracles += [write(out, *case, opset=20) for case in image_cases(np.random.default_rng(1133))]
    oracles += [write(out, *case[:5], opset=case[5]) for case in roi_cases(np.random.default_rng(1127))]
    oracles += [write(out, *case) for case in whole_reduction_cases(np.random.default_rng(1128))]
    oracles += [write(out, *case) for case in classic_ml_cases(np.random.default_rng(1126))]
    oracles += [write(out, *case) for case in gqa_cases(np.random.default_rng(2611))]
    oracles += [write(out, *case) for case in gather_block_quantized_cases(np.random.default_rng(2612))]
    oracles += [write(out, *case) for case in integer_matmul_cases(np.random.default_rng(826))]
    # For AArch64, run under qemu where the cross tools are at hand: with NEON's dot products
    # (sdot and udot; usdot from i8mm for mixed signs), and with sdot and udot alone.
    if shutil.which("aarch64-linux-gnu-gcc") and shutil.which("qemu-aarch64"):
        for suffix, features in [("aarch64_dotprod_i8mm", "+dotprod,+i8mm"), ("aarch64_dotprod", "+dotprod")]:
            for name, *case in integer_matmul_cases(np.random.default_rng(826)):
                oracles.append(write(out, f"{name}_{suffix}", *case))
                if oracles[-1]:
                    with open(os.path.join(out, f"test_{name}_{suffix}", "xcc-flags"), "w") as f:
                        f.write(f"--target=aarch64 --mattr={features}\n")
    else:
        print("skipped: the AArch64 integer kernels (aarch64-linux-gnu-gcc or qemu-aarch64 not found)",
              file=sys.stderr)
    # Again for this machine's CPU (`xcc-flags`): with AVX-512 VNNI, the kernels of vpdpbusd.
    for name, *case in integer_matmul_cases(np.random.default_rng(826)):
        oracles.append(write(out, f"{name}_native", *case))
        if oracles[-1]:
            with open(os.path.join(out, f"test_{name}_native", "xcc-flags"), "w") as f:
                f.write("--mcpu=native\n")
    # And for x86-64's baseline, whose CPUs have neither VNNI nor AVX2's 16-bit pairs: the
    # kernels of bytes widened to 32 bits (a dispatched library's fallback copy).
    if platform.machine() in ("x86_64", "AMD64"):
        for name, *case in integer_matmul_cases(np.random.default_rng(826)):
            oracles.append(write(out, f"{name}_x86_64_v2", *case))
            if oracles[-1]:
                with open(os.path.join(out, f"test_{name}_x86_64_v2", "xcc-flags"), "w") as f:
                    f.write("--mcpu=x86-64-v2\n")
    # And unoptimized (`-O0`), where LLVM selects whatever code is left: each CPU's copy of a
    # dispatched library must keep only its own side of the convolution kernels.
    for name, *case in integer_matmul_cases(np.random.default_rng(826)):
        if name.startswith("conv_integer_planes"):
            oracles.append(write(out, f"{name}_O0", *case))
            if oracles[-1]:
                with open(os.path.join(out, f"test_{name}_O0", "xcc-flags"), "w") as f:
                    f.write("-O0\n")
    oracles += [write(out, *case) for case in qlinear_softmax_cases(np.random.default_rng(1127))]
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        oracles += quantized_models(out, tmp)
    oracles += optimized_models(out)
    oracles += torch_exported(out)
    by_ort = oracles.count("onnxruntime")
    by_reference = len([o for o in oracles if o and o != "onnxruntime"])
    print(f"{by_ort + by_reference} gallery cases: {by_ort} checked by onnxruntime {ort.__version__}, "
          f"{by_reference} by the onnx reference implementation (modes onnxruntime lacks)")


if __name__ == "__main__":
    main()
